package preflight

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/schemas"
)

const (
	testRunID    = "exec_0123456789abcdef0123456789abcdef"
	testInstance = "opinst_0123456789abcdef0123456789abcdef"
)

// fakeClock advances one second per reading, from a fixed instant.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func newClock() *fakeClock {
	return &fakeClock{t: time.Date(2035, 1, 2, 3, 4, 5, 0, time.UTC)}
}

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
		OutputDir: dir, MaxCalls: 60, Now: newClock().Now,
		ExecutionRunID: testRunID, OperationInstanceID: testInstance,
		ArtefactOptions: artefactOptions(),
		Agents: func(id string) (episode.Registered, bool) {
			a, ok := pack.Agent(id)
			return episode.Registered{Kind: a.Kind, New: func() engine.Agent { return a.New() }}, ok
		},
	}
}
