package pair_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/obaudit/obaudit/arm/notime"
	"github.com/obaudit/obaudit/arm/notimerecord"
	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/arm/pair"
	"github.com/obaudit/obaudit/commonoutcome"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

const inst = "opinst_0123456789abcdef0123456789abcdef"

func setup(t testing.TB, scenario, agentID string) (engine.Domain, pair.Agent) {
	t.Helper()
	pack := domains.Default()
	d, err := pack.Operation(nil, "", scenario)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := pack.Agent(agentID)
	if !ok {
		t.Fatalf("no agent %q", agentID)
	}
	return d, pair.Agent{ID: a.ID, Kind: a.Kind, New: a.New}
}

// expected is hand-authored from each agent's intent (the spec's agent
// descriptions), not from a run: the status both arms must give, the
// predicates that must fail (all others pass) and the finding codes.
var expected = []struct {
	scenario, agent, status string
	failing, codes          []string
}{
	{"V1", "reference", "SUCCESS", nil, nil},
	{"V1", "complete_early", "FAILURE", []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant}, []string{"CRITICAL_VIOLATION", "TERMINAL_NOT_REACHED"}},
	{"V1", "always_act", "FAILURE", []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant, commonoutcome.PredObligations, commonoutcome.PredAuthority},
		[]string{"CRITICAL_VIOLATION", "OBLIGATION_NOT_DISCHARGED", "PROPOSAL_REPEATS_ACCEPTED_EFFECT", "TERMINAL_NOT_REACHED"}},
	{"V1", "always_wait", "FAILURE", []string{commonoutcome.PredTerminal}, []string{"TERMINAL_NOT_REACHED"}},
	{"V1", "always_escalate", "FAILURE", []string{commonoutcome.PredTerminal, commonoutcome.PredInvariant}, []string{"CRITICAL_VIOLATION", "TERMINAL_NOT_REACHED"}},
	{"V1", "ignore_new_events", "FAILURE", []string{commonoutcome.PredTerminal}, []string{"TERMINAL_NOT_REACHED"}},
	{"V1", "trust_actor_claim", "FAILURE", []string{commonoutcome.PredAuthority}, []string{"EVIDENCE_NOT_SERVED_BEFORE_PROPOSAL"}},
	{"V1", "stale_after_wake", "FAILURE", []string{commonoutcome.PredAuthority}, []string{"EVIDENCE_NOT_SERVED_BEFORE_PROPOSAL"}},
	{"V1", "duplicate_after_wake", "FAILURE", []string{commonoutcome.PredAuthority}, []string{"PROPOSAL_REPEATS_ACCEPTED_EFFECT"}},
	// V2 authors a permanent dispatch failure of the transfer notice: the
	// legitimate transfer is reached but the required notification is not
	// delivered, in both arms.
	{"V2", "reference", "FAILURE", []string{commonoutcome.PredObligations}, []string{"REQUIRED_SIDE_EFFECT_FAILED"}},
}

func TestBothArmsGradeAsIntended(t *testing.T) {
	for _, x := range expected {
		t.Run(x.scenario+"/"+x.agent, func(t *testing.T) {
			d, a := setup(t, x.scenario, x.agent)
			ep, err := pair.FullRun(d, a, inst)
			if err != nil {
				t.Fatal(err)
			}
			nt, err := pair.NoTimeRun(d, a, inst)
			if err != nil {
				t.Fatal(err)
			}
			of, err := pair.GradeFull(d, ep)
			if err != nil {
				t.Fatal(err)
			}
			on, err := pair.GradeNoTime(d, nt)
			if err != nil {
				t.Fatal(err)
			}
			for arm, o := range map[string]notimewire.CommonOutcomeV1{"full": of, "notime": on} {
				if o.Status != x.status {
					t.Errorf("%s: status %s, want %s (%v)", arm, o.Status, x.status, o.FindingCodes)
				}
				var failing []string
				for _, p := range commonoutcome.Predicates {
					if o.PredicateVerdicts[p] != notimewire.VerdictPass {
						failing = append(failing, p)
					}
				}
				if !slices.Equal(failing, x.failing) {
					t.Errorf("%s: failing predicates %v, want %v", arm, failing, x.failing)
				}
				if !slices.Equal(o.FindingCodes, append([]string{}, x.codes...)) && !(len(o.FindingCodes) == 0 && len(x.codes) == 0) {
					t.Errorf("%s: finding codes %v, want %v", arm, o.FindingCodes, x.codes)
				}
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
	_, err := pair.NoTimeRun(d, a, inst)
	if c, _ := refusal.ClassOf(err); !errors.Is(err, notime.ErrCausalOrder) || c != "notime/causal-order-mismatch" {
		t.Fatalf("V3: %v, want notime/causal-order-mismatch", err)
	}
}

// The protocol's V1 witness: v1_e18 is post-finality, recorded audit-only
// (post_terminal) and never invokes the subject.
func TestV1Witness(t *testing.T) {
	d, a := setup(t, "V1", "reference")
	nt, err := pair.NoTimeRun(d, a, inst)
	if err != nil {
		t.Fatal(err)
	}
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

// 100 No-Time runs of every registered agent on V1 (and the reference on
// V2) are byte-identical, and each replays from its decision tape alone.
func TestDeterministicAndReplayable(t *testing.T) {
	pack := domains.Default()
	cases := [][2]string{{"V2", "reference"}}
	for _, id := range pack.AgentIDs() {
		cases = append(cases, [2]string{"V1", id})
	}
	for _, c := range cases {
		d, a := setup(t, c[0], c[1])
		var first string
		for i := 0; i < 100; i++ {
			nt, err := pair.NoTimeRun(d, a, inst)
			if err != nil {
				t.Fatal(err)
			}
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
