// Package limits holds obaudit's input bounds as named constants, in one
// place. Exceeding one is a refusal of class "limits/exceeded" whose detail
// names the limit.
package limits

import (
	"bytes"

	"github.com/obaudit/obaudit/refusal"
)

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

// MinBytesPerValue bounds how densely a JSON document read into a tree may
// pack its values: at most one value (a scalar, an array or an object) per
// MinBytesPerValue bytes, plus DensityAllowance values. A parsed value costs
// 16 to 100 bytes of memory, so a document of tiny values ("[0,0,0,…]")
// would cost twenty times its size; the artefacts upstream and obaudit write
// hold one value per about 25 bytes.
const (
	MinBytesPerValue = 12
	DensityAllowance = 4096
)

// CheckDensity refuses (limits/exceeded, before any parse) a JSON document
// that holds more values than MinBytesPerValue allows for its size. Values
// are counted by one pass over the bytes: every '[' and '{', every ',' and
// the first value, outside strings, once a cheaper count of those bytes
// everywhere has not already shown the document within the allowance.
func CheckDensity(name string, b []byte) error {
	allowed := int64(len(b))/MinBytesPerValue + DensityAllowance
	// Every '[', '{' and ',', in strings or not, bounds the count from
	// above: within the allowance, the exact count is too (the upstream
	// artefacts hold under half the allowance, strings included).
	if 1+int64(bytes.Count(b, []byte{'['})+bytes.Count(b, []byte{'{'})+bytes.Count(b, []byte{','})) <= allowed {
		return nil
	}
	var values int64 = 1
	in, esc := false, false
	for _, c := range b {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ',' || c == '[' || c == '{':
			values++
		}
	}
	if values > allowed {
		return refusal.New(ErrExceeded, "%s: %d values in %d bytes is more than one per %d bytes (MinBytesPerValue)", name, values, len(b), MinBytesPerValue)
	}
	return nil
}

// Exceeded returns the refusal for an input of n bytes against the named
// limit.
func Exceeded(name string, limit, n int64) error {
	return refusal.New(ErrExceeded, "%s: %d bytes is more than %d", name, n, limit)
}
