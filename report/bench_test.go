package report

import (
	"testing"

	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkReportV1 derives and renders both forms of the V1 reference
// artefact (reading and validating it is the caller's, and not measured
// here).
func BenchmarkReportV1(b *testing.B) {
	raw := upstreamtest.Read(b, v1Fixture)
	doc := artefacttest.Read(b, raw)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Build(doc, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r.HTML()
		r.Text()
	}
}
