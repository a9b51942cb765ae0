package agentrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/refusal"
	schema "github.com/obaudit/obaudit/schemas/agentrun"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Bounds on a supplied schema directory.
const (
	maxSuppliedSchemas     = 64
	maxSuppliedSchemaBytes = 1 << 20
)

// Origins of a compiled schema document.
const (
	OriginSeed     = "embedded seed"
	OriginStandIn  = "local stand-in"
	OriginSupplied = "supplied"
)

// Schema is the compiled Agent Run schema together with the documents its
// external references resolved to. It is safe for concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	sources  []Source
}

// Source says which document was used for one $id.
type Source struct {
	ID     string `json:"id"`
	Origin string `json:"origin"`
	// File is the supplied file's name (empty for embedded documents).
	File string `json:"file,omitempty"`
}

// Sources lists the documents the schema was compiled from, sorted by $id.
func (s *Schema) Sources() []Source { return slices.Clone(s.sources) }

// StandInsUsed reports how many external $ids were satisfied by obaudit's
// local stand-ins rather than by supplied documents.
func (s *Schema) StandInsUsed() int {
	n := 0
	for _, src := range s.sources {
		if src.Origin == OriginStandIn {
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
	origin := map[string]Source{schema.SeedID: {ID: schema.SeedID, Origin: OriginSeed}}
	for id, b := range schema.StandIns() {
		docs[id] = b
		origin[id] = Source{ID: id, Origin: OriginStandIn}
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
			o := OriginSupplied
			origin[id] = Source{ID: id, Origin: o, File: ent.Name()}
		}
	}
	c := offlineschema.NewCompiler()
	ids := make([]string, 0, len(docs))
	for id := range docs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
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

// validateValue checks a decoded record (canon.Parse types) against the
// schema. A violation refuses with [ErrSchemaInvalid], naming the JSON
// pointer of the first failing instance location.
func (s *Schema) validateValue(v any) error {
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
