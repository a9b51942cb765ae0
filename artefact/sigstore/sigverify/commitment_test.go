package sigverify

// End-to-end run commitments through the real signer and verifier: the
// upstream artefacts, signed as obaudit sign does, verified as obaudit
// verify does, with a pinned key and keyless against an in-process
// VirtualSigstore.

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/artefact/sigstore/sigstoretest"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

func upstreamInputs(t testing.TB) (det, model commitment.Inputs) {
	t.Helper()
	det = commitment.Inputs{ArtefactName: "det.json", Artefact: upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json")}
	model = commitment.Inputs{
		ArtefactName: "model.json", Artefact: upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.json"),
		LedgerName: "model.ndjson", Ledger: upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"),
	}
	return det, model
}

var commitOpts = commitment.Options{ObauditVersion: "0.1.0-test"}

// statementBytes returns a run commitment statement for in, after edit
// (which may change anything) has been applied to its JSON tree.
func statementBytes(t *testing.T, in commitment.Inputs, edit func(map[string]any)) []byte {
	t.Helper()
	st, err := commitment.New(context.Background(), in, commitOpts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return b
	}
	tree, _ := canon.Parse(b)
	edit(tree.(map[string]any))
	out, err := canon.JCS(tree)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func predicateOf(tree map[string]any) map[string]any { return tree["predicate"].(map[string]any) }

func TestCommitmentWithKey(t *testing.T) {
	ctx := context.Background()
	det, model := upstreamInputs(t)
	k, other := sigstoretest.NewKey(t), sigstoretest.NewKey(t)
	s := mustSigner(t, k)
	v := keyVerifier(t, &k.PublicKey)

	bDet, _, err := commitment.Sign(ctx, det, commitOpts, s)
	if err != nil {
		t.Fatal(err)
	}
	bModel, _, err := commitment.Sign(ctx, model, commitOpts, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		b  []byte
		in commitment.Inputs
	}{{bDet, det}, {bModel, model}} {
		if _, err := commitment.Verify(ctx, c.b, c.in, v); err != nil {
			t.Fatalf("Verify(%s) = %v", c.in.ArtefactName, err)
		}
	}

	// One byte changed inside the bundle's signed payload.
	var pb protobundle.Bundle
	if err := protojson.Unmarshal(bDet, &pb); err != nil {
		t.Fatal(err)
	}
	pl := pb.GetDsseEnvelope().Payload
	pl[bytes.Index(pl, []byte(`"reliable":true`))+len(`"reliable":`)] = 'T'
	bundleByte, _ := protojson.Marshal(&pb)

	signed := func(b []byte) []byte {
		out, err := s.SignStatement(ctx, b)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	flipAt := func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 1; return c }

	for _, tc := range []struct {
		name   string
		bundle []byte
		in     commitment.Inputs
		v      *Verifier
		want   *refusal.Refusal
	}{
		{"one byte changed in the artefact", bDet, commitment.Inputs{Artefact: flipAt(det.Artefact, 5000)}, v, commitment.ErrSubjectMismatch},
		{"one byte changed in the ledger", bModel, commitment.Inputs{Artefact: model.Artefact, Ledger: flipAt(model.Ledger, 5000)}, v, commitment.ErrSubjectMismatch},
		{"one byte changed in the bundle", bundleByte, det, v, sigstore.ErrSignatureInvalid},
		{"another key", bDet, det, keyVerifier(t, &other.PublicKey), sigstore.ErrSignatureInvalid},
		{"a bundle for another artefact", bModel, commitment.Inputs{Artefact: det.Artefact, Ledger: model.Ledger}, v, commitment.ErrSubjectMismatch},
		{"a subject swapped between two bundles", signed(statementBytes(t, det, func(m map[string]any) {
			m["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)["sha256"] = commitment.SHA256Hex(model.Artefact)
		})), commitment.Inputs{Artefact: model.Artefact}, v, commitment.ErrPredicateMismatch},
		{"a predicate that disagrees with the artefact", signed(statementBytes(t, det, func(m map[string]any) {
			predicateOf(m)["artefact"].(map[string]any)["trajectory_digest_sha256"] = commitment.SHA256Hex([]byte("other"))
		})), det, v, commitment.ErrPredicateMismatch},
		{"a predicate that disagrees with the ledger", signed(statementBytes(t, model, func(m map[string]any) {
			predicateOf(m)["ledger"].(map[string]any)["rows"] = int64(47)
		})), model, v, commitment.ErrPredicateMismatch},
		{"an unknown predicate type", signed(statementBytes(t, det, func(m map[string]any) {
			m["predicateType"] = "https://obaudit.dev/run-commitment/v2"
		})), det, v, commitment.ErrUnknownPredicateType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := commitment.Verify(ctx, tc.bundle, tc.in, tc.v)
			wantClass(t, err, tc.want)
		})
	}
}

// virtualCommitment signs a run commitment statement with VirtualSigstore
// and returns it as a bundle file.
func virtualCommitment(t *testing.T, vs *sigstoretest.Sigstore, stmt []byte, at time.Time) []byte {
	t.Helper()
	return vs.Bundle(t, vs.Attest(t, testSAN, testIssuer, stmt, at))
}

func TestCommitmentKeyless(t *testing.T) {
	ctx := context.Background()
	det, model := upstreamInputs(t)
	vs := sigstoretest.New(t)
	root := vs.TrustedRoot(t)
	now := time.Now()
	good := virtualCommitment(t, vs, statementBytes(t, model, nil), now.Add(5*time.Minute))
	expired := virtualCommitment(t, vs, statementBytes(t, model, nil), now.Add(30*time.Minute))
	verifier := func(id sigstore.Identity) *Verifier {
		v, err := NewKeylessVerifier(root, id)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	st, err := commitment.Verify(ctx, good, model, verifier(sigstore.Identity{Subject: testSAN, Issuer: testIssuer}))
	if err != nil {
		t.Fatalf("keyless Verify = %v", err)
	}
	if st.Predicate.Ledger == nil || st.Predicate.Ledger.TerminalKind != "scored" {
		t.Fatalf("verified predicate: %+v", st.Predicate)
	}
	for _, tc := range []struct {
		name   string
		bundle []byte
		in     commitment.Inputs
		id     sigstore.Identity
		want   *refusal.Refusal
	}{
		{"expired certificate", expired, model, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, sigstore.ErrCertificateInvalid},
		{"wrong identity", good, model, sigstore.Identity{Subject: "someone@else.example", Issuer: testIssuer}, sigstore.ErrIdentityMismatch},
		{"wrong issuer", good, model, sigstore.Identity{Subject: testSAN, Issuer: "https://accounts.example"}, sigstore.ErrIdentityMismatch},
		{"another artefact", good, commitment.Inputs{Artefact: det.Artefact, Ledger: model.Ledger}, sigstore.Identity{Subject: testSAN, Issuer: testIssuer}, commitment.ErrSubjectMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := commitment.Verify(ctx, tc.bundle, tc.in, verifier(tc.id))
			wantClass(t, err, tc.want)
		})
	}
}

func BenchmarkSignEpisode(b *testing.B) {
	_, model := upstreamInputs(b)
	s := mustSigner(b, sigstoretest.NewKey(b))
	ctx := context.Background()
	b.SetBytes(int64(len(model.Artefact) + len(model.Ledger)))
	for b.Loop() {
		if _, _, err := commitment.Sign(ctx, model, commitOpts, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyEpisode(b *testing.B) {
	_, model := upstreamInputs(b)
	k := sigstoretest.NewKey(b)
	bundle, _, err := commitment.Sign(context.Background(), model, commitOpts, mustSigner(b, k))
	if err != nil {
		b.Fatal(err)
	}
	v := keyVerifier(b, &k.PublicKey)
	ctx := context.Background()
	b.SetBytes(int64(len(model.Artefact) + len(model.Ledger)))
	for b.Loop() {
		if _, err := commitment.Verify(ctx, bundle, model, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSignatureOnly isolates the Sigstore part: DSSE sign of a
// ready statement, and bundle parse + signature verification.
func BenchmarkSignatureOnly(b *testing.B) {
	_, model := upstreamInputs(b)
	st, err := commitment.New(context.Background(), model, commitOpts)
	if err != nil {
		b.Fatal(err)
	}
	stmt, _ := st.Marshal()
	k := sigstoretest.NewKey(b)
	s := mustSigner(b, k)
	v := keyVerifier(b, &k.PublicKey)
	bundle, _ := s.SignStatement(context.Background(), stmt)
	b.Run("sign", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.SignStatement(context.Background(), stmt); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if _, err := v.VerifyStatement(context.Background(), bundle); err != nil {
				b.Fatal(err)
			}
		}
	})
}
