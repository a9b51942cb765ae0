package notime

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
)

func cellNamed(t *testing.T, name string) fxCell {
	t.Helper()
	for _, c := range loadCells(t) {
		if c.Cell == name {
			return c
		}
	}
	t.Fatalf("no cell %q", name)
	return fxCell{}
}

func activationRows(rec *notimewire.RunV1) (acts, cancels []string) {
	for _, r := range rec.Trajectory {
		switch r["record_type"] {
		case "finality_activation":
			acts = append(acts, r["activation_id"].(string))
		case "finality_activation_cancelled":
			cancels = append(cancels, r["activation_id"].(string))
		}
	}
	return
}

// identityProblems checks the activation-identity cells: an equal-content
// completion after reopen gets a new id, and the cancellation names exactly
// the old activation.
func identityProblems(t *testing.T) string {
	for _, name := range []string{"equal-content completion after reopen creates a new activation", "exact old activation cancelled"} {
		why, rec, _ := runCell(cellNamed(t, name))
		if why != "" {
			return why
		}
		acts, cancels := activationRows(rec)
		if len(acts) != 2 || acts[0] == acts[1] {
			return "activation ids reused: " + strings.Join(acts, ",")
		}
		if len(cancels) != 1 || cancels[0] != acts[0] {
			return "the cancellation does not name the old activation"
		}
	}
	return ""
}

func TestActivationIdentity(t *testing.T) {
	if why := identityProblems(t); why != "" {
		t.Fatal(why)
	}
}

// Activation ids contain no timestamp: the same cell started at another
// Full instant gives the same ids, and the plan carries no instant at all.
func TestActivationIsTimestampFree(t *testing.T) {
	c := cellNamed(t, "exact old activation cancelled")
	ids := func(start string) []string {
		d := c.domainAt(start)
		plan, err := Compile(d, fxProfile(d))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(plan)
		if fullInstant.Match(b) {
			t.Fatalf("the compiled plan carries an instant: %s", fullInstant.Find(b))
		}
		rec, err := Run(Config{Domain: d, Profile: fxProfile(d), Plan: plan, Agent: &fxAgent{script: c.Agent}, AgentID: "fx", AgentKind: "fixture", OperationInstanceID: "opinst_00000000000000000000000000000000"})
		if err != nil {
			t.Fatal(err)
		}
		acts, _ := activationRows(rec)
		return acts
	}
	a, b := ids("2031-01-01T00:00:00Z"), ids("2044-06-30T17:45:00Z")
	if len(a) != 2 || !slices.Equal(a, b) {
		t.Fatalf("activation ids depend on the Full start: %v vs %v", a, b)
	}
}

