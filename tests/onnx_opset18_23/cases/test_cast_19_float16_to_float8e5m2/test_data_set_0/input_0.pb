
BinputJ}@%FôÅ	ÀìÅšºÈ@E¥=‚E(Å¥HÑ6Hh=