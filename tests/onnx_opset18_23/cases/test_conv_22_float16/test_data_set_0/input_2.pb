
BBJÚ¼†°XCüC