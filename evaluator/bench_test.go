package evaluator_test

import (
	"testing"

	"github.com/obaudit/obaudit/evaluator"
	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/schemas"
)

// BenchmarkEvaluateV1 is the per-episode evaluation cost of the largest
// reference run (V1: 306 trajectory rows, 157 served reads whose versions
// are recomputed).
func BenchmarkEvaluateV1(b *testing.B) {
	doc := loadArtefact(b, fixtureV1)
	r := runOf(b, doc, yes())
	c := maintenanceContract("V1")
	for _, e := range schemas.Engines() {
		b.Run(e, func(b *testing.B) {
			b.ReportAllocs()
			cputime.Report(b, func() {
				if _, err := evaluator.Evaluate(e, c, r); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
