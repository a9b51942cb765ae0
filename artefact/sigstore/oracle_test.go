package sigstore

import (
	"context"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/obaudit/obaudit/artefact/sigstore/sigstoretest"
	"github.com/obaudit/obaudit/canon"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"google.golang.org/protobuf/encoding/protojson"
)

// TestSignStatementMatchesPkgSign: for the same key and statement, the
// deterministic KeySigner writes exactly the bundle bytes sigstore-go's
// sign.Bundle (DSSE content, key hint, no providers) gives after the same
// canonicalisation (protojson, then RFC 8785), for statements of many lengths and bytes.
func TestSignStatementMatchesPkgSign(t *testing.T) {
	for _, k := range []*ecdsa.PrivateKey{sigstoretest.GoldenKey(t), sigstoretest.NewKey(t)} {
		s, err := NewDeterministicKeySigner(k)
		if err != nil {
			t.Fatal(err)
		}
		// The hint as cosign writes it, computed here, not taken from s.
		der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(der)
		kp := &sigstoretest.Keypair{Priv: k, Hint: []byte(base64.StdEncoding.EncodeToString(h[:]))}
		stmts := []string{"", "{}", sigstoretest.Statement, sigstoretest.GoldenStatements["escaped"]}
		for n := 1; n < 300; n += 37 {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(i*7 + n)
			}
			stmts = append(stmts, string(b))
		}
		for i, stmt := range stmts {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				got, err := s.SignStatement(context.Background(), []byte(stmt))
				if err != nil {
					t.Fatal(err)
				}
				pb, err := sign.Bundle(&sign.DSSEData{Data: []byte(stmt), PayloadType: InTotoPayloadType}, kp, sign.BundleOptions{})
				if err != nil {
					t.Fatal(err)
				}
				raw, err := protojson.Marshal(pb)
				if err != nil {
					t.Fatal(err)
				}
				want, err := canon.Transform(raw)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != string(want) {
					t.Errorf("statement %d:\n got %s\nwant %s", i, got, want)
				}
			})
		}
	}
}
