BvaluesJ
HлKKкк.маю