package oracle

import "github.com/obaudit/obaudit/internal/strictyaml"

// maxDepth bounds nesting in a manifest (the format needs four levels).
const maxDepth = 16

// notText stands for a plain scalar YAML 1.1 reads as something other than
// a string (null, a boolean such as "yes", a number, a timestamp). Every
// leaf of a valid manifest is text, so such a value can only ever be
// refused as a malformed field; it is kept distinct so the refusal says so.
type notText struct{ raw, kind string }

// manifestYAML is the strict reader of manifests. A mapping key must be
// text; plain scalars that YAML 1.1 does not read as strings become notText
// values.
var manifestYAML = strictyaml.Reader{
	Malformed: ErrUnreadable,
	MaxDepth:  maxDepth,
	Plain: func(s, _ string) (any, error) {
		if kind := strictyaml.Type11(s); kind != "" {
			return notText{s, kind}, nil
		}
		return s, nil
	},
}

// parseYAML reads one YAML document into a canon tree whose every mapping
// key is a string.
func parseYAML(b []byte, source string) (map[string]any, error) {
	return manifestYAML.Read(b, source)
}
