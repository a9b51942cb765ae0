// Package agentrunschema compiles the Agent Run JSON Schema (the seed's,
// schemas/agentrun) offline with github.com/santhosh-tekuri/jsonschema/v5,
// its external $ids resolved to supplied documents or to the embedded local
// stand-ins, and holds records to it ([Schema.Check]).
//
// It is its own package so that nothing else links the schema library,
// whose package initialisation compiles its draft metaschemas at every
// process start: the default obaudit build links none of it and hands the
// commands that need it (export agent-run, validate --agent-run) to
// obaudit-sigstore. export/agentrun maps and checks records through its
// [agentrun.Checker] interface, which [Schema] satisfies.
//
// # Refusals
//
//   - [ErrSchemaInvalid]: a record does not satisfy the Agent Run schema.
//   - [ErrSchemaUnloadable]: the schema could not be compiled offline from
//     the embedded and supplied documents.
package agentrunschema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/refusal"
	schema "github.com/obaudit/obaudit/schemas/agentrun"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Refusal classes.
var (
	// ErrSchemaInvalid is returned when a record (exported or read) does not
	// satisfy the Agent Run schema; the detail names the JSON pointer.
	ErrSchemaInvalid = refusal.Sentinel("agentrun/schema-invalid")
	// ErrSchemaUnloadable is returned by CompileSchema when a supplied schema
	// file is unreadable, has no absolute $id or shares one with another, or
	// when a reference names a document that is neither supplied nor embedded
	// (nothing is fetched).
	ErrSchemaUnloadable = refusal.Sentinel("agentrun/schema-unloadable")
)

// Bounds on a supplied schema directory.
const (
	maxSuppliedSchemas     = 64
	maxSuppliedSchemaBytes = 1 << 20
)

// Schema is the compiled Agent Run schema together with the documents its
// external references resolved to. It is safe for concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	sources  []schema.Source
}

// Sources lists the documents the schema was compiled from, sorted by $id.
func (s *Schema) Sources() []schema.Source { return slices.Clone(s.sources) }

// StandInsUsed reports how many external $ids were satisfied by obaudit's
// local stand-ins rather than by supplied documents.
func (s *Schema) StandInsUsed() int {
	n := 0
	for _, src := range s.sources {
		if src.Origin == schema.OriginStandIn {
			n++
		}
	}
	return n
}

// CompileSchema compiles the embedded seed schema offline. Its external
// references resolve to the documents in supplied (every *.json file at the
// top level of it, keyed by its own $id), or else to the embedded stand-ins.
// supplied may be nil. No URL is ever fetched: a reference to a document
// that is neither supplied nor embedded refuses with [ErrSchemaUnloadable],
// as does a supplied file that is not a schema document with an absolute $id.
func CompileSchema(supplied fs.FS) (*Schema, error) {
	docs := map[string][]byte{schema.SeedID: schema.Seed()}
	origin := map[string]schema.Source{schema.SeedID: {ID: schema.SeedID, Origin: schema.OriginSeed}}
	for id, b := range schema.StandIns() {
		docs[id] = b
		origin[id] = schema.Source{ID: id, Origin: schema.OriginStandIn}
	}
	if supplied != nil {
		entries, err := fs.ReadDir(supplied, ".")
		if err != nil {
			return nil, refusal.Wrap(ErrSchemaUnloadable, err, "schema directory")
		}
		seen := map[string]string{}
		n := 0
		for _, ent := range entries {
			if ent.IsDir() || path.Ext(ent.Name()) != ".json" {
				continue
			}
			if n++; n > maxSuppliedSchemas {
				return nil, refusal.New(ErrSchemaUnloadable, "more than %d schema files", maxSuppliedSchemas)
			}
			b, err := readBounded(supplied, ent.Name())
			if err != nil {
				return nil, err
			}
			id, err := schemaID(b)
			if err != nil {
				return nil, refusal.Wrap(ErrSchemaUnloadable, err, "%s", ent.Name())
			}
			if prev, dup := seen[id]; dup {
				return nil, refusal.New(ErrSchemaUnloadable, "%s and %s both declare $id %s", prev, ent.Name(), id)
			}
			seen[id] = ent.Name()
			docs[id] = b
			origin[id] = schema.Source{ID: id, Origin: schema.OriginSupplied, File: ent.Name()}
		}
	}
	c := offlineschema.NewCompiler()
	ids := slices.Sorted(maps.Keys(docs))
	for _, id := range ids {
		if err := c.AddResource(id, bytes.NewReader(docs[id])); err != nil {
			return nil, refusal.Wrap(ErrSchemaUnloadable, err, "%s", id)
		}
	}
	compiled, err := c.Compile(schema.SeedID)
	if err != nil {
		return nil, refusal.Wrap(ErrSchemaUnloadable, err, "compile %s", schema.SeedID)
	}
	s := &Schema{compiled: compiled}
	for _, id := range ids {
		s.sources = append(s.sources, origin[id])
	}
	return s, nil
}

func readBounded(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSuppliedSchemaBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSuppliedSchemaBytes {
		return nil, refusal.New(ErrSchemaUnloadable, "%s is larger than %d bytes", name, maxSuppliedSchemaBytes)
	}
	return b, nil
}

func schemaID(b []byte) (string, error) {
	v, err := canon.Parse(b)
	if err != nil {
		return "", err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", errors.New("not a JSON object")
	}
	id, _ := m["$id"].(string)
	if !strings.HasPrefix(id, "https://") && !strings.HasPrefix(id, "http://") {
		return "", fmt.Errorf("no absolute $id (got %q)", id)
	}
	if strings.Contains(id, "#") {
		return "", fmt.Errorf("$id %q carries a fragment", id)
	}
	return id, nil
}

// Check holds a decoded record (canon.Parse types) to the schema. A
// violation refuses with [ErrSchemaInvalid], naming the JSON pointer of the
// first failing instance location.
func (s *Schema) Check(v any) error {
	err := s.compiled.Validate(v)
	if err == nil {
		return nil
	}
	if leaf, ok := offlineschema.Leaf(err); ok {
		loc := leaf.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		return refusal.New(ErrSchemaInvalid, "%s: %s", loc, leaf.Message)
	}
	return refusal.Wrap(ErrSchemaInvalid, err, "")
}

// Default is the embedded seed with its local stand-ins, compiled once per
// process.
var Default = sync.OnceValues(func() (*Schema, error) {
	s, err := CompileSchema(nil)
	if err != nil {
		return nil, fmt.Errorf("agentrunschema: embedded schema does not compile: %w", err)
	}
	return s, nil
})
