
BreducedJ
yD,7™F=G"?