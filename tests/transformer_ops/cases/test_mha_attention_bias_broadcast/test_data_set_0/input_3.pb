Battention_biasJPùyG?O´¦¿rÚ¿.t?ª#×¿}bö¿Îa$?A*ó>)÷ø¿tS?JÉ?}$v?Ìïã¿nWí>«EÔ¾É4¢>0‘?¿–
N¾£¿ž¾