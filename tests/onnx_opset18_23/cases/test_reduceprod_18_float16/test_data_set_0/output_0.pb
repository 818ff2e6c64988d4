
BreducedJ
¡=>q5_9»"