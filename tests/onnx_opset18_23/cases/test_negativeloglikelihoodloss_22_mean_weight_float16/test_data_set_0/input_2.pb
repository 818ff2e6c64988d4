
BweightJ{=»<-:";