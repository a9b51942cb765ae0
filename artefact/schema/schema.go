// Package schema holds contract-8 episode artefacts to the published JSON
// Schema (schemas/artefact/v8.json), compiled once from the embedded bytes
// with github.com/santhosh-tekuri/jsonschema/v5 and remote loading disabled.
//
// It is a second, independent engine beside package artefact's named
// checks, which already enforce every constraint the schema states (the
// artefact test suite checks both directions). It lives in its own package
// so that the reading and replay paths do not link the schema library (and
// the address parsers it brings); `obaudit validate --schema` passes
// [Check] to artefact.Options.JSONSchema.
//
// # Refusals
//
// A violation is artefact.ErrSchema, with the JSON pointer of the first
// leaf the schema reports (artefact.Pointer).
package schema

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/schemas"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// errRemoteLoad is what the compiler's loader returns for every URL: the
// schema is compiled from embedded bytes only, and nothing is ever fetched
// (not https, not file).
var errRemoteLoad = errors.New("artefact/schema: schema loading from URLs is disabled")

// compiledSchema is the contract-8 schema compiled once: the document
// schema, plus each trajectory row type's own subschema ($defs/row_<type>)
// so that rows are dispatched by record_type in Go rather than through the
// schema's if/then chain, which the library evaluates row by row at about
// thirty times the cost. For a row whose record_type is one of the enum's
// values, $defs/row and $defs/row_<type> accept exactly the same rows (the
// head checks are repeated inside each row_<type>); any other row is held to
// $defs/row itself.
type compiledSchema struct {
	root *jsonschema.Schema
	row  *jsonschema.Schema
	rows map[string]*jsonschema.Schema
}

// newCompiler returns a draft 2020-12 compiler that loads nothing: every
// URL (https, file, anything) is refused, so only resources added from
// embedded bytes can be compiled.
func newCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%w: %s", errRemoteLoad, url)
	}
	return c
}

var compiled = sync.OnceValues(func() (*compiledSchema, error) {
	c := newCompiler()
	if err := c.AddResource(schemas.ArtefactV8ID, bytes.NewReader(schemas.ArtefactV8())); err != nil {
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
	for _, rt := range artefact.RecordTypes(artefact.Version) {
		if out.rows[rt], err = c.Compile(schemas.ArtefactV8ID + "#/$defs/row_" + rt); err != nil {
			return nil, err
		}
	}
	return out, nil
})

// Compiled returns the compiled JSON Schema for contract 8, compiled once
// from the bytes embedded in package schemas with remote loading disabled.
// It is safe for concurrent use. Validate on it takes a canon.Parse tree.
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
func Check(tree any) error {
	c, err := compiled()
	if err != nil {
		return fmt.Errorf("artefact/schema: compile embedded schema: %w", err)
	}
	root, ok := tree.(map[string]any)
	rows, isList := root["trajectory"].([]any)
	if !ok || !isList {
		return schemaError(c.root.Validate(tree), "")
	}
	// The document without its rows (an empty trajectory satisfies the
	// trajectory keyword), then every row against its type's subschema.
	shallow := make(map[string]any, len(root))
	for k, v := range root {
		shallow[k] = v
	}
	shallow["trajectory"] = []any{}
	if err := schemaError(c.root.Validate(shallow), ""); err != nil {
		return err
	}
	for i, r := range rows {
		s := c.row
		if body, ok := r.(map[string]any); ok {
			if rt, ok := body["record_type"].(string); ok && c.rows[rt] != nil {
				s = c.rows[rt]
			}
		}
		if err := schemaError(s.Validate(r), "/trajectory/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

func schemaError(err error, prefix string) error {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	return artefact.RefusalAt(artefact.ErrSchema, prefix+leaf.InstanceLocation, "violates %s: %s", leaf.KeywordLocation, leaf.Message)
}
