BvaluesJ
-Bµ/½C¿½?B