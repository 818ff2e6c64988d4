BoutputJ

	