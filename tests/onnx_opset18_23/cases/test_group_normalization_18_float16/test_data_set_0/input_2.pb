
BbiasJМаOа