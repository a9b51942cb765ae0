package gate_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/schemas"
)

// cell is one of the 27 (variant, agent) runs as upstream engine 0.9.0
// produced them, transcribed from the per-cell table and finding lists of
// ../shared/spec/engine-0.9-delta.md §4 (measured by running the 0.9.0
// source). codes are in dimension order, "×n" expanded.
type cell struct {
	variant, agent, status     string
	invocations, minutes, rows int
	decisions                  int
	failed                     []string
	codes                      string
}

const (
	tcr   = "TERMINAL_NOT_REACHED"
	mrc   = "MISSED_REQUIRED_CHECKPOINT"
	early = "TERMINAL_NOT_REACHED WAIT_NEVER_DECLARED NEVER_YIELDED_CONTROL " + "PREMATURE_COMPLETION*8 " + mrc
	act   = "TERMINAL_NOT_REACHED WAIT_NEVER_DECLARED NEVER_YIELDED_CONTROL DUPLICATE_OR_INVALID_ACTION*7 " + mrc
	wait  = "TERMINAL_NOT_REACHED WAIT_NEVER_ENDED " + mrc
	esc   = "TERMINAL_NOT_REACHED WAIT_NEVER_DECLARED NEVER_YIELDED_CONTROL REJECTED_ACTION_PROPOSAL*8 " + mrc + " UNNECESSARY_ESCALATION*8 REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED*8"
	trust = "CLAIM_TREATED_AS_AUTHORITATIVE REJECTED_ACTION_PROPOSAL ACTED_ON_CLAIM_WITHOUT_RECORD REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED"
	dup   = "DUPLICATE_OR_INVALID_ACTION REPEATED_ACTION_AFTER_WAKE"
)

var (
	d4   = []string{"terminal_outcome", "temporal_correctness", "action_validity", "human_checkpoints"}
	d3   = []string{"terminal_outcome", "temporal_correctness", "human_checkpoints"}
	d5   = []string{"terminal_outcome", "temporal_correctness", "action_validity", "human_checkpoints", "retrieval_discipline"}
	dTAR = []string{"authority_boundaries", "action_validity", "retrieval_discipline"}
	dAR  = []string{"action_validity", "retrieval_discipline"}
)

