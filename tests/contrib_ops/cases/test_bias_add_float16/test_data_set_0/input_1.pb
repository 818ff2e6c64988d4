
BbiasJ €<yÂØºYA*¿ÀCH@õ><»ãÂÏ?W@_Cž¹Ô·¡Á