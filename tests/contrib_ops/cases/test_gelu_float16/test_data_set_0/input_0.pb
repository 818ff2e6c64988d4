	
BXJHÂD2AäÅäCÏ:‘AèDp¿0ºLÄöÄ÷¾¶Ä¼(
@kD‹C|Á”EkA=ŠÀÂ>”DhÄÜ»)EVÄTEÊ<ÌÃŽ@f4ÛÃB=