BfinalJ
