package commitment

import "github.com/obaudit/obaudit/internal/jsonfield"

// refusedAt returns the RFC 6901 pointer (within the predicate) of the
// value a refusal of the named checks is about; ok is false for any other
// error.
func refusedAt(err error) (pointer string, ok bool) { return jsonfield.PointerOf(err) }
