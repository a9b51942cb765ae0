package schemas

import _ "embed"

// ArtefactV8ID is the $id of the contract-8 episode artefact schema. It is
// an identifier, never fetched: the schema is compiled from the embedded
// bytes with remote loading disabled.
const ArtefactV8ID = "https://obaudit.example/schemas/artefact/v8.json"

//go:embed artefact/v8.json
var artefactV8 []byte

// ArtefactV8 returns a copy of the JSON Schema (draft 2020-12) for the
// upstream OperateBench episode artefact, contract 8 (artifact_version 8).
//
// The schema states shape: the exact 28 top-level keys, every nested field
// set, the trajectory row bodies by record type, the decision bodies by kind
// and the closed vocabularies. It is necessary, not sufficient: coherence
// across fields (provenance, the provider execution binding, the evaluation's
// derived fields, content digests and the domain's final-state validator) is
// checked by package artefact.
func ArtefactV8() []byte { return append([]byte(nil), artefactV8...) }
