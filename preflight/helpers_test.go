package preflight

import (
	"os"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/schemas"
)

const (
	testRunID    = "exec_0123456789abcdef0123456789abcdef"
	testInstance = "opinst_0123456789abcdef0123456789abcdef"
)

// outDir is a fresh 0700 directory.
func outDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// artefactOptions are cmd's options without its maintenance state shape
// (the roots only; the content digest binds every byte regardless).
func artefactOptions() artefact.Options {
	var opts artefact.Options
	for _, p := range domains.Packs() {
		agents := map[string]string{}
		for _, a := range p.Agents {
			agents[a.ID] = a.Kind
		}
		opts.Domains = append(opts.Domains, artefact.Domain{
			OperationType: p.OperationType, Agents: agents,
			TerminalClasses: []string{"completed_successfully", "transferred_to_human_ownership"},
			ValidateState:   func(map[string]any, string, int, bool) error { return nil },
		})
	}
	return opts
}

// config is a V1 reference cell into dir.
func config(t *testing.T, dir string) Config {
	t.Helper()
	pack := domains.Default()
	dom, err := pack.Operation(nil, "", "V1")
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := pack.Agent("reference")
	return Config{
		Domain: dom, Reference: ref.New, EngineVersion: schemas.EngineObaudit,
		OutputDir: dir, MaxCalls: 60, Now: ledgertest.NewClock().Now,
		ExecutionRunID: testRunID, OperationInstanceID: testInstance,
		ArtefactOptions: artefactOptions(),
		Agents: func(id string) (episode.Registered, bool) {
			a, ok := pack.Agent(id)
			return episode.Registered{Kind: a.Kind, New: func() engine.Agent { return a.New() }}, ok
		},
	}
}
