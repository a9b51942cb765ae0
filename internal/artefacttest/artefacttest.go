// Package artefacttest gives tests of the readers of a checked artefact
// (report, export) the [artefact.Document] their callers hand them: Read
// validates as cmd/obaudit does (the default pack's operation and agents;
// the final state's shape is the pack's and not checked here), Unchecked
// decodes a tree no validator accepts (hostile strings, spliced rows).
// Only tests import it.
package artefacttest

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/domains/lettings/maintenance"
)

// Read reads and validates raw as an artefact of the default pack.
func Read(t testing.TB, raw []byte) *artefact.Document {
	t.Helper()
	p := domains.Default()
	agents := map[string]string{}
	for _, a := range p.Agents {
		agents[a.ID] = a.Kind
	}
	d, err := artefact.Read(raw, artefact.Options{Domains: []artefact.Domain{{OperationType: p.OperationType, Agents: agents,
		TerminalClasses: maintenance.ProducibleTerminals,
		ValidateState:   func(map[string]any, string, int, bool) error { return nil }}}})
	if err != nil {
		t.Fatalf("artefact.Read = %v", err)
	}
	return d
}

// Unchecked is the typed view of raw without validation.
func Unchecked(t testing.TB, raw []byte) *artefact.Document {
	t.Helper()
	v, err := canon.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return artefact.Unchecked(v.(map[string]any), canon.SHA256Hex(raw))
}
