package sigverify

import (
	"bytes"
	"context"
	"flag"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/artefact/sigstore/sigstoretest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current signer")

// TestBundleGolden holds the deterministic signer's bundle bytes for a
// fixed key and statement to testdata/bundle-<name>.golden.json. The
// goldens were written (-update) by the signer built on sigstore-go's
// pkg/sign (commit b85da9c), so the
// direct encoder that replaced it is held to that output byte for byte.
func TestBundleGolden(t *testing.T) {
	s, err := sigstore.NewDeterministicKeySigner(sigstoretest.GoldenKey(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, stmt := range sigstoretest.GoldenStatements {
		t.Run(name, func(t *testing.T) {
			got, err := s.SignStatement(context.Background(), []byte(stmt))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "bundle-"+name+".golden.json")
			want := upstreamtest.Golden(t, path, got, *update)
			if !bytes.Equal(got, want) {
				t.Errorf("bundle for %q:\n got %s\nwant %s", name, got, want)
			}
			// The golden is a bundle the verifier accepts for this key,
			// carrying the statement unchanged.
			out, err := keyVerifier(t, &sigstoretest.GoldenKey(t).PublicKey).VerifyStatement(context.Background(), want)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != stmt {
				t.Errorf("verified statement = %s, want %s", out, stmt)
			}
		})
	}
}
