package episode_test

import (
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/internal/cputime"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/schemas"
)

// BenchmarkReplay measures obaudit replay's library work on the upstream
// V1 artefacts: read and validate the file, re-execute the episode under
// engine 0.9.0 (twice: the determinism self-check), grade it, rebuild the
// artefact and compare every section on canonical bytes.
func BenchmarkReplay(b *testing.B) {
	for _, name := range []string{fixtureDet, fixtureModel} {
		b.Run(name, func(b *testing.B) {
			data := upstreamtest.Read(b, name)
			opts := testOptions()
			dom := operation(b, "V1")
			b.ReportAllocs()
			cputime.Report(b, func() {
				doc, err := artefact.Read(data, opts)
				if err != nil {
					b.Fatal(err)
				}
				r, err := episode.Replay(doc, episode.ReplayConfig{Domain: dom, Agents: registry})
				if err != nil || !r.OK() {
					b.Fatalf("replay: %v", err)
				}
			})
		})
	}
}

// BenchmarkRunAndWrite measures obaudit run --output's library work: one
// episode with its self-check, graded, built and encoded (validated before
// any byte is written).
func BenchmarkRunAndWrite(b *testing.B) {
	cfg := runConfig(b, "V1", "reference", schemas.EngineUpstream)
	opts := testOptions()
	b.ReportAllocs()
	cputime.Report(b, func() {
		res, err := episode.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := artefact.Encode(res.Artefact, opts); err != nil {
			b.Fatal(err)
		}
	})
}
