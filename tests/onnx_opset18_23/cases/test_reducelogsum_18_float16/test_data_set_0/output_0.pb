
BreducedJ
M?r<‘;½<@