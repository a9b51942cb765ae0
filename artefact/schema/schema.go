// Package schema holds contract-8 episode artefacts to the published JSON
// Schema (schemas/artefact/v8.json), compiled on first use from the
// embedded bytes, exactly as published, with
// github.com/santhosh-tekuri/jsonschema/v5 and remote loading disabled.
//
// The validator is package artefact's named checks; the schema is held to
// them as an oracle (artefact's TestSchemaOracle gives every committed
// vector to both and requires one verdict). `obaudit validate --schema`
// runs [Check] beside the named checks and reports both verdicts. It lives
// in its own package so that nothing else links the schema library, whose
// package init compiles its draft metaschemas: only obaudit-sigstore (the
// obaudit_sigstore build) and the tests link it, and the default obaudit
// hands validate --schema to obaudit-sigstore.
//
// # Refusals
//
// A violation is artefact.ErrSchema, with the JSON pointer of the first
// leaf the schema reports (artefact.Pointer).
package schema

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiledSchema is the published contract-8 schema with the definitions
// its list items refer to: the document's trajectory is {"type": "array",
// "items": {"$ref": "#/$defs/row"}} and its decisions {"type": "array",
// "items": {"$ref": "#/$defs/decision"}}, and no other keyword constrains
// either list, so a document holds exactly when the document with both
// lists emptied holds and each item holds of its definition.
//
// $defs/row is a discriminated union: record_type in an enum, and an allOf
// of one {"if": record_type is T, "then": $defs/row_T} per enum value, T's
// body restating the head (index, at, record_type). A row whose
// record_type is T therefore holds of $defs/row exactly when it holds of
// $defs/row_T (every other branch's condition is false): Check holds such
// a row to row_T (rows), once, rather than through 34 conditions; any other
// row is held to $defs/row itself.
type compiledSchema struct {
	root, row, decision *jsonschema.Schema
	rows                map[string]*jsonschema.Schema
}

var compiled = sync.OnceValues(func() (*compiledSchema, error) {
	c := offlineschema.NewCompiler()
	if err := c.AddResource(schemas.ArtefactV8ID, bytes.NewReader(schemas.ArtefactV8())); err != nil {
		return nil, err
	}
	out := compiledSchema{rows: map[string]*jsonschema.Schema{}}
	var err error
	for _, s := range []struct {
		to  **jsonschema.Schema
		ref string
	}{{&out.root, ""}, {&out.row, "#/$defs/row"}, {&out.decision, "#/$defs/decision"}} {
		if *s.to, err = c.Compile(schemas.ArtefactV8ID + s.ref); err != nil {
			return nil, err
		}
	}
	for _, rt := range artefact.RecordTypes(artefact.Version) {
		if out.rows[rt], err = c.Compile(schemas.ArtefactV8ID + "#/$defs/row_" + rt); err != nil {
			return nil, err
		}
	}
	return &out, nil
})

// Check validates a tree (as canon.Parse returns it) against the
// published contract-8 JSON Schema alone, without the named checks. A
// violation is an artefact.ErrSchema refusal whose artefact.Pointer is the
// instance location of the first leaf the schema reports.
//
// The document is validated as parts, in document order, stopping at the
// first that fails: the document with an empty trajectory and decision
// tape, then every decision against $defs/decision, then every row against
// $defs/row_<its record type> (see compiledSchema: the verdict is the
// whole document's). An
// engine that collects every violation of a whole document spends memory
// without bound on a large one invalid everywhere; one part's violations
// are bounded by that part.
func Check(tree any) error {
	c, err := compiled()
	if err != nil {
		return fmt.Errorf("artefact/schema: compile embedded schema: %w", err)
	}
	root, ok := tree.(map[string]any)
	rows, rowsOK := root["trajectory"].([]any)
	decisions, decisionsOK := root["decisions"].([]any)
	if !ok || !rowsOK || !decisionsOK {
		return schemaError(c.root.Validate(tree), "")
	}
	shallow := make(map[string]any, len(root))
	for k, v := range root {
		shallow[k] = v
	}
	shallow["trajectory"], shallow["decisions"] = []any{}, []any{}
	if err := schemaError(c.root.Validate(shallow), ""); err != nil {
		return err
	}
	for _, l := range []struct {
		items  []any
		s      *jsonschema.Schema
		prefix string
	}{{decisions, c.decision, "/decisions/"}, {rows, c.row, "/trajectory/"}} {
		for i, item := range l.items {
			s := l.s
			if body, ok := item.(map[string]any); ok && l.s == c.row {
				if rt, ok := body["record_type"].(string); ok && c.rows[rt] != nil {
					s = c.rows[rt]
				}
			}
			if err := schemaError(s.Validate(item), l.prefix+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func schemaError(err error, prefix string) error {
	if err == nil {
		return nil
	}
	leaf, ok := offlineschema.Leaf(err)
	if !ok {
		return err
	}
	return artefact.RefusalAt(artefact.ErrSchema, prefix+leaf.InstanceLocation, "violates %s: %s", leaf.KeywordLocation, leaf.Message)
}
