package commitment

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/refusaltest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

const (
	detName    = "artifact8-deterministic-reference-v1.json"
	modelName  = "artifact8-fake-openai-reference-v1.json"
	ledgerName = "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson"
)

// testSigner is an in-test stand-in for a Sigstore signer: an Ed25519
// signature over the statement bytes, in a two-field JSON "bundle".
type testSigner struct{ key ed25519.PrivateKey }

func (s testSigner) SignStatement(_ context.Context, stmt []byte) ([]byte, error) {
	return canon.JCS(map[string]any{
		"payload": base64.StdEncoding.EncodeToString(stmt),
		"sig":     base64.StdEncoding.EncodeToString(ed25519.Sign(s.key, stmt)),
	})
}

var errBadTestSignature = errors.New("test signature does not verify")

type testVerifier struct{ pub ed25519.PublicKey }

func (v testVerifier) VerifyStatement(_ context.Context, b []byte) ([]byte, error) {
	tree, err := canon.Parse(b)
	if err != nil {
		return nil, err
	}
	m := tree.(map[string]any)
	p, _ := base64.StdEncoding.DecodeString(m["payload"].(string))
	sig, _ := base64.StdEncoding.DecodeString(m["sig"].(string))
	if !ed25519.Verify(v.pub, p, sig) {
		return nil, errBadTestSignature
	}
	return p, nil
}

func keys(t testing.TB) (testSigner, testVerifier) {
	pub, priv, err := ed25519.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{7}, 64)))
	if err != nil {
		t.Fatal(err)
	}
	return testSigner{priv}, testVerifier{pub}
}

func det(t testing.TB) Inputs {
	return Inputs{ArtefactName: detName, Artefact: upstreamtest.Read(t, detName)}
}

func model(t testing.TB) Inputs {
	return Inputs{
		ArtefactName: modelName, Artefact: upstreamtest.Read(t, modelName),
		LedgerName: ledgerName, Ledger: upstreamtest.Read(t, ledgerName),
	}
}

var opts = Options{ObauditVersion: "0.1.0-test"}

func flip(b []byte, at int) []byte {
	c := append([]byte(nil), b...)
	c[at] ^= 0x01
	return c
}

// TestDeriveUpstream checks the derived facts against values upstream
// states independently (fixture README and the artefacts' own headers).
func TestDeriveUpstream(t *testing.T) {
	a, l, err := Derive(model(t))
	if err != nil {
		t.Fatalf("Derive(model run + ledger) = %v", err)
	}
	// The upstream README: "The last row digest equals ledger_chain_sha256",
	// terminal row digest 73f0c6b7…; 46 call rows between header and terminal.
	if l.ChainHead != "73f0c6b77ff6e774ded0c325ee007fe62f62999627ffcd8ae915474809f41b2f" || l.Rows != 48 ||
		l.TerminalKind != "scored" || l.LedgerVersion != 2 || l.ExecutionRunID != "exec_0123456789abcdef0123456789abcdef" {
		t.Errorf("ledger facts = %+v", *l)
	}
	if a.BoundLedgerDigest != l.ChainHead || a.ArtifactVersion != 8 || a.EngineVersion != "0.9.0" ||
		a.ScenarioID != "V1" || a.AgentID != "openai-gpt-5-6-luna" || a.AgentKind != "model" || !a.Reliable ||
		a.TerminalOutcome == nil || *a.TerminalOutcome != "completed_successfully" ||
		a.OperationID != "lettings_maintenance_synthetic_v1" || a.OperationVersion != "0.6.0" ||
		a.FinalStateDigest != "adbeb19aff4469810e2acd8cd5adcbe89179ce8b192f2f890bb4884baec6a1f1" {
		t.Errorf("artefact facts = %+v", a)
	}
	d, l2, err := Derive(det(t))
	if err != nil || l2 != nil {
		t.Fatalf("Derive(deterministic) = %v, ledger %v", err, l2)
	}
	if d.BoundLedgerDigest != "" || d.AgentKind != "reference" || d.DecisionsDigest == "" || d.OperationInstanceID == "" {
		t.Errorf("deterministic facts = %+v", d)
	}
	// The same run through two transports: same grading, same tape (upstream
	// replays the model run's tape to the deterministic decisions).
	if d.EvaluationDigest != a.EvaluationDigest || d.DecisionsDigest != a.DecisionsDigest {
		t.Errorf("evaluation digests %s/%s, decisions %s/%s", d.EvaluationDigest, a.EvaluationDigest, d.DecisionsDigest, a.DecisionsDigest)
	}
}