var fullInstant = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z`)

// recorder wraps an agent and keeps every observation it is shown.
type recorder struct {
	engine.Agent
	seen []*engine.Observation
}

func (r *recorder) Decide(o *engine.Observation) (engine.Decision, error) {
	r.seen = append(r.seen, o)
	return r.Agent.Decide(o)
}

// leakProblems runs the reference on V1 and holds every observation to the
// no-future-information rule: the anchor for time, no Full instant, no
// queue, count or future payload, no scenario or expected terminal, the
// waking event only as the one just delivered, policy durations as 1.
func leakProblems(t *testing.T) string {
	d, a := artefacttest.Cell(t, "V1", "reference")
	prof, _ := MaintenanceProfile(d.Static())
	plan, err := Compile(d, prof)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Agent: a.New()}
	run, err := Run(Config{Domain: d, Profile: prof, Plan: plan, Agent: rec, AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: "opinst_0123456789abcdef0123456789abcdef"})
	if err != nil {
		t.Fatal(err)
	}
	delivered := map[string]int{} // event id → row index of its delivery
	for i, r := range run.Trajectory {
		if id, ok := r["event_id"].(string); ok && strings.HasPrefix(r["record_type"].(string), "event_") {
			delivered[id] = i
		}
	}
	phases := map[string]bool{"NEW": true, "ACTIVE": true, "WAITING_VISIT": true, "WAITING_APPROVAL": true, "PROVISIONALLY_CLOSED": true,
		"FINALIZED": true, "TRANSFERRED_TO_HUMAN": true, "WAITING_EXCEPTION": true, "WAITING_SETTLEMENT": true, "WAITING_INVOICE_VALIDATION": true}
	for _, o := range rec.seen {
		if o.Now != notimewire.Anchor {
			return "observation time " + o.Now
		}
		if !phases[o.Phase] && !regexp.MustCompile(`^[A-Z_]+$`).MatchString(o.Phase) {
			return "phase carries more than a phase: " + o.Phase
		}
		b := string(o.ProjectionJSON())
		if m := fullInstant.FindString(b); m != "" {
			return "observation carries Full time " + m
		}
		for _, bad := range []string{"scenario_id", "expected_terminal", "queue", "V1", "authored_sequence", "finality"} {
			if strings.Contains(b, bad) {
				return "observation carries " + bad
			}
		}
		if o.Event != nil {
			if _, ok := delivered[o.Event.EventID]; !ok {
				return "observation shows an undelivered event " + o.Event.EventID
			}
		}
		for k, v := range o.Static().Policy {
			if n, ok := v.(int64); ok && strings.HasSuffix(k, "_minutes") && k != "horizon_minutes" && n != 1 {
				return "policy duration " + k + " is not canonicalised"
			}
		}
	}
	// No undelivered event id appears in any observation before delivery.
	for _, o := range rec.seen {
		b := string(o.ProjectionJSON())
		for _, e := range plan.Events {
			if _, ok := delivered[e.EventID]; !ok && strings.Contains(b, `"`+e.EventID+`"`) {
				return "observation names the never-delivered event " + e.EventID
			}
		}
	}
	return ""
}

func TestNoFutureInformation(t *testing.T) {
	if why := leakProblems(t); why != "" {
		t.Fatal(why)
	}
}

// matrixProblems runs every fixture cell and reports the first failure.
func matrixProblems(t *testing.T) string {
	for _, c := range loadCells(t) {
		if why, _, _ := runCell(c); why != "" {
			return c.Family + "/" + c.Cell + ": " + why
		}
	}
	return ""
}

// TestMutationsAreKilled flips each runtime mutation of the protocol's §11
// list on its own and requires the hand-authored matrix, the identity
// cells or the no-leakage check to fail. (The verifier-side mutations are
// in arm/notimeverify; sharing compiler logic with the verifier is killed
// by repo_test.go TestDependencyRules.)
func TestMutationsAreKilled(t *testing.T) {
	cases := []struct {
		name string
		set  func(*mutations)
	}{
		{"moving an event across its cut", func(m *mutations) { m.moveAcrossCut = true }},
		{"treating finality as an ordinary domain audit", func(m *mutations) { m.finalityAsAudit = true }},
		{"invoking on a post-cut event", func(m *mutations) { m.invokeOnPostCut = true }},
		{"losing a pre-cut reopen", func(m *mutations) { m.loseReopen = true }},
		{"consuming a conditional on rejection", func(m *mutations) { m.consumeOnRejection = true }},
		{"blocking finality on a dead one-shot cause", func(m *mutations) { m.blockOnDeadCause = true }},
		{"failing to block on an alternate live pre-cut cause", func(m *mutations) { m.noBlockOnLiveCause = true }},
		{"activating a conditional from its post-cut audit", func(m *mutations) { m.activateFromPostCutAudit = true }},
		{"replacing UNTRIGGERED_AT_FINALITY with a delivery", func(m *mutations) { m.untriggeredAsDelivery = true }},
		{"reusing an activation id after reopen", func(m *mutations) { m.reuseActivationID = true }},
		{"cancelling the wrong activation", func(m *mutations) { m.cancelWrongActivation = true }},
		{"deduplicating semantic events", func(m *mutations) { m.dedupSemantic = true }},
		{"mutating after final", func(m *mutations) { m.mutateAfterFinal = true }},
		{"leaking a future field", func(m *mutations) { m.leakFuture = true }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mut = mutations{}
			c.set(&mut)
			defer func() { mut = mutations{} }()
			killed := matrixProblems(t)
			if killed == "" {
				killed = identityProblems(t)
			}
			if killed == "" {
				killed = leakProblems(t)
			}
			if killed == "" && c.name == "mutating after final" {
				killed = finalStateProblem(t)
			}
			if killed == "" {
				t.Fatalf("mutation %q survived the matrix", c.name)
			}
			t.Logf("killed: %s", firstLine(killed))
		})
	}
}

// finalStateProblem: a post-terminal delivery must leave the final state
// exactly as the cut left it (the fixture operation counts mutations).
func finalStateProblem(t *testing.T) string {
	_, rec, _ := runCell(cellNamed(t, "post-cut late event audit-only without invocation"))
	if rec == nil {
		return "no record"
	}
	if rec.FinalState["mutations"] != int64(1) {
		return "the final state moved after final"
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
