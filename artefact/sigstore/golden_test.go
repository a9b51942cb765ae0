package sigstore

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"encoding/hex"
	"flag"
	"path/filepath"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current signer")

// goldenKey is a fixed P-256 test key (its scalar), so the deterministic
// signer's bundles are fixed bytes.
func goldenKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	d, _ := hex.DecodeString("3a1f0c5e9b7d2468ace013579bdf02468ace13579bdf02468ace13579bdf0246")
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// goldenStatements are the statements held to testdata: a plain one and
// one whose bytes exercise JSON escaping and non-ASCII text inside the
// payload (the payload is carried as base64, so neither may leak into the
// envelope's encoding).
var goldenStatements = map[string]string{
	"plain":   testStatement,
	"escaped": `{"_type":"https://in-toto.io/Statement/v1","predicate":{"note":"caf\u00e9 \"q\" \\ <&> \u2028 café"},"predicateType":"https://example.test/p/v1","subject":[{"digest":{"sha256":"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},"name":"ü.json"}]}`,
}

// TestBundleGolden holds the deterministic signer's bundle bytes for a
// fixed key and statement to testdata/bundle-<name>.golden.json. The
// goldens were written (-update) by the signer built on sigstore-go's
// pkg/sign (commit b85da9c), so the
// direct encoder that replaced it is held to that output byte for byte.
func TestBundleGolden(t *testing.T) {
	s, err := NewDeterministicKeySigner(goldenKey(t))
	if err != nil {
		t.Fatal(err)
	}
	for name, stmt := range goldenStatements {
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
			out, err := keyVerifier(t, &goldenKey(t).PublicKey).VerifyStatement(context.Background(), want)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != stmt {
				t.Errorf("verified statement = %s, want %s", out, stmt)
			}
		})
	}
}
