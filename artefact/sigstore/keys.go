package sigstore

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"io"

	"github.com/obaudit/obaudit/refusal"
)

// MaxKeyFileBytes bounds a PEM key file.
const MaxKeyFileBytes = 64 << 10

// GenerateKey returns a new ECDSA P-256 key drawn from random.
func GenerateKey(random io.Reader) (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), random)
}

// MarshalPrivateKey encodes k as an unencrypted PKCS#8 "PRIVATE KEY" PEM
// block.
func MarshalPrivateKey(k *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// MarshalPublicKey encodes pub as a PKIX "PUBLIC KEY" PEM block (the form
// cosign's --key reads).
func MarshalPublicKey(pub *ecdsa.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// KeyID returns the hex SHA-256 of pub's PKIX DER encoding, the key's
// fingerprint in reports.
func KeyID(pub *ecdsa.PublicKey) string {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return ""
	}
	h := sha256.Sum256(der)
	return hex.EncodeToString(h[:])
}

// onePEM returns the single PEM block in b, refusing trailing data and
// oversized input.
func onePEM(b []byte, what string) (*pem.Block, error) {
	if len(b) > MaxKeyFileBytes {
		return nil, refusal.New(ErrKeyInvalid, "%s: %d bytes is more than %d", what, len(b), MaxKeyFileBytes)
	}
	blk, rest := pem.Decode(b)
	if blk == nil {
		return nil, refusal.New(ErrKeyInvalid, "%s: no PEM block", what)
	}
	if len(bytes.Trim(rest, "\n\r \t")) != 0 {
		return nil, refusal.New(ErrKeyInvalid, "%s: data after the PEM block", what)
	}
	if len(blk.Headers) != 0 {
		return nil, refusal.New(ErrKeyInvalid, "%s: PEM headers (an encrypted key?) are not supported", what)
	}
	return blk, nil
}

// ParsePrivateKey reads an unencrypted ECDSA P-256 private key from PEM:
// PKCS#8 "PRIVATE KEY" or SEC 1 "EC PRIVATE KEY". Anything else is refused:
// [ErrKeyInvalid] for what does not parse (including encrypted keys, such as
// cosign's own key files), [ErrKeyUnsupported] for another algorithm or
// curve.
func ParsePrivateKey(b []byte) (*ecdsa.PrivateKey, error) {
	blk, err := onePEM(b, "private key")
	if err != nil {
		return nil, err
	}
	var key any
	switch blk.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(blk.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(blk.Bytes)
	default:
		return nil, refusal.New(ErrKeyInvalid, "private key: PEM type %q is not an unencrypted private key", blk.Type)
	}
	if err != nil {
		return nil, refusal.Because(ErrKeyInvalid, err, "private key: the PEM block's bytes are not a DER private key (damaged or cut short?); use the PREFIX.key obaudit keygen wrote")
	}
	k, ok := key.(*ecdsa.PrivateKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, refusal.New(ErrKeyUnsupported, "private key: %T is not ECDSA P-256", key)
	}
	return k, nil
}

// ParsePublicKey reads an ECDSA P-256 public key from a PKIX "PUBLIC KEY"
// PEM block ([ErrKeyInvalid], [ErrKeyUnsupported] as for [ParsePrivateKey]).
func ParsePublicKey(b []byte) (*ecdsa.PublicKey, error) {
	blk, err := onePEM(b, "public key")
	if err != nil {
		return nil, err
	}
	if blk.Type != "PUBLIC KEY" {
		return nil, refusal.New(ErrKeyInvalid, "public key: PEM type %q is not PUBLIC KEY", blk.Type)
	}
	key, err := x509.ParsePKIXPublicKey(blk.Bytes)
	if err != nil {
		return nil, refusal.Because(ErrKeyInvalid, err, "public key: the PEM block's bytes are not a DER PKIX public key (damaged or cut short?); use the PREFIX.pub obaudit keygen wrote")
	}
	k, ok := key.(*ecdsa.PublicKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, refusal.New(ErrKeyUnsupported, "public key: %T is not ECDSA P-256", key)
	}
	return k, nil
}
