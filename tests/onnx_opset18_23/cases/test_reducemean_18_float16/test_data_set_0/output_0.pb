
BreducedJ
P;¸3¸´#7