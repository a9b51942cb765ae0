// Package limits holds obaudit's input bounds as named constants, in one
// place. Exceeding one is a refusal of class "limits/exceeded" whose detail
// names the limit.
package limits

import "github.com/obaudit/obaudit/refusal"

// ErrExceeded is returned when an input is larger than a named bound.
var ErrExceeded = refusal.Sentinel("limits/exceeded")

// Bounds.
const (
	// MaxInputBytes bounds any one file or stdin a command reads whole.
	MaxInputBytes = 256 << 20
	// MaxArtefactBytes bounds an episode artefact.
	MaxArtefactBytes = 64 << 20
	// MaxLedgerLineBytes bounds one execution-ledger row.
	MaxLedgerLineBytes = 1 << 20
	// MaxYAMLBytes bounds a YAML document (an operation spec, an oracle
	// manifest), refused before it is parsed: a YAML node tree costs tens of
	// bytes of memory per input byte (the specs and oracles obaudit carries
	// are about 20 KB; BENCHMARKS.md, "Peak memory").
	MaxYAMLBytes = 256 << 10
)

// Exceeded returns the refusal for an input of n bytes against the named
// limit.
func Exceeded(name string, limit, n int64) error {
	return refusal.New(ErrExceeded, "%s: %d bytes is more than %d", name, n, limit)
}
