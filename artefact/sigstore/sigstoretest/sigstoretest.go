// Package sigstoretest is an offline, in-process Sigstore for tests. It signs
// in-toto Statements keylessly with sigstore-go's VirtualSigstore (a Fulcio
// certificate authority, a Rekor log and an RFC 3161 timestamp authority,
// all in memory) and renders the results as the files obaudit verify reads:
// a v0.3 bundle (certificate, DSSE envelope, RFC 3161 timestamp, a
// transparency-log entry with its inclusion proof and a re-created signed
// entry timestamp) and the trusted root JSON. Nothing touches the network.
//
// It lives under artefact/sigstore because sigstore-go is quarantined there,
// and it is imported only by tests (repo_test.go holds both).
//
// Times: a VirtualSigstore's leaf certificates are valid for ten minutes from
// the moment they are made (the wall clock), its logs and authorities for an
// hour either side of its creation; the log's integrated time is the caller's
// at, so a caller picks now+5m for a valid signature and now+30m for one made
// with an expired certificate.
package sigstoretest

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"io"
	"testing"
	"time"

	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protodsse "github.com/sigstore/protobuf-specs/gen/pb-go/dsse"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/sigstore/sigstore/pkg/cryptoutils"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Sigstore is one in-memory Sigstore instance: its own certificate
// authority, log and timestamp authority.
type Sigstore struct {
	// VS is the underlying VirtualSigstore.
	VS *ca.VirtualSigstore
}

// New makes a fresh Sigstore instance.
func New(tb testing.TB) *Sigstore {
	tb.Helper()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		tb.Fatal(err)
	}
	return &Sigstore{VS: vs}
}

// Attest signs statement (payload type application/vnd.in-toto+json) with a
// fresh leaf certificate for subject and issuer, logged at integrated time at.
func (s *Sigstore) Attest(tb testing.TB, subject, issuer string, statement []byte, at time.Time) *ca.TestEntity {
	tb.Helper()
	ent, err := s.VS.AttestAtTime(subject, issuer, statement, at, true)
	if err != nil {
		tb.Fatal(err)
	}
	return ent
}

