package sigstore

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"

	"github.com/obaudit/obaudit/canon"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	"google.golang.org/protobuf/encoding/protojson"
)

// InTotoPayloadType is the DSSE payload type of an in-toto Statement, the
// only payload type sigstore-go verifies in a DSSE envelope.
const InTotoPayloadType = "application/vnd.in-toto+json"

// bundleMediaType is the media type of the bundles obaudit writes.
const bundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"

// KeySigner signs in-toto Statements with one ECDSA P-256 key, producing
// key-signed Sigstore bundles (no certificate, no transparency-log entry, no
// timestamp: nothing leaves the machine).
type KeySigner struct {
	priv *ecdsa.PrivateKey
	// hint is the bundle's public-key hint: the base64 SHA-256 of the
	// key's PKIX DER (verifiers ignore it; cosign writes the same).
	hint string
	// random is the ECDSA nonce source; nil means RFC 6979 nonces.
	random io.Reader
}

// NewKeySigner returns a signer for key. random is the source of ECDSA
// nonce randomness (crypto/rand.Reader in the binary).
func NewKeySigner(key *ecdsa.PrivateKey, random io.Reader) (*KeySigner, error) {
	if key == nil || random == nil {
		return nil, errors.New("sigstore: NewKeySigner needs a key and a randomness source")
	}
	return newKeySigner(key, random)
}

func newKeySigner(key *ecdsa.PrivateKey, random io.Reader) (*KeySigner, error) {
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(der)
	return &KeySigner{priv: key, hint: base64.StdEncoding.EncodeToString(h[:]), random: random}, nil
}

// NewDeterministicKeySigner returns a signer for key whose ECDSA nonces are
// derived from the key and the signed digest (RFC 6979), so the same
// statement signed twice is the same bundle byte for byte. Campaign run
// commitments use it: a campaign run on one machine and the same plan run
// in shards give the same files, log and report.
func NewDeterministicKeySigner(key *ecdsa.PrivateKey) (*KeySigner, error) {
	if key == nil {
		return nil, errors.New("sigstore: NewDeterministicKeySigner needs a key")
	}
	return newKeySigner(key, nil)
}

// PublicKey returns the signer's public key.
func (s *KeySigner) PublicKey() *ecdsa.PublicKey { return &s.priv.PublicKey }

// SignStatement wraps statement (the exact bytes of an in-toto Statement) in
// a DSSE envelope, signs it, and returns the Sigstore v0.3 bundle as RFC
// 8785 canonical JSON. The signature is ECDSA P-256 over the SHA-256 of the
// envelope's pre-authentication encoding (dsse.PAE, the encoding
// sigstore-go's verifier rebuilds); nothing is contacted, so ctx is unused.
func (s *KeySigner) SignStatement(_ context.Context, statement []byte) ([]byte, error) {
	sig, err := s.sign(dsse.PAE(InTotoPayloadType, statement))
	if err != nil {
		return nil, err
	}
	pb := &protobundle.Bundle{
		MediaType: bundleMediaType,
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content: &protobundle.VerificationMaterial_PublicKey{
				PublicKey: &protocommon.PublicKeyIdentifier{Hint: s.hint},
			},
		},
		Content: &protobundle.Bundle_DsseEnvelope{
			DsseEnvelope: &protodsse.Envelope{
				Payload:     statement,
				PayloadType: InTotoPayloadType,
				Signatures:  []*protodsse.Signature{{Sig: sig}},
			},
		},
	}
	return encodeBundle(pb)
}

// encodeBundle is a bundle's bytes: its protobuf JSON form, canonicalised
// (RFC 8785), so the same bundle always has the same bytes.
func encodeBundle(pb *protobundle.Bundle) ([]byte, error) {
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, err
	}
	return canon.Transform(raw)
}

// sign returns the ASN.1 ECDSA signature of the SHA-256 of data.
func (s *KeySigner) sign(data []byte) ([]byte, error) {
	d := sha256.Sum256(data)
	if s.random == nil {
		// RFC 6979: the nonce is derived from the key and the digest.
		return s.priv.Sign(nil, d[:], crypto.SHA256)
	}
	return ecdsa.SignASN1(s.random, s.priv, d[:])
}
