// Package agentrun embeds the Agent Run JSON Schema (draft 2020-12) that
// exported episode records must satisfy, and local stand-ins for the external
// schemas it references.
//
// # Format
//
// v1.json is the seed schema, shipped verbatim (byte for byte) with $id
// [SeedID]. It references three definitions in two documents that are not
// available offline: the okf-envelope slug and the technocracy-case-study
// source, related case and record metadata. standin/ holds clearly labelled
// LOCAL STAND-INS for those two $ids ([StandIns]); each says so in its title
// and $comment. A caller may supply the real documents (obaudit's
// --schema-dir), which replace the stand-ins of the same $id.
//
// The package is data only: it imports nothing but the standard library and
// compiles nothing. export/agentrun/agentrunschema compiles these with
// remote loading disabled.
//
// # Compatibility
//
// v1.json is never edited: a change to the seed arrives as a new file with a
// new $id. The stand-ins may be tightened as the real vocabulary becomes known;
// records are always validated against whatever is supplied in preference.
package agentrun

import "embed"

// SeedID is the $id of the Agent Run schema.
const SeedID = "https://lwilko.com/schemas/agent-run/v1.json"

// External $ids the seed references, for which stand-ins are shipped.
const (
	OKFEnvelopeID   = "https://lwilko.com/schemas/okf-envelope/v1.json"
	CaseStudyID     = "https://lwilko.com/schemas/technocracy-case-study/v1.json"
	seedFile        = "v1.json"
	okfStandInFile  = "standin/okf-envelope-v1.json"
	caseStandInFile = "standin/technocracy-case-study-v1.json"
)

// Origins of a compiled schema document.
const (
	OriginSeed     = "embedded seed"
	OriginStandIn  = "local stand-in"
	OriginSupplied = "supplied"
)

// Source says which document was used for one $id.
type Source struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	// File is the supplied file's name (empty for embedded documents).
	File string `json:"file,omitempty"`
}

//go:embed v1.json standin/*.json
var files embed.FS

// Seed returns the seed schema's bytes, exactly as shipped.
func Seed() []byte { return mustRead(seedFile) }

// StandIns returns the local stand-in documents keyed by the $id they stand
// in for.
func StandIns() map[string][]byte {
	return map[string][]byte{
		OKFEnvelopeID: mustRead(okfStandInFile),
		CaseStudyID:   mustRead(caseStandInFile),
	}
}

func mustRead(name string) []byte {
	b, err := files.ReadFile(name)
	if err != nil {
		panic("schemas/agentrun: embedded file missing: " + name)
	}
	return b
}
