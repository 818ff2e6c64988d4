
BscaleJаюO╪