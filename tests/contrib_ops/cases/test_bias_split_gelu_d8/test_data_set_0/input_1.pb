BbiasJ A,R?£.É¾c$0¿‚T
¿ñ>o>K#À¾3»4?K5?