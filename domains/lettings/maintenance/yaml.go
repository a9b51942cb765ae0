package maintenance

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/internal/strictyaml"
	"github.com/obaudit/obaudit/refusal"
)

// maxYAMLDepth bounds nesting in an operation spec.
const maxYAMLDepth = 64

// Upstream reads specs with PyYAML (YAML 1.1 scalars). Plain scalars are
// resolved here the way both YAML 1.1 and 1.2 agree on; a plain scalar the
// two read differently is refused rather than guessed. Of YAML 1.1's
// integers and floats (strictyaml.Type11), these are the ones YAML 1.2
// reads as the same number. They are compiled on first use.
var (
	reInt = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[-+]?(?:0|[1-9][0-9]*)$`)
	})
	reFloat = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^[-+]?[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?$`)
	})
)

// specYAML is the strict reader of operation specs.
var specYAML = strictyaml.Reader{
	Malformed:       ErrFormat,
	DuplicateKey:    ErrDuplicateKey,
	MaxDepth:        maxYAMLDepth,
	RefuseMergeKeys: true,
	Plain:           scalar,
}

// parseYAML reads one strict YAML document into a canon tree.
func parseYAML(b []byte, source string) (map[string]any, error) {
	return specYAML.Read(b, source)
}

// scalar reads a plain scalar at pos.
func scalar(s, pos string) (any, error) {
	switch strictyaml.Type11(s) {
	case "null":
		return nil, nil
	case "boolean":
		switch strings.ToLower(s) {
		case "true", "yes", "on":
			return true, nil
		}
		return false, nil
	case "integer":
		if !reInt().MatchString(s) {
			return nil, refusal.New(ErrAmbiguousScalar, "%s: %q is an integer in YAML 1.1 and not the same one (or not one) in YAML 1.2; quote it or write it in decimal", pos, s)
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v > 1<<53-1 || v < -(1<<53-1) {
			return nil, refusal.New(ErrSchema, "%s: integer %s is out of range", pos, s)
		}
		return v, nil
	case "timestamp":
		return nil, refusal.New(ErrNonStringInstant, "%s: %q is an unquoted YAML timestamp; an instant is a quoted \"YYYY-MM-DDTHH:MM:SSZ\" string", pos, s)
	case "float":
		if !reFloat().MatchString(s) {
			return nil, refusal.New(ErrAmbiguousScalar, "%s: %q is a float in YAML 1.1 that YAML 1.2 reads differently; quote it or write it plainly", pos, s)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, refusal.New(ErrSchema, "%s: %q is not a finite number", pos, s)
		}
		return f, nil
	}
	return s, nil
}
