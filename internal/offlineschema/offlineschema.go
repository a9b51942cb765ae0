// Package offlineschema compiles JSON Schemas (draft 2020-12, formats
// asserted) from bytes the program holds and never from anywhere else: the
// compiler's loader refuses every URL (https, http, file, anything) with
// [ErrRemoteLoad], so only resources added to the compiler can be compiled.
// [Leaf] names the check a failed validation actually failed.
//
// Only obaudit-sigstore (artefact/schema, export/agentrun/agentrunschema)
// and the schema oracles of the tests import it: the default obaudit build
// links no JSON Schema library (TestBinaryDeps), whose package init
// compiles its draft metaschemas at every process start.
package offlineschema

import (
	"errors"
	"fmt"
	"io"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// ErrRemoteLoad is what the loader of a [NewCompiler] compiler returns for
// every URL (wrapped, naming the URL).
var ErrRemoteLoad = errors.New("remote schema loading is disabled")

// NewCompiler returns a draft 2020-12 compiler that asserts formats and
// loads nothing.
func NewCompiler() *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	c.AssertFormat = true
	c.LoadURL = func(url string) (io.ReadCloser, error) {
		return nil, fmt.Errorf("%w: %s", ErrRemoteLoad, url)
	}
	return c
}

// Leaf returns the failing check a validation error reports, following
// each error's first cause down to the innermost; ok is false when err is
// not a validation error.
func Leaf(err error) (leaf *jsonschema.ValidationError, ok bool) {
	if !errors.As(err, &leaf) {
		return nil, false
	}
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	return leaf, true
}
