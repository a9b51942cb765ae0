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
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"
)

// InTotoPayloadType is the DSSE payload type of an in-toto Statement, the
// only payload type sigstore-go verifies in a DSSE envelope.
const InTotoPayloadType = "application/vnd.in-toto+json"

// KeySigner signs in-toto Statements with one ECDSA P-256 key, producing
// key-signed Sigstore bundles (no certificate, no transparency-log entry, no
// timestamp: nothing leaves the machine).
type KeySigner struct {
	kp *fileKeypair
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
	alg, err := signature.GetAlgorithmDetails(protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	h := sha256.Sum256(der)
	return &KeySigner{kp: &fileKeypair{
		priv:   key,
		alg:    alg,
		hint:   []byte(base64.StdEncoding.EncodeToString(h[:])),
		random: random,
	}}, nil
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
func (s *KeySigner) PublicKey() *ecdsa.PublicKey { return &s.kp.priv.PublicKey }

// SignStatement wraps statement (the exact bytes of an in-toto Statement) in
// a DSSE envelope, signs it, and returns the Sigstore v0.3 bundle as RFC
// 8785 canonical JSON.
func (s *KeySigner) SignStatement(ctx context.Context, statement []byte) ([]byte, error) {
	pb, err := sign.Bundle(&sign.DSSEData{Data: statement, PayloadType: InTotoPayloadType}, s.kp, sign.BundleOptions{Context: ctx})
	if err != nil {
		return nil, err
	}
	raw, err := protojson.Marshal(pb)
	if err != nil {
		return nil, err
	}
	return canon.Transform(raw)
}

// fileKeypair is a sign.Keypair over a long-lived key (sigstore-go ships
// only an ephemeral one).
type fileKeypair struct {
	priv   *ecdsa.PrivateKey
	alg    signature.AlgorithmDetails
	hint   []byte
	random io.Reader
}

func (k *fileKeypair) GetHashAlgorithm() protocommon.HashAlgorithm { return k.alg.GetProtoHashType() }
func (k *fileKeypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return k.alg.GetSignatureAlgorithm()
}
func (k *fileKeypair) GetHint() []byte                { return k.hint }
func (k *fileKeypair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *fileKeypair) GetPublicKey() crypto.PublicKey { return k.priv.Public() }
func (k *fileKeypair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.priv.Public())
	return string(b), err
}

// SignData signs the SHA-256 of data and returns (signature, digest).
func (k *fileKeypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	d := sha256.Sum256(data)
	if k.random == nil {
		// RFC 6979: the nonce is derived from the key and the digest.
		sig, err := k.priv.Sign(nil, d[:], crypto.SHA256)
		return sig, d[:], err
	}
	sig, err := ecdsa.SignASN1(k.random, k.priv, d[:])
	return sig, d[:], err
}
