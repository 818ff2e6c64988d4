BreducedJ-
ûÅ÷,@‚©DÀ¤n@