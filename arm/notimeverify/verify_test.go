package notimeverify_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/schemas"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func pair(t *testing.T, scenario, agentID string) (notimeverify.Full, *notimewire.RunV1) {
	t.Helper()
	dom, a := artefacttest.Cell(t, scenario, agentID)
	ep, err := engine.Run(engine.Config{Domain: dom, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst, EngineVersion: schemas.EngineObaudit})
	if err != nil {
		t.Fatal(err)
	}
	prof, _ := notime.MaintenanceProfile(dom.Static())
	plan, err := notime.Compile(dom, prof)
	if err != nil {
		t.Fatal(err)
	}
	nt, err := notime.Run(notime.Config{Domain: dom, Profile: prof, Plan: plan, Agent: a.New(), AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst})
	if err != nil {
		t.Fatal(err)
	}
	return notimeverify.Full{Domain: dom, Trajectory: ep.Trajectory, TerminalOutcome: ep.TerminalOutcome, ReplayFinal: ep.ReplayFinal}, nt
}

func TestReferencePairsMatch(t *testing.T) {
	for _, sc := range []string{"V1", "V2"} {
		f, nt := pair(t, sc, "reference")
		rep, err := notimeverify.Verify(f, nt)
		if err != nil {
			t.Errorf("%s: %v", sc, err)
			continue
		}
		t.Logf("%s: %d activations, raw %v", sc, len(rep.Activations), rep.RawDifferences)
	}
}
