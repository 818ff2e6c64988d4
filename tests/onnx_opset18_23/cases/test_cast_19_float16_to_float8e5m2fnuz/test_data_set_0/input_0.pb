
BinputJóC~¼‹HxÈÆÿGÁBÖ0[Æ…A­H«Áµ°HüA