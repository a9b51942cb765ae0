//go:build !unix

package execledger

import "github.com/obaudit/obaudit/internal/safefs"

// checkDirectory defers to internal/safefs, which fails closed on hosts
// without no-follow primitives.
func checkDirectory(*safefs.Dir) error { return nil }
