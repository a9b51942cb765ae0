package notime_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/internal/artefacttest"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func runNoTime(t testing.TB, scenario, agentID string) (*notimewire.RunV1, error) {
	t.Helper()
	dom, a := artefacttest.Cell(t, scenario, agentID)
	prof, err := notime.MaintenanceProfile(dom.Static())
	if err != nil {
		t.Fatal(err)
	}
	plan, err := notime.Compile(dom, prof)
	if err != nil {
		return nil, err
	}
	return notime.Run(notime.Config{Domain: dom, Profile: prof, Plan: plan, Agent: a.New(), AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst})
}

func TestReferenceV1(t *testing.T) {
	r, err := runNoTime(t, "V1", "reference")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range r.Trajectory {
		t.Logf("%v %v %v %v %v", row["transition"], row["record_type"], row["event_id"], row["code"], row["action_type"])
	}
	t.Logf("halt %s %s terminal %v final %v", r.Halt, r.HaltCode, r.TerminalOutcome, r.ReplayFinal)
	_ = decision.KindAct
}
