package profile

import "bytes"

// What only the tests use.

// SchemaJSON returns the profile schema.
func SchemaJSON() []byte { return bytes.Clone(schemaJSON) }