func replaceOnce(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if bytes.Count(b, []byte(old)) < 1 {
		t.Fatalf("fixture lacks %q", old)
	}
	return bytes.Replace(b, []byte(old), []byte(new), 1)
}

func TestDeriveRefusals(t *testing.T) {
	m := model(t)
	lines := bytes.SplitAfter(m.Ledger, []byte("\n"))
	lines = lines[:len(lines)-1] // SplitAfter leaves an empty tail
	noTerminal := bytes.Join(lines[:len(lines)-1], nil)
	swapped := bytes.Join(append([][]byte{lines[0], lines[2], lines[1]}, lines[3:]...), nil)

	for _, tc := range []struct {
		name string
		in   Inputs
		want *refusal.Refusal
	}{
		{"trajectory edited", Inputs{Artefact: replaceOnce(t, m.Artefact, `"agent_invoked"`, `"agent_invokeD"`)}, ErrArtefactInvalid},
		{"final state edited", Inputs{Artefact: replaceOnce(t, m.Artefact, `"phase":"FINALIZED"`, `"phase":"FINALISED"`)}, ErrArtefactInvalid},
		{"decisions edited", Inputs{Artefact: replaceOnce(t, m.Artefact, `"kind":"RETRIEVE"`, `"kind":"RETRIEVe"`)}, ErrArtefactInvalid},
		{"not JSON", Inputs{Artefact: m.Artefact[:100]}, ErrArtefactInvalid},
		{"array", Inputs{Artefact: []byte("[]")}, ErrArtefactInvalid},
		{"no engine version", Inputs{Artefact: replaceOnce(t, m.Artefact, `"engine_version":"0.9.0"`, `"engine_version":""`)}, ErrArtefactInvalid},
		{"ledger row edited", Inputs{Artefact: m.Artefact, Ledger: replaceOnce(t, m.Ledger, `"input_tokens": 4`, `"input_tokens": 5`)}, ErrLedgerInvalid},
		{"ledger rows swapped", Inputs{Artefact: m.Artefact, Ledger: swapped}, ErrLedgerInvalid},
		{"ledger not newline-terminated", Inputs{Artefact: m.Artefact, Ledger: m.Ledger[:len(m.Ledger)-1]}, ErrLedgerInvalid},
		{"ledger without terminal row", Inputs{Artefact: m.Artefact, Ledger: noTerminal}, ErrLedgerUnbound},
		{"ledger with the unbound artefact", Inputs{Artefact: det(t).Artefact, Ledger: m.Ledger}, ErrLedgerUnbound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Derive(tc.in)
			refusaltest.Want(t, err, tc.want)
		})
	}
}

func TestSignVerifyRoundTrip(t *testing.T) {
	s, v := keys(t)
	for _, in := range []Inputs{det(t), model(t)} {
		b, st, err := Sign(context.Background(), in, opts, s)
		if err != nil {
			t.Fatalf("Sign(%s) = %v", in.ArtefactName, err)
		}
		got, err := Verify(context.Background(), b, in, v)
		if err != nil {
			t.Fatalf("Verify(%s) = %v", in.ArtefactName, err)
		}
		if canon.String(got.Predicate.Tree(), canon.JCSForm) != canon.String(st.Predicate.Tree(), canon.JCSForm) {
			t.Fatalf("verified predicate differs from the signed one")
		}
		if got.Subjects[0].Name != in.ArtefactName || got.Subjects[0].SHA256 != canon.SHA256Hex(in.Artefact) {
			t.Fatalf("subject 0 = %+v", got.Subjects[0])
		}
		if (in.Ledger != nil) != (len(got.Subjects) == 2) || (in.Ledger != nil) != (got.Predicate.Ledger != nil) {
			t.Fatalf("ledger subject/section mismatch: %d subjects", len(got.Subjects))
		}
	}
}

