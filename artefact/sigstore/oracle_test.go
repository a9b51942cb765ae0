package sigstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"testing"

	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
)

// oracleKeypair is a sigstore-go sign.Keypair over a long-lived key, so
// tests can have sigstore-go's own signer (pkg/sign, which the binary no
// longer links) write a bundle to hold KeySigner to. random nil means RFC
// 6979 nonces, as for [NewDeterministicKeySigner].
type oracleKeypair struct {
	priv   *ecdsa.PrivateKey
	hint   []byte
	random io.Reader
}

func (k *oracleKeypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}
func (k *oracleKeypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}
func (k *oracleKeypair) GetHint() []byte                { return k.hint }
func (k *oracleKeypair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *oracleKeypair) GetPublicKey() crypto.PublicKey { return k.priv.Public() }
func (k *oracleKeypair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.priv.Public())
	return string(b), err
}
func (k *oracleKeypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	d := sha256.Sum256(data)
	if k.random == nil {
		sig, err := k.priv.Sign(nil, d[:], crypto.SHA256)
		return sig, d[:], err
	}
	sig, err := ecdsa.SignASN1(k.random, k.priv, d[:])
	return sig, d[:], err
}

// TestSignStatementMatchesPkgSign: for the same key and statement, the
// deterministic KeySigner writes exactly the bundle bytes sigstore-go's
// sign.Bundle (DSSE content, key hint, no providers) gives after the same
// canonicalisation ([encodeBundle]), for statements of many lengths and bytes.
func TestSignStatementMatchesPkgSign(t *testing.T) {
	for _, k := range []*ecdsa.PrivateKey{goldenKey(t), newKey(t)} {
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
		kp := &oracleKeypair{priv: k, hint: []byte(base64.StdEncoding.EncodeToString(h[:]))}
		stmts := []string{"", "{}", testStatement, goldenStatements["escaped"]}
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
				want, err := encodeBundle(pb)
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
