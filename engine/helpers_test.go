package engine

import "github.com/obaudit/obaudit/refusal"

// isClass: err's surfaced class is exactly want's.
func isClass(err error, want *refusal.Refusal) bool { return refusal.Of(err) == want.Class }
