
BlossJI?