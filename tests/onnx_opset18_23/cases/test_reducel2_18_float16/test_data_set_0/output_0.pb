
BreducedJ
í?"?”@à=õ=