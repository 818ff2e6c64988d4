
BXJ*SA@=Í>?áBoC@B¬CC"BÔ>ÓBÄ@<@âAxA§<$A¿AÀ@