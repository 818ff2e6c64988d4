
BlossJÆG