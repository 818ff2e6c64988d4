
BscaleJ¦À%Ác5ÅA