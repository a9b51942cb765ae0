package gate_test

import (
	"testing"

	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/gate"
	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/schemas"
)

// BenchmarkGate is the whole gate: 11 episodes, each executed twice (the
// determinism self-check), graded, and the report rendered (text and
// JSON tree). The spec and the oracle are loaded once, as a process does.
func BenchmarkGate(b *testing.B) {
	spec, m := defaults(b)
	for _, v := range schemas.Engines() {
		for _, mode := range []struct {
			name       string
			sequential bool
		}{{"parallel", false}, {"sequential", true}} {
			b.Run(v+"/"+mode.name, func(b *testing.B) {
				b.ReportAllocs()
				cputime.Report(b, func() {
					r, err := gate.Run(gate.Options{Subject: subject(b, spec, m), EngineVersion: v, Sequential: mode.sequential})
					if err != nil || !r.OK {
						b.Fatalf("gate: %v ok=%v", err, r != nil && r.OK)
					}
					_ = r.Text()
					_ = r.Tree()
				})
			})
		}
	}
}

// BenchmarkEvaluateEpisode is the per-episode evaluation cost inside the
// gate: grading an engine-produced episode (whose served records the
// runtime shares between rows while they have not moved), per cell.
func BenchmarkEvaluateEpisode(b *testing.B) {
	spec, _ := defaults(b)
	for _, cell := range []struct{ variant, agent string }{{"V1", "reference"}, {"V2", "reference"}, {"V3", "reference"}, {"V1", "complete_early"}, {"V1", "trust_actor_claim"}} {
		b.Run(cell.variant+"/"+cell.agent, func(b *testing.B) {
			ep := runEpisode(b, spec, schemas.EngineObaudit, cell.variant, cell.agent)
			c, err := contract(spec, cell.variant)
			if err != nil {
				b.Fatal(err)
			}
			run := evaluator.RunOf(ep)
			b.ReportAllocs()
			cputime.Report(b, func() {
				if _, err := evaluator.Evaluate(schemas.EngineObaudit, c, run); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
