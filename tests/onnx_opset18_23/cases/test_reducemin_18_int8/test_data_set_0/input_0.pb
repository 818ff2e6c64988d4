BdataJ
Üë|)	Ú¨€N¶FƒP