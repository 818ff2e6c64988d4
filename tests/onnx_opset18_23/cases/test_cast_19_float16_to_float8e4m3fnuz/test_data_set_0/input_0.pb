
BinputJÈÄEDÆ/Ç¸9ÈÓÆSG½F·ÀHäÀD