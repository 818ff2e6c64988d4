
BscaleJ½…Á<Ã