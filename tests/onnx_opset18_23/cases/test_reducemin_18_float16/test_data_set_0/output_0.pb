
BreducedJ
~µ~½nºÆ½p¾