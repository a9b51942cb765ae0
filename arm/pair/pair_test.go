package pair_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/refusal"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func setup(t testing.TB, scenario, agentID string) (engine.Domain, pair.Agent) {
	t.Helper()
	d, a := artefacttest.Cell(t, scenario, agentID)
	return d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}
}

// run is arm's run of a on d (pair.FullRun or pair.NoTimeRun), failing t
// when the arm does not run.
func run[T any](t testing.TB, arm func(engine.Domain, pair.Agent, string) (T, error), d engine.Domain, a pair.Agent) T {
	t.Helper()
	v, err := arm(d, a, inst)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBothArmsGradeAsIntended(t *testing.T) {
	for _, x := range pair.Expectations {
		if x.Ineligible {
			continue
		}
		t.Run(x.Scenario+"/"+x.Agent, func(t *testing.T) {
			d, a := setup(t, x.Scenario, x.Agent)
			ep, nt := run(t, pair.FullRun, d, a), run(t, pair.NoTimeRun, d, a)
			of, err := pair.GradeFull(d, ep)
			if err != nil {
				t.Fatal(err)
			}
			on, err := pair.GradeNoTime(d, nt)
			if err != nil {
				t.Fatal(err)
			}
			if why := x.Met(of); why != "" {
				t.Errorf("full: %s (%v %v)", why, of.PredicateVerdicts, of.FindingCodes)
			}
			if why := x.Met(on); why != "" {
				t.Errorf("notime: %s (%v %v)", why, on.PredicateVerdicts, on.FindingCodes)
			}
			if _, err := pair.Verify(d, ep, nt); err != nil {
				t.Errorf("the verifier refused the pair: %v", err)
			}
		})
	}
}

// V3's approver decision is authored to follow the approval deadline timer
// (on_event approval_deadline_due): removing time removes its cause, so
// the protocol calls the plan ineligible rather than reordering it.
func TestV3IsIneligible(t *testing.T) {
	d, a := setup(t, "V3", "reference")
	ep := run(t, pair.FullRun, d, a)
	of, err := pair.GradeFull(d, ep)
	if err != nil {
		t.Fatal(err)
	}
	if why := pair.Expectations[len(pair.Expectations)-1].Met(of); why != "" {
		t.Errorf("full V3: %s %v", why, of.FindingCodes)
	}
	_, err = pair.NoTimeRun(d, a, inst)
	if c, _ := refusal.ClassOf(err); refusal.Of(err) != notime.ErrCausalOrder.Class || c != "notime/causal-order-mismatch" {
		t.Fatalf("V3: %v, want notime/causal-order-mismatch", err)
	}
}

// The protocol's V1 witness: v1_e18 is post-finality, recorded audit-only
// (post_terminal) and never invokes the subject.
func TestV1Witness(t *testing.T) {
	d, a := setup(t, "V1", "reference")
	nt := run(t, pair.NoTimeRun, d, a)
	var e18 *notimewire.EventV1
	for i := range nt.Plan.Events {
		if nt.Plan.Events[i].EventID == "v1_e18" {
			e18 = &nt.Plan.Events[i]
		}
	}
	if e18 == nil || len(e18.FinalityRelations) != 1 {
		t.Fatalf("v1_e18 relations: %+v", e18)
	}
	for _, side := range e18.FinalityRelations {
		if side != notimewire.PostFinality {
			t.Fatalf("v1_e18 is %s", side)
		}
	}
	cut, after := -1, -1
	for i, r := range nt.Trajectory {
		switch {
		case r["record_type"] == "finality_cut" && r["finalized"] == true:
			cut = i
		case r["event_id"] == "v1_e18":
			if r["record_type"] != "event_after_terminal" || r["disposition"] != engine.DispositionPostTerminal {
				t.Fatalf("v1_e18 row %v", r)
			}
			after = i
		case r["record_type"] == "agent_invoked" && r["trigger_event_id"] == "v1_e18":
			t.Fatal("v1_e18 invoked the subject")
		}
	}
	if cut < 0 || after < cut {
		t.Fatalf("finality_cut at %d, v1_e18 at %d", cut, after)
	}
	if nt.Halt != notimewire.HaltTerminal || nt.TerminalOutcome != "completed_successfully" || !nt.ReplayFinal {
		t.Fatalf("halt %s terminal %v", nt.Halt, nt.TerminalOutcome)
	}
}

// 100 No-Time runs of the reference on V1 and V2 (10 of each negative on
// V1) are byte-identical records, and each replays from its decision tape
// alone (engine.Playback: no agent, no provider).
func TestDeterministicAndReplayable(t *testing.T) {
	pack := domains.Default()
	cases := [][2]string{{"V2", "reference"}}
	for _, id := range pack.AgentIDs() {
		cases = append(cases, [2]string{"V1", id})
	}
	for _, c := range cases {
		d, a := setup(t, c[0], c[1])
		var first string
		runs := 100
		if c[1] != "reference" {
			runs = 10
		}
		for i := 0; i < runs; i++ {
			nt := run(t, pair.NoTimeRun, d, a)
			b, err := notimerecord.Encode(nt)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				first = string(b)
				ok, err := pair.Replay(d, nt)
				if err != nil || !ok {
					t.Fatalf("%s/%s: replay %v %v", c[0], c[1], ok, err)
				}
				continue
			}
			if string(b) != first {
				t.Fatalf("%s/%s: run %d differs from run 0", c[0], c[1], i)
			}
		}
	}
}

func TestRefusals(t *testing.T) {
	d, a := setup(t, "V1", "reference")
	nt := run(t, pair.NoTimeRun, d, a)
	if err := pair.Known("static"); refusal.Of(err) != pair.ErrUnknownArm.Class {
		t.Errorf("unknown arm: %v", err)
	}
	if _, err := pair.GradeNoTime(cardless{d}, nt); refusal.Of(err) != pair.ErrNoCard.Class {
		t.Errorf("no card: %v", err)
	}
}

// cardless is a domain whose scenario has no authored outcome card.
type cardless struct{ engine.Domain }

func (c cardless) Plan() *engine.Plan {
	p := *c.Domain.Plan()
	p.Meta.ScenarioID = "V9"
	return &p
}
