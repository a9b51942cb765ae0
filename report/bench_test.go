package report

import (
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkReportV1 reads the V1 reference artefact and renders both forms
// (artefact validation is injected and not measured here).
func BenchmarkReportV1(b *testing.B) {
	raw := upstreamtest.Read(b, v1Fixture)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Build(raw, accept, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.HTML()
		r.Text()
	}
}
