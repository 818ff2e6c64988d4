
BinputJuΩ∫@ÛCÁ:B'Ì?