package gate_test

import (
	"testing"

	"github.com/obaudit/obaudit/gate"
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
				reportCPU(b, func() {
					r, err := gate.Run(gate.Options{Spec: spec, Oracle: m, EngineVersion: v, Sequential: mode.sequential})
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
