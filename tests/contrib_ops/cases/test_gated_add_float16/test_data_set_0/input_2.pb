
BgateJ«¾ºY? <Z¶d¥