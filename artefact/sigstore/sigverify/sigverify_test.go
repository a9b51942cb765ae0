package sigverify

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"testing"
	"time"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/artefact/sigstore/sigstoretest"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func signTest(t testing.TB, k *ecdsa.PrivateKey, stmt string) []byte {
	t.Helper()
	s, err := sigstore.NewKeySigner(k, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.SignStatement(context.Background(), []byte(stmt))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func keyVerifier(t testing.TB, pub *ecdsa.PublicKey) *Verifier {
	t.Helper()
	v, err := NewKeyVerifier(pub)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func wantClass(t *testing.T, err error, want *refusal.Refusal) {
	t.Helper()
	if refusal.Of(err) != want.Class {
		c, _ := refusal.ClassOf(err)
		t.Fatalf("err = %v (class %q), want class %s", err, c, want.Class)
	}
}

func TestKeyRoundTrip(t *testing.T) {
	k := sigstoretest.NewKey(t)
	b := signTest(t, k, sigstoretest.Statement)
	if c, err := canon.Transform(b); err != nil || !bytes.Equal(c, b) {
		t.Fatalf("bundle is not RFC 8785 canonical (err %v)", err)
	}
	got, err := keyVerifier(t, &k.PublicKey).VerifyStatement(context.Background(), b)
	if err != nil {
		t.Fatalf("VerifyStatement = %v, want ok", err)
	}
	if string(got) != sigstoretest.Statement {
		t.Fatalf("VerifyStatement returned %q, want the signed statement bytes", got)
	}
}

func TestKeyRefusals(t *testing.T) {
	k := sigstoretest.NewKey(t)
	good := signTest(t, k, sigstoretest.Statement)
	other := sigstoretest.NewKey(t)

	// A byte of the payload changed: re-encode the DSSE payload with one
	// byte of the statement altered.
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(good, &pb); err != nil {
		t.Fatal(err)
	}
	tampered := proto.Clone(&pb).(*protobundle.Bundle)
	p := tampered.GetDsseEnvelope().Payload
	p[len(p)-3] ^= 0x01
	tamperedPayload, _ := protojson.Marshal(tampered)

	sigFlip := proto.Clone(&pb).(*protobundle.Bundle)
	sigFlip.GetDsseEnvelope().Signatures[0].Sig[10] ^= 0x01
	tamperedSig, _ := protojson.Marshal(sigFlip)

	twoSigs := proto.Clone(&pb).(*protobundle.Bundle)
	env := twoSigs.GetDsseEnvelope()
	env.Signatures = append(env.Signatures, env.Signatures[0])
	twoSigsJSON, _ := protojson.Marshal(twoSigs)

	otherType := proto.Clone(&pb).(*protobundle.Bundle)
	otherType.GetDsseEnvelope().PayloadType = "application/json"
	otherTypeJSON, _ := protojson.Marshal(otherType)

	kp := &sigstoretest.Keypair{Priv: k, Hint: []byte("h"), Random: rand.Reader}
	msgPB, err := sign.Bundle(&sign.PlainData{Data: []byte(sigstoretest.Statement)}, kp, sign.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	msgSig, _ := protojson.Marshal(msgPB)

	for _, tc := range []struct {
		name   string
		bundle []byte
		pub    *ecdsa.PublicKey
		want   *refusal.Refusal
	}{
		{"another key", good, &other.PublicKey, sigstore.ErrSignatureInvalid},
		{"payload byte changed", tamperedPayload, &k.PublicKey, sigstore.ErrSignatureInvalid},
		{"signature byte changed", tamperedSig, &k.PublicKey, sigstore.ErrSignatureInvalid},
		{"not JSON", good[:len(good)-1], &k.PublicKey, sigstore.ErrMalformedBundle},
		{"not a bundle", []byte(`{"mediaType":"application/json"}`), &k.PublicKey, sigstore.ErrMalformedBundle},
		{"two signatures", twoSigsJSON, &k.PublicKey, sigstore.ErrMalformedBundle},
		{"other payload type", otherTypeJSON, &k.PublicKey, sigstore.ErrMalformedBundle},
		{"message signature", msgSig, &k.PublicKey, sigstore.ErrMalformedBundle},
		{"oversized", bytes.Repeat([]byte(" "), sigstore.MaxBundleBytes+1), &k.PublicKey, sigstore.ErrMalformedBundle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := keyVerifier(t, tc.pub).VerifyStatement(context.Background(), tc.bundle)
			wantClass(t, err, tc.want)
		})
	}
}

func mustSigner(t testing.TB, k *ecdsa.PrivateKey) *sigstore.KeySigner {
	s, err := sigstore.NewKeySigner(k, rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestKeys(t *testing.T) {
	k := sigstoretest.NewKey(t)
	privPEM, err := sigstore.MarshalPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := sigstore.MarshalPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := sigstore.ParsePrivateKey(privPEM)
	if err != nil || !k2.Equal(k) {
		t.Fatalf("sigstore.ParsePrivateKey(sigstore.MarshalPrivateKey(k)) = %v, want k", err)
	}
	p2, err := sigstore.ParsePublicKey(pubPEM)
	if err != nil || !p2.Equal(&k.PublicKey) {
		t.Fatalf("sigstore.ParsePublicKey(sigstore.MarshalPublicKey(k)) = %v, want k.Public", err)
	}
	sec1, _ := x509.MarshalECPrivateKey(k)
	if k3, err := sigstore.ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1})); err != nil || !k3.Equal(k) {
		t.Fatalf("sigstore.ParsePrivateKey(SEC 1) = %v, want k", err)
	}
	if sigstore.KeyID(&k.PublicKey) != sigstore.KeyID(p2) || len(sigstore.KeyID(p2)) != 64 {
		t.Fatal("sigstore.KeyID is not a stable 64-hex fingerprint")
	}

	p384, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	p384DER, _ := x509.MarshalPKCS8PrivateKey(p384)
	p384Pub, _ := x509.MarshalPKIXPublicKey(&p384.PublicKey)
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	edDER, _ := x509.MarshalPKCS8PrivateKey(edPriv)
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaPub, _ := x509.MarshalPKIXPublicKey(&rsaKey.PublicKey)
	enc := &pem.Block{Type: "PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED"}, Bytes: p384DER}
	pemOf := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }

	for _, tc := range []struct {
		name string
		priv bool
		in   []byte
		want *refusal.Refusal
	}{
		{"private P-384", true, pemOf("PRIVATE KEY", p384DER), sigstore.ErrKeyUnsupported},
		{"private Ed25519", true, pemOf("PRIVATE KEY", edDER), sigstore.ErrKeyUnsupported},
		{"public P-384", false, pemOf("PUBLIC KEY", p384Pub), sigstore.ErrKeyUnsupported},
		{"public RSA", false, pemOf("PUBLIC KEY", rsaPub), sigstore.ErrKeyUnsupported},
		{"not PEM", true, []byte("hello"), sigstore.ErrKeyInvalid},
		{"encrypted", true, pem.EncodeToMemory(enc), sigstore.ErrKeyInvalid},
		{"cosign encrypted", true, pemOf("ENCRYPTED SIGSTORE PRIVATE KEY", []byte("x")), sigstore.ErrKeyInvalid},
		{"public as private", true, pubPEM, sigstore.ErrKeyInvalid},
		{"private as public", false, privPEM, sigstore.ErrKeyInvalid},
		{"trailing data", false, append(append([]byte{}, pubPEM...), "junk"...), sigstore.ErrKeyInvalid},
		{"garbage DER", false, pemOf("PUBLIC KEY", []byte{1, 2, 3}), sigstore.ErrKeyInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.priv {
				_, err = sigstore.ParsePrivateKey(tc.in)
			} else {
				_, err = sigstore.ParsePublicKey(tc.in)
			}
			wantClass(t, err, tc.want)
		})
	}
}

