
BscaleJ°8v:ä9½=M9#;=å9