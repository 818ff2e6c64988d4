
BreducedJ
¨B%A5BÈA]A