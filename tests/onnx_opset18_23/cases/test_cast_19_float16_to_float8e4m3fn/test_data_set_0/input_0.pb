
BinputJ¢DsÄSÇ—ÈÇ5HúDêÈIÈÕD?F{ÈƒÆ*È