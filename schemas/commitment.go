package schemas

import _ "embed"

// Run commitment predicate, version 1 (see package commitment).
const (
	// CommitmentPredicateType is the in-toto predicateType of an obaudit run
	// commitment. The trailing /v1 is the version: an incompatible change to
	// the predicate gets a new type.
	CommitmentPredicateType = "https://obaudit.dev/run-commitment/v1"
	// CommitmentV1ID is the $id of the predicate's JSON Schema. It is an
	// identifier, never fetched.
	CommitmentV1ID = "https://obaudit.dev/schemas/commitment/v1.json"
)

//go:embed commitment/v1.json
var commitmentV1 []byte

// CommitmentV1 returns a copy of the JSON Schema (draft 2020-12) of the run
// commitment predicate, version 1.
func CommitmentV1() []byte { return append([]byte(nil), commitmentV1...) }
