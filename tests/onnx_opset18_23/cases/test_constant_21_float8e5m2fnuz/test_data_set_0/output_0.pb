BvaluesJ
ºHºÄFÄÆ´ÆÁ