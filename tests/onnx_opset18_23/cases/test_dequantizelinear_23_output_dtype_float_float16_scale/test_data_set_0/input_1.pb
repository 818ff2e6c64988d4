
Bx_scaleJ°8