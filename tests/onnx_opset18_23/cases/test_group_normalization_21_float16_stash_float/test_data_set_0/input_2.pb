
BbiasJŞC¾?C