package profile

import (
	"bytes"
	_ "embed"
	"errors"

	"github.com/obaudit/obaudit/internal/jsonfield"
)

// What only the tests use.

//go:embed profile.schema.json
var schemaJSON []byte

// SchemaJSON returns the profile schema.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// Refused returns the RFC 6901 pointer of the value an ErrInvalid refusal
// is about and the kind of rule it breaks ("field": the published
// schema's; "lane": its lane's); ok is false for any other error.
func Refused(err error) (pointer, rule string, ok bool) {
	pointer, ok = jsonfield.PointerOf(err)
	switch {
	case !ok:
		return "", "", false
	case errors.Is(err, errLaneRule):
		return pointer, "lane", true
	}
	return pointer, "field", true
}
