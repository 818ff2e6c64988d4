
BreducedJ
4í7é6
<’>