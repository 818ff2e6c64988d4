
BscaleJÿ½&½S½G¿î´‘@ÑÃÎ5