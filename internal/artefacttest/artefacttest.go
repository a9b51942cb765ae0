// Package artefacttest gives tests of the readers of a checked artefact
// (report, export) the [artefact.Document] their callers hand them: Read
// validates as cmd/obaudit does (each pack's operation, agents and terminals;
// the final state's shape is the pack's and not checked here), Unchecked
// decodes a tree no validator accepts (hostile strings, spliced rows), and
// Cell resolves a scenario and an agent of the default pack as a run does.
// Only tests import it.
package artefacttest

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
)

// Options are the reader's options for every pack obaudit carries, as
// cmd/obaudit registers them (operation type, agents and kinds, terminal
// classes) but with the final state's shape unchecked and no recovery rule.
func Options() artefact.Options {
	var opts artefact.Options
	for _, p := range domains.Packs() {
		d := p.ArtefactDomain()
		opts.Domains = append(opts.Domains, artefact.Domain{OperationType: d.OperationType, Agents: d.Agents,
			TerminalClasses: d.TerminalClasses,
			ValidateState:   func(map[string]any, string, int, bool) error { return nil }})
	}
	return opts
}

// Read reads and validates raw as an artefact of a pack obaudit carries.
func Read(t testing.TB, raw []byte) *artefact.Document {
	t.Helper()
	d, err := artefact.Read(raw, Options())
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

// Mutate parses raw, hands f the top-level object to edit, and returns the
// edited tree's upstream canonical bytes (no trailing newline).
func Mutate(t testing.TB, raw []byte, f func(map[string]any)) []byte {
	t.Helper()
	v, err := canon.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	f(v.(map[string]any))
	b, err := canon.Upstream(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Cell is the default pack's operation bound to scenario (its embedded
// spec, as a run with no operation file) and the pack's agent agentID.
func Cell(t testing.TB, scenario, agentID string) (engine.Domain, domains.Agent) {
	t.Helper()
	pack := domains.Default()
	d, err := pack.Operation(nil, "", scenario)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := pack.Agent(agentID)
	if !ok {
		t.Fatalf("no agent %q in pack %s", agentID, pack.Name)
	}
	return d, a
}
