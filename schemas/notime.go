package schemas

import _ "embed"

// The stateful_time_removed run record, version 1 (see arm/notimerecord).
// It is obaudit's contract, not an upstream artefact contract.
const (
	// NoTimeRunContract is the record's contract field.
	NoTimeRunContract = "obaudit.arm.stateful_time_removed.run.v1"
	// NoTimeRunV1ID is the $id of its JSON Schema (an identifier, never
	// fetched).
	NoTimeRunV1ID = "https://obaudit.dev/schemas/notime/v1.json"
)

//go:embed notime/v1.json
var noTimeRunV1 []byte

// NoTimeRunV1 returns a copy of the JSON Schema (draft 2020-12) of the
// stateful_time_removed run record, version 1.
func NoTimeRunV1() []byte { return append([]byte(nil), noTimeRunV1...) }
