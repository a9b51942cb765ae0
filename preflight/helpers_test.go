package preflight

import (
	"os"
	"testing"

	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/artefacttest"
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

// mustRun is Run(cfg), failing t when the run is refused.
func mustRun(t *testing.T, cfg Config) *Result {
	t.Helper()
	r, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// config is a V1 reference cell into dir.
func config(t *testing.T, dir string) Config {
	t.Helper()
	dom, ref := artefacttest.Cell(t, "V1", "reference")
	pack := domains.Default()
	return Config{
		Domain: dom, Reference: ref.New, EngineVersion: schemas.EngineObaudit,
		OutputDir: dir, MaxCalls: 60, Now: ledgertest.NewClock().Now,
		ExecutionRunID: testRunID, OperationInstanceID: testInstance,
		ArtefactOptions: artefacttest.Options(),
		Agents: func(id string) (episode.Registered, bool) {
			a, ok := pack.Agent(id)
			return episode.Registered{Kind: a.Kind, New: func() engine.Agent { return a.New() }}, ok
		},
	}
}