// Bundle renders an attestation as a v0.3 Sigstore bundle file (protojson).
func (s *Sigstore) Bundle(tb testing.TB, ent *ca.TestEntity) []byte {
	tb.Helper()
	b, err := s.bundle(ent)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func (s *Sigstore) bundle(ent *ca.TestEntity) ([]byte, error) {
	vc, err := ent.VerificationContent()
	if err != nil {
		return nil, err
	}
	c, ok := vc.(*bundle.Certificate)
	if !ok {
		return nil, errors.New("sigstoretest: the entity carries no certificate")
	}
	sc, err := ent.SignatureContent()
	if err != nil {
		return nil, err
	}
	ec := sc.EnvelopeContent()
	if ec == nil {
		return nil, errors.New("sigstoretest: the entity carries no DSSE envelope")
	}
	env := ec.RawEnvelope()
	payload, err := base64.StdEncoding.DecodeString(env.Payload)
	if err != nil {
		return nil, err
	}
	sig, err := base64.StdEncoding.DecodeString(env.Signatures[0].Sig)
	if err != nil {
		return nil, err
	}
	tss, err := ent.Timestamps()
	if err != nil {
		return nil, err
	}
	entries, err := ent.TlogEntries()
	if err != nil || len(entries) == 0 {
		return nil, errors.Join(errors.New("sigstoretest: the entity carries no log entry"), err)
	}
	tle := proto.Clone(entries[0].TransparencyLogEntry()).(*protorekor.TransparencyLogEntry)
	tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
	logID, err := s.VS.RekorLogID()
	if err != nil {
		return nil, err
	}
	set, err := s.VS.RekorSignPayload(tlog.RekorPayload{
		Body:           base64.StdEncoding.EncodeToString(tle.CanonicalizedBody),
		IntegratedTime: tle.IntegratedTime,
		LogIndex:       tle.LogIndex,
		LogID:          logID,
	})
	if err != nil {
		return nil, err
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	var rfc []*protocommon.RFC3161SignedTimestamp
	for _, ts := range tss {
		rfc = append(rfc, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: ts})
	}
	pb := &protobundle.Bundle{
		MediaType: "application/vnd.dev.sigstore.bundle.v0.3+json",
		VerificationMaterial: &protobundle.VerificationMaterial{
			Content:                   &protobundle.VerificationMaterial_Certificate{Certificate: &protocommon.X509Certificate{RawBytes: c.Certificate().Raw}},
			TlogEntries:               []*protorekor.TransparencyLogEntry{tle},
			TimestampVerificationData: &protobundle.TimestampVerificationData{Rfc3161Timestamps: rfc},
		},
		Content: &protobundle.Bundle_DsseEnvelope{DsseEnvelope: &protodsse.Envelope{
			Payload: payload, PayloadType: env.PayloadType,
			Signatures: []*protodsse.Signature{{Sig: sig}},
		}},
	}
	return protojson.Marshal(pb)
}

// TrustedRoot renders the instance's authorities and logs as a Sigstore
// trusted root file.
func (s *Sigstore) TrustedRoot(tb testing.TB) []byte {
	tb.Helper()
	// VirtualSigstore's logs carry their hex log ID's text as ID bytes; a
	// trusted root file carries the raw key ID.
	rawIDs := func(logs map[string]*root.TransparencyLog) map[string]*root.TransparencyLog {
		out := map[string]*root.TransparencyLog{}
		for id, l := range logs {
			c := *l
			raw, err := hex.DecodeString(id)
			if err != nil {
				tb.Fatal(err)
			}
			c.ID = raw
			out[id] = &c
		}
		return out
	}
	tr, err := root.NewTrustedRoot(root.TrustedRootMediaType01, s.VS.FulcioCertificateAuthorities(), rawIDs(s.VS.CTLogs()), s.VS.TimestampingAuthorities(), rawIDs(s.VS.RekorLogs()))
	if err != nil {
		tb.Fatal(err)
	}
	b, err := tr.MarshalJSON()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Signer signs statements keylessly as one identity at one integrated time.
// Its SignStatement has the shape of obaudit's commitment.Signer.
type Signer struct {
	S               *Sigstore
	Subject, Issuer string
	At              time.Time
}

// SignStatement attests statement and returns the bundle file.
func (g Signer) SignStatement(_ context.Context, statement []byte) ([]byte, error) {
	ent, err := g.S.VS.AttestAtTime(g.Subject, g.Issuer, statement, g.At, true)
	if err != nil {
		return nil, err
	}
	return g.S.bundle(ent)
}

// GoldenKey is a fixed P-256 test key (its scalar), so a deterministic
// signer's bundles are fixed bytes (the goldens of artefact/sigstore/sigverify).
func GoldenKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	d, _ := hex.DecodeString("3a1f0c5e9b7d2468ace013579bdf02468ace13579bdf02468ace13579bdf0246")
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// NewKey is a fresh P-256 key.
func NewKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

// Statement is a small in-toto Statement for signing tests.
const Statement = `{"_type":"https://in-toto.io/Statement/v1","predicate":{"k":1},"predicateType":"https://example.test/p/v1","subject":[{"digest":{"sha256":"0000000000000000000000000000000000000000000000000000000000000000"},"name":"a.json"}]}`

// Keypair is a sigstore-go sign.Keypair over a long-lived key, so tests
// can have sigstore-go's own signer (pkg/sign, which the binary does not
// link) write a bundle to hold the KeySigner to. Random nil means RFC 6979
// nonces, as for the deterministic KeySigner.
type Keypair struct {
	Priv   *ecdsa.PrivateKey
	Hint   []byte
	Random io.Reader
}

func (k *Keypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}
func (k *Keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}
func (k *Keypair) GetHint() []byte                { return k.Hint }
func (k *Keypair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *Keypair) GetPublicKey() crypto.PublicKey { return k.Priv.Public() }
func (k *Keypair) GetPublicKeyPem() (string, error) {
	b, err := cryptoutils.MarshalPublicKeyToPEM(k.Priv.Public())
	return string(b), err
}
func (k *Keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	d := sha256.Sum256(data)
	if k.Random == nil {
		sig, err := k.Priv.Sign(nil, d[:], crypto.SHA256)
		return sig, d[:], err
	}
	sig, err := ecdsa.SignASN1(k.Random, k.Priv, d[:])
	return sig, d[:], err
}

// GoldenStatements are the statements held to artefact/sigstore/sigverify/testdata: a plain one and
// one whose bytes exercise JSON escaping and non-ASCII text inside the
// payload (the payload is carried as base64, so neither may leak into the
// envelope's encoding).
var GoldenStatements = map[string]string{
	"plain":   Statement,
	"escaped": `{"_type":"https://in-toto.io/Statement/v1","predicate":{"note":"caf\u00e9 \"q\" \\ <&> \u2028 café"},"predicateType":"https://example.test/p/v1","subject":[{"digest":{"sha256":"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"},"name":"ü.json"}]}`,
}
