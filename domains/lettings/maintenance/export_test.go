package maintenance

// VerifyServeCache turns on the served-record cache check for a test.
func VerifyServeCache(on bool) { verifyServeCache = on }
