// Package agentrun maps one OperateBench episode artefact to an Agent Run
// record: the case-record format of the seed schema (schemas/agentrun), for
// readers outside the benchmark.
//
// [Export] takes an artefact its caller has read and validated
// ([artefact.Read]; an artefact that does not validate is not exported),
// maps it field by field as docs/agent-run-mapping.md documents, and holds
// the record to the Agent Run schema (a [Checker]: the compiled schema of
// export/agentrun/agentrunschema) before returning it. [ValidateRecord]
// checks a record file: strict JSON, the schema, and the slug rule the
// schema cannot express (the record's id equals its file's slug).
//
// The package does not link the schema library itself: its [Checker] does
// (agentrunschema), so that a binary that exports nothing links none of it.
//
// # Format
//
// A record file is the record's RFC 8785 canonical JSON followed by one
// newline, named "<id>.json". The id is derived from the artefact alone
// ([Slug]), so the same artefact always yields the same bytes.
//
// # Refusals
//
//   - [ErrIDMismatch]: a record's id is not its file's slug.
//   - the [Checker]'s: agentrunschema's agentrun/schema-invalid for a record
//     that does not satisfy the schema.
//
// # Compatibility
//
// The mapping is versioned with the seed schema's $id. A change to what a
// field means is a documented change to docs/agent-run-mapping.md; the code →
// kind table there and [ClassOf] are held equal by a test.
package agentrun

import (
	"path"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// ErrIDMismatch is returned when a record's id is not the slug of the file
// it is read from or written to.
var ErrIDMismatch = refusal.Sentinel("agentrun/id-mismatch")

// Checker holds a decoded record (canon.Parse types) to the Agent Run
// schema: agentrunschema's compiled [agentrunschema.Schema]. A record it
// refuses is neither exported nor accepted.
type Checker interface {
	Check(v any) error
}

// Record is an exported Agent Run record.
type Record struct {
	// ID is the record's slug; its file is named ID + ".json".
	ID string
	// Value is the record as decoded JSON (canon.Parse types).
	Value map[string]any
	// Bytes are the record file's bytes: RFC 8785 JSON and a newline.
	Bytes []byte
}

// FileName returns the file name the record must be stored under.
func (r *Record) FileName() string { return r.ID + ".json" }

// Export maps doc, a validated episode artefact, to an Agent Run record
// (op is what its operation's pack states, nil when none is carried) and
// holds the record to s.
func Export(doc *artefact.Document, op *Operation, s Checker) (*Record, error) {
	v := mapEpisode(doc, op)
	if err := s.Check(v); err != nil {
		return nil, err
	}
	b, err := canon.JCS(v)
	if err != nil {
		return nil, err
	}
	return &Record{ID: v["id"].(string), Value: v, Bytes: append(b, '\n')}, nil
}

// Slug derives a record id from an artefact: "operatebench-", the operation
// id, the scenario id and the agent id, each lower-cased with every run of
// other characters turned into one hyphen, and the first 12 hex digits of the
// artefact file's SHA-256. It matches the schema's slug pattern.
func Slug(operationID, scenarioID, agentID, fileSHA256 string) string {
	short := fileSHA256[:min(len(fileSHA256), 12)]
	return slugify("operatebench " + operationID + " " + scenarioID + " " + agentID + " " + short)
}

func slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// FileSlug returns the slug a record file name stands for: its base name
// without a trailing ".json".
func FileSlug(name string) string {
	return strings.TrimSuffix(path.Base(strings.ReplaceAll(name, "\\", "/")), ".json")
}

// CheckFileName refuses with [ErrIDMismatch] unless name is the file name a
// record with this id must have.
func CheckFileName(id, name string) error {
	if got := FileSlug(name); got != id || path.Ext(path.Base(name)) != ".json" {
		return refusal.New(ErrIDMismatch, "record id %q is stored as %q; its file must be named %s.json", id, path.Base(name), id)
	}
	return nil
}

// Checked is what ValidateRecord established about a record file.
type Checked struct {
	ID string `json:"id"`
}

// ValidateRecord checks a record read from the file called name: strict JSON
// (canon refusals for duplicate keys and the like), the Agent Run schema
// (s), then the slug rule ([ErrIDMismatch]).
func ValidateRecord(raw []byte, name string, s Checker) (*Checked, error) {
	v, err := canon.Parse(raw)
	if err != nil {
		return nil, err
	}
	if err := s.Check(v); err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	id, ok := m["id"].(string) // the schema requires both
	if !ok {
		return nil, refusal.New(ErrIDMismatch, "the record has no string id")
	}
	if err := CheckFileName(id, name); err != nil {
		return nil, err
	}
	return &Checked{ID: id}, nil
}
