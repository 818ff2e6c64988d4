
BoutputJ«¸e>Q½(ÁÏ¿w¿A>û@hB’B!ÁÎC÷>B-