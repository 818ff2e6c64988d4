BBJ
éÈc;”RDbæ