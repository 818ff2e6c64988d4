
BdataJXÂ}½§¿«.¤CY4©ÁCY¼HëÁ±1Ž¾W;¿