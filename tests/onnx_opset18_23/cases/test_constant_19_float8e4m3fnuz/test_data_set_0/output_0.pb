BvaluesJ
2Cкнгк═╦Iх