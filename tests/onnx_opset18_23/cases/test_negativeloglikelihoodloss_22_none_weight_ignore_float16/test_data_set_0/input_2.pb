
BweightJ�3�5{8h<