//go:build !obaudit_sigstore

package main

import (
	artefactschema "github.com/obaudit/obaudit/artefact/schema"
	"github.com/obaudit/obaudit/artefact/sigstore/sigverify"
	"github.com/obaudit/obaudit/export/agentrun/agentrunschema"
)

// The tests run the command line in-process (and the test binary stands in
// for the installed one) with obaudit-sigstore's verifiers and JSON Schema
// validation.
func init() {
	verifiers = verifiersOf(sigverify.NewKeyVerifier, sigverify.NewKeylessVerifier)
	schemaLib = schemasOf(agentrunschema.CompileSchema, artefactschema.Check)
}
