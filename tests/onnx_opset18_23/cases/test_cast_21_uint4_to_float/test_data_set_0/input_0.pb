BinputJb‘ò¼rÆ
