package agentrun

import (
	"testing"

	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkExportV1 maps the 220 KB V1 reference artefact to an Agent Run
// record and checks it against the compiled schema (reading and validating
// the artefact is the caller's, and not measured here).
func BenchmarkExportV1(b *testing.B) {
	raw := upstreamtest.Read(b, v1Fixture)
	s := defaultSchema(b)
	doc := artefacttest.Read(b, raw)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Export(doc, defaultOp(), s); err != nil {
			b.Fatal(err)
		}
	}
}
