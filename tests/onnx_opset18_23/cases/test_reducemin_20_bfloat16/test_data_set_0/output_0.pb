BreducedJ
’¿˜¿µ¿c¿Ä¿