var cells = []cell{
	{"V1", "reference", "completed_successfully", 14, 14790, 306, 46, nil, ""},
	{"V1", "complete_early", "operation_deadlock", 1, 0, 37, 9, d4, early},
	{"V1", "always_act", "operation_deadlock", 1, 0, 47, 10, d4, act},
	{"V1", "always_wait", "operational_horizon_exhausted", 1, 43200, 8, 1, d3, wait},
	{"V1", "always_escalate", "operation_deadlock", 1, 0, 37, 9, d5, esc},
	{"V1", "ignore_new_events", "operational_horizon_exhausted", 7, 43200, 101, 15, []string{"terminal_outcome", "temporal_correctness"}, "TERMINAL_NOT_REACHED WAIT_NEVER_ENDED"},
	{"V1", "trust_actor_claim", "completed_successfully", 14, 14790, 309, 47, dTAR, trust},
	{"V1", "stale_after_wake", "completed_successfully", 14, 14790, 309, 47, dAR, "REJECTED_TERMINAL_PROPOSAL STALE_RETRIEVED_RECORD"},
	{"V1", "duplicate_after_wake", "completed_successfully", 14, 14790, 309, 47, dAR, dup},
	{"V2", "reference", "transferred_to_human_ownership", 8, 5910, 161, 24, nil, ""},
	{"V2", "complete_early", "operation_deadlock", 1, 0, 37, 9, d4, early},
	{"V2", "always_act", "operation_deadlock", 1, 0, 47, 10, d4, act},
	{"V2", "always_wait", "operational_horizon_exhausted", 1, 43200, 8, 1, d3, wait},
	{"V2", "always_escalate", "operation_deadlock", 1, 0, 37, 9, d5, esc},
	{"V2", "ignore_new_events", "operational_horizon_exhausted", 7, 43200, 101, 15, d3, "TERMINAL_NOT_REACHED WAIT_NEVER_ENDED " + mrc},
	{"V2", "trust_actor_claim", "transferred_to_human_ownership", 8, 5910, 164, 25, dTAR, trust},
	{"V2", "stale_after_wake", "transferred_to_human_ownership", 8, 5910, 164, 25, dAR, "REJECTED_ACTION_PROPOSAL STALE_RETRIEVED_RECORD REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED REPEATED_ACTION_AFTER_WAKE"},
	{"V2", "duplicate_after_wake", "transferred_to_human_ownership", 8, 5910, 164, 25, dAR, dup},
	{"V3", "reference", "transferred_to_human_ownership", 9, 7470, 176, 28, nil, ""},
	{"V3", "complete_early", "operation_deadlock", 1, 0, 37, 9, d4, early},
	{"V3", "always_act", "operation_deadlock", 1, 0, 47, 10, d4, act},
	{"V3", "always_wait", "operational_horizon_exhausted", 1, 43200, 8, 1, d3, wait},
	{"V3", "always_escalate", "operation_deadlock", 1, 0, 37, 9, d5, esc},
	{"V3", "ignore_new_events", "operational_horizon_exhausted", 8, 43200, 105, 16, d3, "TERMINAL_NOT_REACHED WAIT_NEVER_ENDED " + mrc},
	{"V3", "trust_actor_claim", "transferred_to_human_ownership", 9, 7470, 179, 29, dTAR, trust},
	{"V3", "stale_after_wake", "transferred_to_human_ownership", 9, 7470, 179, 29, dAR, "REJECTED_ACTION_PROPOSAL STALE_RETRIEVED_RECORD REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED REPEATED_ACTION_AFTER_WAKE"},
	{"V3", "duplicate_after_wake", "transferred_to_human_ownership", 9, 7470, 179, 29, dAR, dup},
}

func expand(codes string) []string {
	var out []string
	for _, f := range strings.Fields(codes) {
		code, n := f, 1
		if i := strings.IndexByte(f, '*'); i > 0 {
			code = f[:i]
			n = int(f[i+1] - '0')
		}
		for range n {
			out = append(out, code)
		}
	}
	return out
}

// runEpisode executes one cell's episode (with its determinism self-check)
// under the engine version.
func runEpisode(tb testing.TB, spec *maintenance.Spec, version, variant, agent string) *engine.Episode {
	tb.Helper()
	entry, err := agents.Lookup(agent)
	if err != nil {
		tb.Fatal(err)
	}
	op, err := maintenance.NewOperation(spec, variant)
	if err != nil {
		tb.Fatal(err)
	}
	ep, err := engine.Run(engine.Config{Domain: op, NewAgent: entry.New, AgentID: agent, AgentKind: entry.Kind,
		OperationInstanceID: gate.PinnedInstanceID, EngineVersion: version, SelfCheck: engine.SelfCheckRerun})
	if err != nil {
		tb.Fatalf("engine.Run(%s/%s) = %v", variant, agent, err)
	}
	return ep
}

// runCell executes and grades one cell under the engine version.
func runCell(t *testing.T, spec *maintenance.Spec, version, variant, agent string) (*engine.Episode, *evaluator.Evaluation) {
	t.Helper()
	ep := runEpisode(t, spec, version, variant, agent)
	c, err := contract(spec, variant)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := evaluator.Evaluate(version, c, evaluator.RunOf(ep))
	if err != nil {
		t.Fatal(err)
	}
	return ep, ev
}

