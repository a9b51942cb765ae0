package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/campaign/campaigntest"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// BenchmarkCommitCommand10000 times `obaudit commit` over a directory of
// 10,000 commitment bundles, as a release manager runs it: every bundle is
// read and verified as a run commitment, the tree and checkpoint are built
// and signed, and 10,001 files are written (each created exclusively and
// fsynced, with its directory). The bundles are 10,000 signatures of the
// upstream model run's commitment (ECDSA is randomised, so each differs).
func BenchmarkCommitCommand10000(b *testing.B) {
	const n = 10000
	dir := campaigntest.TempDir(b)
	in := commitment.Inputs{
		ArtefactName: "model.json", Artefact: upstreamtest.Read(b, "artifact8-fake-openai-reference-v1.json"),
		LedgerName: "model.ndjson", Ledger: upstreamtest.Read(b, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"),
	}
	k, err := sigstore.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	s, _ := sigstore.NewKeySigner(k, rand.Reader)
	st, err := commitment.New(context.Background(), in, commitment.Options{ObauditVersion: toolkitVersion})
	if err != nil {
		b.Fatal(err)
	}
	stmt, _ := st.Marshal()
	bundles := filepath.Join(dir, "bundles")
	os.Mkdir(bundles, 0o755)
	for i := 0; i < n; i++ {
		bb, err := s.SignStatement(context.Background(), stmt)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bundles, fmt.Sprintf("ep%05d.sigstore.json", i)), bb, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	priv, _ := sigstore.MarshalPrivateKey(k)
	keyPath := filepath.Join(dir, "release.key")
	os.WriteFile(keyPath, priv, 0o600)
	round := 0
	for b.Loop() {
		out := filepath.Join(dir, fmt.Sprintf("camp%d", round))
		round++
		if code := run(context.Background(), []string{"commit", "--key", keyPath, "--origin", "obaudit.example/bench", "--output", out, bundles},
			nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("obaudit commit exited %d", code)
		}
	}
}
