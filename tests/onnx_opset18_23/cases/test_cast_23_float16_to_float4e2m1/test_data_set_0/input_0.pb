
BinputJÇG¿?NEUFÉGÃÃ±ÅøÃ.FCÂÈ@Á8ÈH