const (
	testSAN    = "release@obaudit.example"
	testIssuer = "https://issuer.obaudit.example"
)

func attest(t testing.TB, s *sigstoretest.Sigstore, at time.Time) *ca.TestEntity {
	t.Helper()
	return s.Attest(t, testSAN, testIssuer, []byte(sigstoretest.Statement), at)
}

func TestKeylessRoundTrip(t *testing.T) {
	vs := sigstoretest.New(t)
	ent := attest(t, vs, time.Now().Add(5*time.Minute))

	v, err := NewKeylessVerifier(vs.TrustedRoot(t), sigstore.Identity{Subject: testSAN, Issuer: testIssuer})
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.verifyEntity(ent)
	if err != nil || string(got) != sigstoretest.Statement {
		t.Fatalf("verifyEntity(virtual entity) = %q, %v; want the statement", got, err)
	}
	got, err = v.VerifyStatement(context.Background(), vs.Bundle(t, ent))
	if err != nil || string(got) != sigstoretest.Statement {
		t.Fatalf("VerifyStatement(virtual bundle file) = %q, %v; want the statement", got, err)
	}
}

func TestKeylessRefusals(t *testing.T) {
	vs := sigstoretest.New(t)
	now := time.Now()
	good := attest(t, vs, now.Add(5*time.Minute))
	goodFile := vs.Bundle(t, good)
	// The log integrated the entry 30 minutes from now: the ten-minute
	// certificate had expired by then.
	expired := vs.Bundle(t, attest(t, vs, now.Add(30*time.Minute)))
	// Before the certificate existed.
	early := vs.Bundle(t, attest(t, vs, now.Add(-20*time.Minute)))

	// Another Sigstore altogether signed it.
	stranger := sigstoretest.New(t)
	strangerFile := stranger.Bundle(t, attest(t, stranger, now.Add(5*time.Minute)))

	// No inclusion promise and no RFC 3161 timestamp: the log entry still
	// verifies by its inclusion proof, but nothing vouches for a time.
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(goodFile, &pb); err != nil {
		t.Fatal(err)
	}
	pb.VerificationMaterial.TimestampVerificationData = nil
	pb.VerificationMaterial.TlogEntries[0].InclusionPromise = nil
	noTime, _ := protojson.Marshal(&pb)

	var noLogPB protobundle.Bundle
	protojson.Unmarshal(goodFile, &noLogPB)
	noLogPB.VerificationMaterial.TlogEntries = nil
	noLog, _ := protojson.Marshal(&noLogPB)

	var payloadPB protobundle.Bundle
	protojson.Unmarshal(goodFile, &payloadPB)
	payloadPB.GetDsseEnvelope().Payload[5] ^= 1
	payloadChanged, _ := protojson.Marshal(&payloadPB)

	keySigned := signTest(t, sigstoretest.NewKey(t), sigstoretest.Statement)

	root := vs.TrustedRoot(t)
	for _, tc := range []struct {
		name   string
		bundle []byte
		id     sigstore.Identity
		want   *refusal.Refusal
	}{
		{"expired certificate", expired, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrCertificateInvalid},
		{"not yet valid certificate", early, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrCertificateInvalid},
		{"wrong identity", goodFile, sigstore.Identity{Subject: "mallory@obaudit.example", Issuer: testIssuer}, sigstore.ErrIdentityMismatch},
		{"wrong issuer", goodFile, sigstore.Identity{Subject: testSAN, Issuer: "https://other.example"}, sigstore.ErrIdentityMismatch},
		{"unknown Sigstore", strangerFile, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrTlogInvalid},
		{"no log entry", noLog, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrTlogInvalid},
		{"no timestamp", noTime, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrTimestampInvalid},
		{"payload byte changed", payloadChanged, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrTlogInvalid},
		{"key-signed bundle", keySigned, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrCertificateInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := NewKeylessVerifier(root, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.VerifyStatement(context.Background(), tc.bundle)
			wantClass(t, err, tc.want)
		})
	}

	t.Run("certificate bundle under a pinned key", func(t *testing.T) {
		_, err := keyVerifier(t, &sigstoretest.NewKey(t).PublicKey).VerifyStatement(context.Background(), goodFile)
		wantClass(t, err, sigstore.ErrSignatureInvalid)
	})
	t.Run("trusted root not JSON", func(t *testing.T) {
		_, err := NewKeylessVerifier([]byte("{"), sigstore.Identity{Subject: testSAN, Issuer: testIssuer})
		wantClass(t, err, sigstore.ErrTrustedRootInvalid)
	})
	t.Run("identity required", func(t *testing.T) {
		_, err := NewKeylessVerifier(root, sigstore.Identity{Subject: testSAN})
		if err == nil || refusalClassed(err) {
			t.Fatalf("NewKeylessVerifier without issuer = %v, want a plain configuration error", err)
		}
	})
}

func refusalClassed(err error) bool { _, ok := refusal.ClassOf(err); return ok }
