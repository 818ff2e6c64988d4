
By_scaleJ›5