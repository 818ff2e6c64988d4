BvaluesJ
GÃG<AHÇFÆG