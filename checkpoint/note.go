package checkpoint

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/mod/sumdb/note"
)

// ecdsaKeyHash is the key ID of C2SP signed-note signature type 0x02
// (ECDSA, as implemented by github.com/transparency-dev/witness): the first
// four bytes of SHA-256 of the PKIX DER public key.
func ecdsaKeyHash(pub *ecdsa.PublicKey) (uint32, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return 0, err
	}
	h := sha256.Sum256(der)
	return binary.BigEndian.Uint32(h[:4]), nil
}

// ValidOrigin reports whether s can name a campaign: a valid signed-note
// key name (non-empty UTF-8 without spaces or "+") that does not begin with
// "DSSEv1" (see the package doc).
func ValidOrigin(s string) bool {
	return s != "" && utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsSpace) < 0 &&
		!strings.Contains(s, "+") && !strings.HasPrefix(s, "DSSEv1") && strings.IndexFunc(s, unicode.IsControl) < 0
}

type noteSigner struct {
	name   string
	hash   uint32
	key    *ecdsa.PrivateKey
	random io.Reader
}

// NewNoteSigner returns a signed-note signer (type 0x02, ECDSA P-256 over
// SHA-256) named name. random supplies ECDSA nonce randomness.
func NewNoteSigner(name string, key *ecdsa.PrivateKey, random io.Reader) (note.Signer, error) {
	if !ValidOrigin(name) {
		return nil, errors.New("checkpoint: invalid key name")
	}
	if key == nil || key.Curve != elliptic.P256() || random == nil {
		return nil, errors.New("checkpoint: NewNoteSigner needs an ECDSA P-256 key and randomness")
	}
	h, err := ecdsaKeyHash(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	return &noteSigner{name: name, hash: h, key: key, random: random}, nil
}

func (s *noteSigner) Name() string    { return s.name }
func (s *noteSigner) KeyHash() uint32 { return s.hash }
func (s *noteSigner) Sign(msg []byte) ([]byte, error) {
	d := sha256.Sum256(msg)
	return ecdsa.SignASN1(s.random, s.key, d[:])
}

type noteVerifier struct {
	name string
	hash uint32
	pub  *ecdsa.PublicKey
}

// NewNoteVerifier returns the signed-note verifier matching
// [NewNoteSigner] for pub under name.
func NewNoteVerifier(name string, pub *ecdsa.PublicKey) (note.Verifier, error) {
	if pub == nil || pub.Curve != elliptic.P256() {
		return nil, errors.New("checkpoint: NewNoteVerifier needs an ECDSA P-256 key")
	}
	h, err := ecdsaKeyHash(pub)
	if err != nil {
		return nil, err
	}
	return &noteVerifier{name: name, hash: h, pub: pub}, nil
}

func (v *noteVerifier) Name() string    { return v.name }
func (v *noteVerifier) KeyHash() uint32 { return v.hash }
func (v *noteVerifier) Verify(msg, sig []byte) bool {
	d := sha256.Sum256(msg)
	return ecdsa.VerifyASN1(v.pub, d[:], sig)
}
