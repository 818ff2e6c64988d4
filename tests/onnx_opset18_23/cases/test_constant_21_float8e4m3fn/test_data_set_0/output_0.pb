BvaluesJ
¶ÇÀ¾C›»;D