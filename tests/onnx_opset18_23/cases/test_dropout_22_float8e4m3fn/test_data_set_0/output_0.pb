BoutputJ
E­= Å¥CºÂD