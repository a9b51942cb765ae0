package maintenance_test

import (
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/schemas"
)

// BenchmarkReferenceV1 is one reference V1 episode including the
// determinism self-check rerun (two executions), as `obaudit run` does it.
func BenchmarkReferenceV1(b *testing.B) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		b.Fatal(err)
	}
	op, err := maintenance.NewOperation(spec, "V1")
	if err != nil {
		b.Fatal(err)
	}
	cfg := engine.Config{
		Domain: op, NewAgent: func() engine.Agent { return maintenance.NewReference() },
		AgentID: "reference", AgentKind: "reference", OperationInstanceID: pinnedInstance,
		EngineVersion: schemas.EngineUpstream, SelfCheck: engine.SelfCheckRerun,
	}
	b.ReportAllocs()
	for b.Loop() {
		ep, err := engine.Run(cfg)
		if err != nil || ep.ReplayOK == nil || !*ep.ReplayOK {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}
