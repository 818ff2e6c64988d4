BoutputJ
B¼ÂÃ8½½9¾Â