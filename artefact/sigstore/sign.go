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
	"strconv"

	"github.com/obaudit/obaudit/canon"
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
// 8785 canonical JSON: the protobuf JSON form of the bundle (protojson's
// names; bytes as padded standard base64), written directly, so signing
// links no protobuf runtime (TestSignStatementMatchesPkgSign holds it to
// sigstore-go's pkg/sign through protojson, byte for byte). The signature is ECDSA P-256 over the SHA-256 of the
// envelope's pre-authentication encoding ([pae], the encoding
// sigstore-go's verifier rebuilds); nothing is contacted, so ctx is unused.
func (s *KeySigner) SignStatement(_ context.Context, statement []byte) ([]byte, error) {
	sig, err := s.sign(pae(InTotoPayloadType, statement))
	if err != nil {
		return nil, err
	}
	env := map[string]any{
		"payloadType": InTotoPayloadType,
		"signatures":  []any{map[string]any{"sig": base64.StdEncoding.EncodeToString(sig)}},
	}
	if len(statement) > 0 { // proto3: an empty field is not written
		env["payload"] = base64.StdEncoding.EncodeToString(statement)
	}
	return canon.JCS(map[string]any{
		"mediaType":            bundleMediaType,
		"verificationMaterial": map[string]any{"publicKey": map[string]any{"hint": s.hint}},
		"dsseEnvelope":         env,
	})
}

// pae is DSSE's pre-authentication encoding of a payload: "DSSEv1", the
// payload type's length and bytes, the payload's length and bytes, joined by
// single spaces (lengths in decimal). go-securesystemslib's dsse.PAE is the
// same; this package does not import it because it links golang.org/x/crypto/ssh
// (TestPAE holds the two equal).
func pae(payloadType string, payload []byte) []byte {
	b := make([]byte, 0, len("DSSEv1 ")+len(payloadType)+len(payload)+42)
	b = append(b, "DSSEv1 "...)
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(b, ' ')
	b = append(b, payloadType...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(payload)), 10)
	b = append(b, ' ')
	return append(b, payload...)
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
