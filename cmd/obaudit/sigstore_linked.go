//go:build obaudit_sigstore

package main

import (
	artefactschema "github.com/obaudit/obaudit/artefact/schema"
	"github.com/obaudit/obaudit/artefact/sigstore/sigverify"
	"github.com/obaudit/obaudit/export/agentrun/agentrunschema"
)

// Built with the obaudit_sigstore tag, this is obaudit-sigstore: it links
// the verifiers and the JSON Schema validation itself.
func init() {
	verifiers = verifiersOf(sigverify.NewKeyVerifier, sigverify.NewKeylessVerifier)
	schemaLib = schemasOf(agentrunschema.CompileSchema, artefactschema.Check)
}
