package notime

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notimeverify"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/schemas"
)

// The runtime mutations the independent verifier (not the matrix) must
// catch on the V1 reference pair: an activation/effect identity cycle, a
// forbidden raw difference in a business payload, and the matrix's own
// mutations seen through the verifier as well.
func TestVerifierKillsRuntimeMutations(t *testing.T) {
	d, a := artefacttest.Cell(t, "V1", "reference")
	const inst = "opinst_0123456789abcdef0123456789abcdef"
	ep, err := engine.Run(engine.Config{Domain: d, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst, EngineVersion: schemas.EngineObaudit})
	if err != nil {
		t.Fatal(err)
	}
	full := notimeverify.Full{Domain: d, Trajectory: ep.Trajectory, TerminalOutcome: ep.TerminalOutcome, ReplayFinal: ep.ReplayFinal}
	prof, _ := MaintenanceProfile(d.Static())
	run := func() error {
		plan, err := Compile(d, prof)
		if err != nil {
			t.Fatal(err)
		}
		nt, err := Run(Config{Domain: d, Profile: prof, Plan: plan, Agent: a.New(), AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: inst})
		if err != nil {
			t.Fatal(err)
		}
		_, err = notimeverify.Verify(full, nt)
		return err
	}
	if err := run(); err != nil {
		t.Fatalf("the unmutated pair: %v", err)
	}
	for name, set := range map[string]func(*mutations){
		"identity cycle":             func(m *mutations) { m.identityCycle = true },
		"forbidden raw difference":   func(m *mutations) { m.alterPayload = true },
		"reused activation id":       func(m *mutations) { m.reuseActivationID = true },
		"wrong activation cancelled": func(m *mutations) { m.cancelWrongActivation = true },
		"event moved across the cut": func(m *mutations) { m.moveAcrossCut = true },
		"subject invoked post-cut":   func(m *mutations) { m.invokeOnPostCut = true },
		"reopen lost":                func(m *mutations) { m.loseReopen = true },
	} {
		mut = mutations{}
		set(&mut)
		err := run()
		mut = mutations{}
		if err == nil {
			t.Errorf("%s: the verifier accepted the mutated pair", name)
		}
	}
}
