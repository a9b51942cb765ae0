package profile

import (
	"bytes"
	"errors"
)

// What only the tests use.

// SchemaJSON returns the profile schema.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }

// Refused returns the RFC 6901 pointer of the value an ErrInvalid refusal
// is about and the kind of rule it breaks ("field": the published
// schema's; "lane": its lane's); ok is false for any other error.
func Refused(err error) (pointer, rule string, ok bool) {
	var a *at
	if errors.As(err, &a) {
		return a.pointer, a.rule, true
	}
	return "", "", false
}
