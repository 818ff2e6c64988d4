BdataJ
E­= Å¥CºÂD