// Package schema holds contract-8 episode artefacts to the published JSON
// Schema (schemas/artefact/v8.json), compiled once from the embedded bytes
// with github.com/santhosh-tekuri/jsonschema/v5 and remote loading disabled.
//
// It is a second, independent engine beside package artefact's named
// checks, which already enforce every constraint the schema states (the
// artefact test suite checks both directions). It lives in its own package
// so that the reading and replay paths do not link the schema library (and
// the address parsers it brings); `obaudit validate` always passes [Check]
// to artefact.Options.JSONSchema, which runs it beside the named checks.
//
// What is compiled is an equivalent form of the published document (see
// flatten), and a document is validated as parts shared among GOMAXPROCS
// goroutines (see Check).
//
// # Refusals
//
// A violation is artefact.ErrSchema, with the JSON pointer of the first
// leaf the schema reports (artefact.Pointer).
package schema

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// compiledSchema is the contract-8 schema compiled once: the document
// schema, each trajectory row type's own subschema ($defs/row_<type>) so
// that rows are dispatched by record_type in Go rather than through the
// schema's discriminator, and the decision subschema ($defs/decision). For a
// row whose record_type is one of the enum's values, $defs/row and
// $defs/row_<type> accept exactly the same rows (the head checks are
// repeated inside each row_<type>); any other row is held to $defs/row
// itself. A document is validated as its parts (see Check), so the parts can
// be validated in parallel.
type compiledSchema struct {
	root     *jsonschema.Schema
	row      *jsonschema.Schema
	rows     map[string]*jsonschema.Schema
	decision *jsonschema.Schema
}

// compile compiles a contract-8 schema document (the published bytes, or
// their flattened equivalent) with its row and decision subschemas.
func compile(doc []byte) (*compiledSchema, error) {
	c := offlineschema.NewCompiler()
	if err := c.AddResource(schemas.ArtefactV8ID, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	out := &compiledSchema{rows: map[string]*jsonschema.Schema{}}
	var err error
	if out.root, err = c.Compile(schemas.ArtefactV8ID); err != nil {
		return nil, err
	}
	if out.row, err = c.Compile(schemas.ArtefactV8ID + "#/$defs/row"); err != nil {
		return nil, err
	}
	if out.decision, err = c.Compile(schemas.ArtefactV8ID + "#/$defs/decision"); err != nil {
		return nil, err
	}
	for _, rt := range artefact.RecordTypes(artefact.Version) {
		if out.rows[rt], err = c.Compile(schemas.ArtefactV8ID + "#/$defs/row_" + rt); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// compiled is the published schema in its flattened, equivalent form (see
// flatten), compiled once.
var compiled = sync.OnceValues(func() (*compiledSchema, error) {
	doc, err := flatten(schemas.ArtefactV8())
	if err != nil {
		return nil, err
	}
	return compile(doc)
})

// Compiled returns the compiled JSON Schema for contract 8, compiled once
// from the bytes embedded in package schemas (in the equivalent flattened
// form Check uses) with remote loading disabled. It is safe for concurrent
// use. Validate on it takes a canon.Parse tree.
func Compiled() (*jsonschema.Schema, error) {
	c, err := compiled()
	if err != nil {
		return nil, err
	}
	return c.root, nil
}

// Check validates a contract-8 tree (as canon.Parse returns it) against
// the published JSON Schema alone, without the named checks. A violation is
// an artefact.ErrSchema refusal whose artefact.Pointer is the instance
// location of the first leaf the schema reports.
//
// The document is validated as parts: the document with an empty
// trajectory and decision tape (each keyword then holds of the rest), every
// decision against $defs/decision and every row against its record type's
// subschema. The parts are shared out in small batches among up to
// GOMAXPROCS goroutines (the schema is safe for concurrent use), each
// yielding between batches so that work running beside the check (the
// named checks, in artefact.Read) keeps its share of the processors. The
// refusal is the one of the first failing part in document order (the
// document, then decisions, then rows), whatever order they finish in.
func Check(tree any) error {
	c, err := compiled()
	if err != nil {
		return fmt.Errorf("artefact/schema: compile embedded schema: %w", err)
	}
	return c.check(tree)
}

// part is one unit of a document's validation: items [lo, hi) of a list
// (or, for the document itself, no list).
type part struct {
	list   []any
	lo, hi int
	prefix string // "/trajectory", "/decisions" or "" for the document
}

// batch is how many rows or decisions one part holds: small enough to
// share the work evenly, large enough that handing it out costs nothing.
const batch = 8

func (c *compiledSchema) check(tree any) error {
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
	shallow["trajectory"] = []any{}
	shallow["decisions"] = []any{}
	parts := []part{{list: []any{shallow}, lo: 0, hi: 1}}
	for _, l := range []struct {
		items  []any
		prefix string
	}{{decisions, "/decisions"}, {rows, "/trajectory"}} {
		for lo := 0; lo < len(l.items); lo += batch {
			parts = append(parts, part{list: l.items, lo: lo, hi: min(lo+batch, len(l.items)), prefix: l.prefix})
		}
	}
	errs := make([]error, len(parts))
	var next, firstBad atomic.Int64
	firstBad.Store(int64(len(parts)))
	work := func() {
		for {
			i := next.Add(1) - 1
			if i >= int64(len(parts)) || i > firstBad.Load() {
				return
			}
			if errs[i] = c.validatePart(parts[i]); errs[i] != nil {
				for {
					cur := firstBad.Load()
					if i >= cur || firstBad.CompareAndSwap(cur, i) {
						break
					}
				}
			}
			runtime.Gosched()
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(parts))
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *compiledSchema) validatePart(p part) error {
	for i := p.lo; i < p.hi; i++ {
		item := p.list[i]
		s, at := c.root, ""
		switch p.prefix {
		case "/decisions":
			s, at = c.decision, "/decisions/"+strconv.Itoa(i)
		case "/trajectory":
			s, at = c.row, "/trajectory/"+strconv.Itoa(i)
			if body, ok := item.(map[string]any); ok {
				if rt, ok := body["record_type"].(string); ok && c.rows[rt] != nil {
					s = c.rows[rt]
				}
			}
		}
		if err := schemaError(s.Validate(item), at); err != nil {
			return err
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
