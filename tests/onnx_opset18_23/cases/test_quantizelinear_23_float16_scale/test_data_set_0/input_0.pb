BxJHgNF3„‡Euˆ|FR	 EºÔáE=S7FR÷E%áE4aûD¤Î†E2Q/Fr™~EÖáNF#:UFïf¤E6
ÉBwÄüEi‹/F