// signRaw signs an arbitrary statement tree, to build hostile commitments.
func signRaw(t *testing.T, s testSigner, tree map[string]any) []byte {
	t.Helper()
	b, err := canon.JCS(tree)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.SignStatement(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func statementTree(t *testing.T, in Inputs) map[string]any {
	t.Helper()
	st, err := New(context.Background(), in, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	tree, _ := canon.Parse(b)
	return tree.(map[string]any)
}

func TestVerifyRefusals(t *testing.T) {
	s, v := keys(t)
	_, otherV := testSigner{}, testVerifier{}
	otherPub, _, _ := ed25519.GenerateKey(bytes.NewReader(bytes.Repeat([]byte{9}, 64)))
	otherV.pub = otherPub
	ctx := context.Background()
	d, m := det(t), model(t)
	bd, _, err := Sign(ctx, d, opts, s)
	if err != nil {
		t.Fatal(err)
	}
	bm, _, err := Sign(ctx, m, opts, s)
	if err != nil {
		t.Fatal(err)
	}

	lie := statementTree(t, d)
	lie["predicate"].(map[string]any)["artefact"].(map[string]any)["reliable"] = false
	lieScenario := statementTree(t, d)
	lieScenario["predicate"].(map[string]any)["artefact"].(map[string]any)["scenario_id"] = "V2"
	lieLedger := statementTree(t, m)
	lieLedger["predicate"].(map[string]any)["ledger"].(map[string]any)["terminal_kind"] = "aborted"
	otherType := statementTree(t, d)
	otherType["predicateType"] = "https://slsa.dev/provenance/v1"
	badSchema := statementTree(t, d)
	badSchema["predicate"].(map[string]any)["extra"] = true
	badType := statementTree(t, d)
	badType["_type"] = "https://in-toto.io/Statement/v2"
	extraField := statementTree(t, d)
	extraField["note"] = "x"
	noLedgerSection := statementTree(t, m)
	noLedgerSection["predicate"].(map[string]any)["ledger"] = nil
	twoAlgs := statementTree(t, d)
	twoAlgs["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)["sha512"] = strings.Repeat("0", 128)

	// A subject swapped between two bundles: the deterministic run's
	// statement with the model run's artefact digest in its subject.
	swapped := statementTree(t, d)
	swapped["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)["sha256"] = canon.SHA256Hex(m.Artefact)

	dupKey := []byte(`{"_type":"https://in-toto.io/Statement/v1","_type":"https://in-toto.io/Statement/v1"}`)
	dupBundle, _ := s.SignStatement(ctx, dupKey)

	for _, tc := range []struct {
		name   string
		bundle []byte
		in     Inputs
		v      Verifier
		want   *refusal.Refusal
	}{
		{"artefact byte changed", bd, Inputs{Artefact: flip(d.Artefact, 1000)}, v, ErrSubjectMismatch},
		{"ledger byte changed", bm, Inputs{Artefact: m.Artefact, Ledger: flip(m.Ledger, 500)}, v, ErrSubjectMismatch},
		{"bundle of another artefact", bd, Inputs{Artefact: m.Artefact}, v, ErrSubjectMismatch},
		{"ledger given, not covered", bd, Inputs{Artefact: d.Artefact, Ledger: m.Ledger}, v, ErrSubjectMismatch},
		{"ledger covered, not given", bm, Inputs{Artefact: m.Artefact}, v, ErrSubjectMismatch},
		{"subject swapped", signRaw(t, s, swapped), Inputs{Artefact: m.Artefact}, v, ErrPredicateMismatch},
		{"predicate lies about reliable", signRaw(t, s, lie), d, v, ErrPredicateMismatch},
		{"predicate lies about scenario", signRaw(t, s, lieScenario), d, v, ErrPredicateMismatch},
		{"predicate lies about the ledger", signRaw(t, s, lieLedger), m, v, ErrPredicateMismatch},
		{"unknown predicate type", signRaw(t, s, otherType), d, v, ErrUnknownPredicateType},
		{"predicate violates schema", signRaw(t, s, badSchema), d, v, ErrPredicateInvalid},
		{"ledger section missing", signRaw(t, s, noLedgerSection), m, v, ErrPredicateInvalid},
		{"unknown statement type", signRaw(t, s, badType), d, v, ErrMalformedStatement},
		{"unknown statement field", signRaw(t, s, extraField), d, v, ErrMalformedStatement},
		{"second digest algorithm", signRaw(t, s, twoAlgs), d, v, ErrMalformedStatement},
		{"duplicate key", dupBundle, d, v, ErrMalformedStatement},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(ctx, tc.bundle, tc.in, tc.v)
			refusaltest.Want(t, err, tc.want)
		})
	}
	t.Run("another key", func(t *testing.T) {
		if _, err := Verify(ctx, bd, d, otherV); !errors.Is(err, errBadTestSignature) {
			t.Fatalf("Verify under another key = %v, want the verifier's refusal", err)
		}
	})
}

// TestCosignStatementV01: cosign attest-blob writes in-toto Statement
// v0.1 with the blob's path as subject name; both are accepted.
func TestCosignStatementV01(t *testing.T) {
	s, v := keys(t)
	d := det(t)
	tree := statementTree(t, d)
	tree["_type"] = StatementTypeV01
	tree["subject"].([]any)[0].(map[string]any)["name"] = "some/path/" + detName
	got, err := Verify(context.Background(), signRaw(t, s, tree), d, v)
	if err != nil {
		t.Fatalf("Verify(v0.1 statement as cosign attest-blob writes) = %v", err)
	}
	if got.Type != StatementTypeV01 {
		t.Fatalf("Type = %q", got.Type)
	}
}

var errCheckIO = errors.New("disk on fire")

func TestChecks(t *testing.T) {
	ctx := context.Background()
	m := model(t)
	ran := map[string]bool{}
	pass := func(name string) Checker {
		return CheckerFunc(func(context.Context, Inputs) error { ran[name] = true; return nil })
	}
	st, err := New(ctx, m, Options{Validate: pass("validate"), Bundle: pass("bundle"), ObauditVersion: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Predicate.Checks.Validate || st.Predicate.Checks.Replay || !st.Predicate.Checks.Bundle || !ran["validate"] || !ran["bundle"] {
		t.Fatalf("checks = %+v, ran %v", st.Predicate.Checks, ran)
	}
	// Without a ledger the bundle check does not run and is recorded false.
	ran = map[string]bool{}
	st, err = New(ctx, det(t), Options{Bundle: pass("bundle"), ObauditVersion: "x"})
	if err != nil || st.Predicate.Checks.Bundle || ran["bundle"] {
		t.Fatalf("bundle check without a ledger: %v, %+v", err, st)
	}

	refuse := CheckerFunc(func(context.Context, Inputs) error {
		return refusal.New(ErrLedgerInvalid, "stand-in for a validator's refusal")
	})
	_, err = New(ctx, m, Options{Validate: refuse, ObauditVersion: "x"})
	refusaltest.Want(t, err, ErrCheckFailed)
	if !errors.Is(err, ErrLedgerInvalid) { // the cause, below the surfaced class
		t.Fatalf("the check's own refusal is not kept: %v", err)
	}
	// A check whose "no" has no class of its own says ErrCheckFailed itself,
	// and is passed through unwrapped.
	own := refusal.New(ErrCheckFailed, "replay differs")
	_, err = New(ctx, m, Options{Replay: CheckerFunc(func(context.Context, Inputs) error { return own }), ObauditVersion: "x"})
	if err != error(own) {
		t.Fatalf("an ErrCheckFailed refusal was rewrapped: %v", err)
	}
	_, err = New(ctx, m, Options{Replay: CheckerFunc(func(context.Context, Inputs) error { return errCheckIO }), ObauditVersion: "x"})
	if _, classed := refusal.ClassOf(err); classed || !errors.Is(err, errCheckIO) {
		t.Fatalf("a check's failure to run = %v, want the plain failure", err)
	}
	if _, err := New(ctx, m, Options{}); err == nil {
		t.Fatal("New without ObauditVersion succeeded")
	}
}

func TestStatementIsCanonicalAndSchemaValid(t *testing.T) {
	st, err := New(context.Background(), model(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := canon.Transform(b); err != nil || !bytes.Equal(c, b) {
		t.Fatal("statement is not RFC 8785 canonical")
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatalf("Parse(Marshal) = %v", err)
	}
	b2, _ := back.Marshal()
	if !bytes.Equal(b, b2) {
		t.Fatal("Marshal(Parse(b)) != b")
	}
	// Marshal refuses what the schema refuses.
	st.Predicate.Artefact.SpecDigest = "not-a-digest"
	_, err = st.Marshal()
	refusaltest.Want(t, err, ErrPredicateInvalid)
}
