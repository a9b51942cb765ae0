package maintenance_test

import (
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/schemas"
)

// BenchmarkReferenceV1 is one reference V1 episode including the
// determinism self-check rerun (two executions), as `obaudit run` does it.
func BenchmarkReferenceV1(b *testing.B) {
	cfg := engine.Config{
		Domain: defaultOp(b, "V1"), NewAgent: func() engine.Agent { return maintenance.NewReference() },
		AgentID: "reference", AgentKind: "reference", OperationInstanceID: pinnedInstance,
		EngineVersion: schemas.EngineUpstream, SelfCheck: engine.SelfCheckRerun,
	}
	b.ReportAllocs()
	cputime.Report(b, func() {
		ep, err := engine.Run(cfg)
		if err != nil || ep.ReplayOK == nil || !*ep.ReplayOK {
			b.Fatal(err)
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "episodes/s")
}

// BenchmarkExecuteV1 is one execution of the reference V1 episode (no
// self-check), recording the full trajectory and decision tape.
func BenchmarkExecuteV1(b *testing.B) {
	op := defaultOp(b, "V1")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := engine.Execute(op, maintenance.NewReference(), pinnedInstance); err != nil {
			b.Fatal(err)
		}
	}
}
