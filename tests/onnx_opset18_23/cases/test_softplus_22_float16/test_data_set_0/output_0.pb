
BYJ*5s4L0@(Y3.:3x?g<|=m4”ArBiBÑCj>Ñ.•5¤B8@«&