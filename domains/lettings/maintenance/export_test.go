package maintenance

// NewOperations binds a loaded spec to each of scenarioIDs, keyed by id:
// NewOperation for each, with the spec's identity verified once for all.
func NewOperations(spec *Spec, scenarioIDs []string) (map[string]*Operation, error) {
	if err := spec.Verify(); err != nil {
		return nil, err
	}
	return bindAll(spec, scenarioIDs)
}

// VerifyServeCache turns on the served-record cache check for a test.
func VerifyServeCache(on bool) { verifyServeCache = on }

// StatePointer returns the pointer (relative to the final state) of the
// value a [ValidateFinalState] refusal is about, and whether err carries one.
func StatePointer(err error) (string, bool) {
	for e := err; e != nil; {
		if se, ok := e.(*stateError); ok {
			return se.pointer, true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return "", false
		}
		e = u.Unwrap()
	}
	return "", false
}
