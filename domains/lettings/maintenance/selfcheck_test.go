package maintenance_test

import (
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/domains/lettings/maintenance/negative"
	"github.com/obaudit/obaudit/engine"
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
// (under both self-check modes) when nothing differs.
func TestSelfCheckDetectsDivergence(t *testing.T) {
	spec, _ := maintenance.DefaultSpec()
	op, _ := maintenance.NewOperation(spec, "V1")
	run := func(d engine.Domain, newAgent func() engine.Agent, mode engine.SelfCheck) bool {
		t.Helper()
		ep, err := engine.Run(engine.Config{Domain: d, NewAgent: newAgent, AgentID: "reference", AgentKind: "reference",
			OperationInstanceID: pinnedInstance, EngineVersion: schemas.EngineUpstream, SelfCheck: mode})
		if err != nil {
			t.Fatal(err)
		}
		return *ep.ReplayOK
	}
	ref := func() engine.Agent { return maintenance.NewReference() }
	for _, mode := range []engine.SelfCheck{engine.SelfCheckRerun, engine.SelfCheckPlayback} {
		if !run(op, ref, mode) {
			t.Errorf("mode %d: an unchanged rerun diverged", mode)
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
		t.Error("a rerun with a different agent matched")
	}
	for _, skew := range []string{"final", "row"} {
		n := 0
		if run(skewDomain{op, &n, skew}, ref, engine.SelfCheckRerun) {
			t.Errorf("a rerun with a skewed %s matched", skew)
		}
		n = 0
		if !run(skewDomain{op, &n, "none"}, ref, engine.SelfCheckRerun) {
			t.Errorf("the wrapper alone made the rerun diverge")
		}
	}
}
