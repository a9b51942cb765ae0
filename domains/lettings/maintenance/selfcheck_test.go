package maintenance_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/agents"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/negative"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// skewDomain hands out states whose second instance (the rerun's) differs
// from the first in one way.
type skewDomain struct {
	engine.Domain
	n    *int
	skew string // "final": one more final-state key; "row": one more trajectory row
}

func (d skewDomain) NewState() engine.State {
	*d.n++
	return skewState{d.Domain.NewState(), *d.n == 2, d.skew}
}

type skewState struct {
	engine.State
	on   bool
	skew string
}

func (s skewState) Canonical() map[string]any {
	m := s.State.Canonical()
	if s.on && s.skew == "final" {
		m["zz_skew"] = true
	}
	return m
}

func (s skewState) AppendCanonical(dst []byte) []byte {
	b := s.State.(engine.StateEncoder).AppendCanonical(dst)
	if s.on && s.skew == "final" {
		b = append(b[:len(b)-1], `,"zz_skew":true}`...)
	}
	return b
}

func (s skewState) ApplyTerminal(ctx *engine.Context, refs []string) engine.Verdict {
	v := s.State.ApplyTerminal(ctx, refs)
	if s.on && s.skew == "row" {
		ctx.Record("side_effect", map[string]any{"channel": "skew"})
	}
	return v
}

// TestSelfCheckDetectsDivergence: the rerun reports a divergence when the
// second execution's agent, trajectory or final state differs, and agrees
// (under both self-check modes) when nothing differs; the rerun's verdicts
// are the same when the first execution takes no digests.
func TestSelfCheckDetectsDivergence(t *testing.T) {
	spec, _ := maintenance.DefaultSpec()
	op, _ := maintenance.NewOperation(spec, "V1")
	for _, noDigests := range []bool{false, true} {
		run := func(d engine.Domain, newAgent func() engine.Agent, mode engine.SelfCheck) bool {
			t.Helper()
			ep, err := engine.Run(engine.Config{Domain: d, NewAgent: newAgent, AgentID: "reference", AgentKind: "reference",
				OperationInstanceID: pinnedInstance, EngineVersion: schemas.EngineUpstream, SelfCheck: mode, NoDigests: noDigests})
			if err != nil {
				t.Fatal(err)
			}
			return *ep.ReplayOK
		}
		ref := func() engine.Agent { return maintenance.NewReference() }
		modes := []engine.SelfCheck{engine.SelfCheckRerun, engine.SelfCheckPlayback}
		if noDigests {
			modes = modes[:1] // refused: TestNoDigests
		}
		for _, mode := range modes {
			if !run(op, ref, mode) {
				t.Errorf("mode %d, no digests %v: an unchanged rerun diverged", mode, noDigests)
			}
		}
		calls := 0
		flaky := func() engine.Agent {
			calls++
			if calls == 2 {
				return negative.New(negative.CompleteEarly)
			}
			return maintenance.NewReference()
		}
		if run(op, flaky, engine.SelfCheckRerun) {
			t.Errorf("no digests %v: a rerun with a different agent matched", noDigests)
		}
		for _, skew := range []string{"final", "row"} {
			n := 0
			if run(skewDomain{op, &n, skew}, ref, engine.SelfCheckRerun) {
				t.Errorf("no digests %v: a rerun with a skewed %s matched", noDigests, skew)
			}
			n = 0
			if !run(skewDomain{op, &n, "none"}, ref, engine.SelfCheckRerun) {
				t.Errorf("no digests %v: the wrapper alone made the rerun diverge", noDigests)
			}
		}
	}
}

// TestNoDigests: an episode run with NoDigests is the full episode without
// its decision tape, observation digests and three digests, for every agent
// on every variant; the playback self-check, which needs them, refuses it.
func TestNoDigests(t *testing.T) {
	eachCell(t, func(t *testing.T, e agents.Entry, op *maintenance.Operation) {
		run := func(noDigests bool) *engine.Episode {
			ep, err := engine.Run(engine.Config{Domain: op, NewAgent: e.New, AgentID: e.ID, AgentKind: e.Kind,
				OperationInstanceID: pinnedInstance, EngineVersion: schemas.EngineObaudit, SelfCheck: engine.SelfCheckRerun, NoDigests: noDigests})
			if err != nil {
				t.Fatal(err)
			}
			return ep
		}
		full, bare := run(false), run(true)
		if bare.TrajectoryDigest != "" || bare.FinalStateDigest != "" || bare.DecisionsDigest != "" ||
			len(bare.Decisions) != 0 || len(bare.ObservationDigests) != 0 {
			t.Error("NoDigests kept a digest or the tape")
		}
		if full.TrajectoryDigest == "" || len(full.Decisions) == 0 {
			t.Error("the full run has no digests")
		}
		full.Decisions, full.ObservationDigests = bare.Decisions, bare.ObservationDigests
		full.TrajectoryDigest, full.FinalStateDigest, full.DecisionsDigest = "", "", ""
		if !bytes.Equal(episodeBytes(t, full), episodeBytes(t, bare)) || !reflect.DeepEqual(full, bare) {
			t.Error("NoDigests changed the episode")
		}
	})
	spec, _ := maintenance.DefaultSpec()
	op, _ := maintenance.NewOperation(spec, "V1")
	_, err := engine.Run(engine.Config{Domain: op, NewAgent: func() engine.Agent { return maintenance.NewReference() }, AgentID: "reference", AgentKind: "reference",
		OperationInstanceID: pinnedInstance, EngineVersion: schemas.EngineObaudit, SelfCheck: engine.SelfCheckPlayback, NoDigests: true})
	if got, _ := refusal.ClassOf(err); got != "engine/config" {
		t.Errorf("playback with NoDigests: class %q, want engine/config (%v)", got, err)
	}
}
