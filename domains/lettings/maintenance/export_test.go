package maintenance

import "github.com/obaudit/obaudit/engine"

// NewOperations binds a loaded spec to each of scenarioIDs, keyed by id:
// NewOperation for each, with the spec's identity verified once for all.
func NewOperations(spec *Spec, scenarioIDs []string) (map[string]*Operation, error) {
	if err := spec.Verify(); err != nil {
		return nil, err
	}
	return bindAll(spec, scenarioIDs)
}

// VerifyServeCache turns on the served-record cache check for a test.
func VerifyServeCache(on bool) {
	verifyCache = nil
	if on {
		verifyCache = cacheCheck{}
	}
}

// cacheCheck is verifyCache's check.
type cacheCheck struct{}

func (cacheCheck) root(r *runState, name string, rc *rootCache) {
	if want := engine.AppendCanonical(nil, r.s.root(&r.enc, name)); string(rc.json) != string(want) {
		panic("maintenance: direct encoding of root " + name + " differs from its tree:\n" + string(rc.json) + "\n" + string(want))
	}
}

func (cacheCheck) served(r *runState, t *Tool, c *toolCache) {
	// Whether or not the dirty bits said so, the served bytes must be what
	// fresh trees encode to, and the served trees must encode to the served
	// bytes (this also holds the touched-tools tables exact).
	fresh := make(map[string]any, len(t.Roots))
	for _, root := range t.Roots {
		fresh[root] = r.s.root(&r.enc, root)
	}
	if want := engine.AppendCanonical(nil, fresh); string(want) != string(c.json) {
		panic("maintenance: stale served-record cache for " + t.Name)
	}
	if got := engine.AppendCanonical(nil, c.records); string(got) != string(c.json) {
		panic("maintenance: served records tree differs from its bytes for " + t.Name)
	}
	if c.version != engine.VersionOf(c.json, RecordVersionLength) {
		panic("maintenance: served record version differs from its bytes for " + t.Name)
	}
}

func (cacheCheck) final(r *runState, b []byte) {
	if want := engine.AppendCanonical(nil, r.s.canonical(&r.enc)); string(want) != string(b) {
		panic("maintenance: direct final-state encoding differs from its tree")
	}
}

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