// TestUpstreamCells: under engine 0.9.0, all 27 cells end, count and grade
// exactly as upstream 0.9.0 did — failing dimensions and the full
// finding-code list, duplicates and order included.
func TestUpstreamCells(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		t.Run(c.variant+"/"+c.agent, func(t *testing.T) {
			ep, ev := runCell(t, spec, schemas.EngineUpstream, c.variant, c.agent)
			if ep.Status != c.status || ep.Invocations != c.invocations || ep.SimulatedMinutes != int64(c.minutes) ||
				len(ep.Trajectory) != c.rows || len(ep.Decisions) != c.decisions {
				t.Errorf("episode = %s, %d invocations, %d min, %d rows, %d decisions; want %s, %d, %d, %d, %d",
					ep.Status, ep.Invocations, ep.SimulatedMinutes, len(ep.Trajectory), len(ep.Decisions),
					c.status, c.invocations, c.minutes, c.rows, c.decisions)
			}
			if ep.ReplayOK == nil || !*ep.ReplayOK {
				t.Errorf("self-check rerun diverged")
			}
			if got := ev.FailedDimensions(); !slices.Equal(got, c.failed) {
				t.Errorf("failed dimensions = %v, want %v", got, c.failed)
			}
			if got, want := ev.FindingCodes(), expand(c.codes); !slices.Equal(got, want) {
				t.Errorf("finding codes = %v, want %v", got, want)
			}
			if ev.Reliable() != (c.failed == nil) {
				t.Errorf("reliable = %v", ev.Reliable())
			}
		})
	}
}

// TestObauditCells: obaudit's engine adds the notification rule and
// changes nothing else: the four cells that end transferred after V2's
// failed transfer notice additionally fail recovery and obligations with
// exactly the two codes; every other cell grades as under 0.9.0.
func TestObauditCells(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cells {
		t.Run(c.variant+"/"+c.agent, func(t *testing.T) {
			_, up := runCell(t, spec, schemas.EngineUpstream, c.variant, c.agent)
			_, ob := runCell(t, spec, schemas.EngineObaudit, c.variant, c.agent)
			wantFailed, wantCodes := up.FailedDimensions(), up.FindingCodes()
			if c.variant == "V2" && c.status == "transferred_to_human_ownership" {
				wantFailed = nil
				for _, d := range evaluator.Dimensions() {
					if slices.Contains(up.FailedDimensions(), d) || d == evaluator.Recovery || d == evaluator.Obligations {
						wantFailed = append(wantFailed, d)
					}
				}
				wantCodes = nil
				for _, d := range up.Dimensions {
					for _, f := range d.Findings {
						wantCodes = append(wantCodes, f.Code)
					}
					switch d.Name {
					case evaluator.Recovery:
						wantCodes = append(wantCodes, "REQUIRED_NOTIFICATION_UNDELIVERED")
					case evaluator.Obligations:
						wantCodes = append(wantCodes, "OBLIGATION_MESSAGE_NOT_ESTABLISHED")
					}
				}
			}
			if got := ob.FailedDimensions(); !slices.Equal(got, wantFailed) {
				t.Errorf("failed = %v, want %v", got, wantFailed)
			}
			if got := ob.FindingCodes(); !slices.Equal(got, wantCodes) {
				t.Errorf("codes = %v, want %v", got, wantCodes)
			}
		})
	}
}

// TestEmittedCodesAreCatalogued: every finding code any of the 27 cells
// raises, under either engine, is in the evaluator's catalogue for the
// dimension that raised it (the catalogue the oracle loader checks codes
// against).
func TestEmittedCodesAreCatalogued(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range schemas.Engines() {
		catalogue := evaluator.FindingCodes(v)
		for _, c := range cells {
			_, ev := runCell(t, spec, v, c.variant, c.agent)
			for _, d := range ev.Dimensions {
				for _, f := range d.Findings {
					if !slices.Contains(catalogue[d.Name], f.Code) {
						t.Errorf("%s %s/%s: %s raised %s, which its catalogue lacks", v, c.variant, c.agent, d.Name, f.Code)
					}
				}
			}
		}
	}
}
