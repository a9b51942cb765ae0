package commitment

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/schemas"
)

// Types a commitment names.
const (
	// StatementType is the in-toto Statement version obaudit writes.
	StatementType = "https://in-toto.io/Statement/v1"
	// StatementTypeV01 is read too: cosign attest-blob still writes it.
	StatementTypeV01 = "https://in-toto.io/Statement/v0.1"
	// PredicateType is the run commitment predicate, version 1.
	PredicateType = schemas.CommitmentPredicateType
	// MaxStatementBytes bounds a signed Statement.
	MaxStatementBytes = 1 << 20
)

// Subject is one file a Statement covers.
type Subject struct {
	Name   string
	SHA256 string // lowercase hex
}

// Checks records which obaudit checks passed before signing.
type Checks struct {
	Validate bool // the artefact validated
	Replay   bool // the artefact replayed to the same result
	Bundle   bool // the artefact and ledger passed the bundle audit
}

// Predicate is a run commitment predicate, version 1.
type Predicate struct {
	Artefact       ArtefactFacts
	Ledger         *LedgerFacts // nil when the commitment covers no ledger
	Checks         Checks
	ObauditVersion string
}

// Statement is an in-toto Statement carrying a run commitment.
type Statement struct {
	Type      string // StatementType, or StatementTypeV01 when read from cosign
	Subjects  []Subject
	Predicate Predicate
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (a ArtefactFacts) tree() map[string]any {
	var outcome any
	if a.TerminalOutcome != nil {
		outcome = *a.TerminalOutcome
	}
	return map[string]any{
		"artifact_version":           a.ArtifactVersion,
		"engine_version":             a.EngineVersion,
		"operation_id":               a.OperationID,
		"operation_version":          a.OperationVersion,
		"spec_digest_sha256":         a.SpecDigest,
		"operation_instance_id":      nullable(a.OperationInstanceID),
		"scenario_id":                a.ScenarioID,
		"semantic_scenario_id":       a.SemanticScenarioID,
		"agent_id":                   a.AgentID,
		"agent_kind":                 a.AgentKind,
		"trajectory_digest_sha256":   a.TrajectoryDigest,
		"final_state_digest_sha256":  a.FinalStateDigest,
		"decisions_digest_sha256":    nullable(a.DecisionsDigest),
		"evaluation_digest_sha256":   a.EvaluationDigest,
		"reliable":                   a.Reliable,
		"terminal_outcome":           outcome,
		"bound_ledger_digest_sha256": nullable(a.BoundLedgerDigest),
	}
}

func (l *LedgerFacts) tree() any {
	if l == nil {
		return nil
	}
	return map[string]any{
		"ledger_version":    l.LedgerVersion,
		"execution_run_id":  l.ExecutionRunID,
		"rows":              l.Rows,
		"chain_head_sha256": l.ChainHead,
		"terminal_kind":     nullable(l.TerminalKind),
	}
}

// Tree returns the predicate as a JSON tree (canon's value types).
func (p Predicate) Tree() map[string]any {
	return map[string]any{
		"artefact": p.Artefact.tree(),
		"ledger":   p.Ledger.tree(),
		"checks": map[string]any{
			"validate": p.Checks.Validate,
			"replay":   p.Checks.Replay,
			"bundle":   p.Checks.Bundle,
		},
		"obaudit_version": p.ObauditVersion,
	}
}

// Marshal returns the Statement's RFC 8785 canonical JSON, the exact bytes
// that are signed. It refuses to marshal a Statement whose predicate
// breaks a rule of the v1 predicate (a programming error, returned as
// [ErrPredicateInvalid]).
func (s *Statement) Marshal() ([]byte, error) {
	pred := s.Predicate.Tree()
	if _, err := readPredicate(pred); err != nil {
		return nil, err
	}
	subjects := make([]any, len(s.Subjects))
	for i, sub := range s.Subjects {
		subjects[i] = map[string]any{"name": sub.Name, "digest": map[string]any{"sha256": sub.SHA256}}
	}
	typ := s.Type
	if typ == "" {
		typ = StatementType
	}
	return canon.JCS(map[string]any{
		"_type":         typ,
		"subject":       subjects,
		"predicateType": PredicateType,
		"predicate":     pred,
	})
}

// Parse reads a signed Statement: strict JSON (duplicate keys and the like
// refused), exactly the four Statement fields, a known _type, this
// predicate type, one or two well-formed subjects, and a predicate that
// keeps the v1 rules (the named checks of predicate.go) and has a ledger
// section exactly when there is a second subject.
func Parse(b []byte) (*Statement, error) {
	if len(b) > MaxStatementBytes {
		return nil, refusal.New(ErrMalformedStatement, "%d bytes is more than %d", len(b), MaxStatementBytes)
	}
	tree, err := canon.Parse(b)
	if err != nil {
		return nil, refusal.Wrap(ErrMalformedStatement, err, "")
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrMalformedStatement, "not a JSON object")
	}
	if err := exactKeys(m, "_type", "subject", "predicateType", "predicate"); err != nil {
		return nil, refusal.New(ErrMalformedStatement, "statement: %v", err)
	}
	s := &Statement{}
	switch t, _ := m["_type"].(string); t {
	case StatementType, StatementTypeV01:
		s.Type = t
	default:
		return nil, refusal.New(ErrMalformedStatement, "_type %q is not an in-toto Statement v1 or v0.1", t)
	}
	if pt, _ := m["predicateType"].(string); pt != PredicateType {
		return nil, refusal.New(ErrUnknownPredicateType, "predicateType %q is not %s", pt, PredicateType)
	}
	subs, ok := m["subject"].([]any)
	if !ok || len(subs) < 1 || len(subs) > 2 {
		return nil, refusal.New(ErrMalformedStatement, "subject is not an array of one or two subjects")
	}
	for i, sv := range subs {
		sub, err := parseSubject(sv)
		if err != nil {
			return nil, refusal.New(ErrMalformedStatement, "subject %d: %v", i, err)
		}
		s.Subjects = append(s.Subjects, sub)
	}
	if s.Predicate, err = readPredicate(m["predicate"]); err != nil {
		return nil, err
	}
	if (s.Predicate.Ledger != nil) != (len(s.Subjects) == 2) {
		return nil, refusal.New(ErrPredicateInvalid, "the predicate's ledger section and the %d subject(s) disagree", len(s.Subjects))
	}
	return s, nil
}

func exactKeys(m map[string]any, keys ...string) error {
	extra := jsonfield.Unknown(m, keys)
	missing := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { _, ok := m[k]; return ok })
	if len(extra) > 0 || len(missing) > 0 {
		return fmt.Errorf("unknown fields [%s], missing fields [%s]", strings.Join(extra, " "), strings.Join(missing, " "))
	}
	return nil
}

func parseSubject(v any) (Subject, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return Subject{}, errors.New("not an object")
	}
	if err := exactKeys(m, "name", "digest"); err != nil {
		return Subject{}, err
	}
	name, ok := m["name"].(string)
	if !ok {
		return Subject{}, errors.New("name is not a string")
	}
	d, ok := m["digest"].(map[string]any)
	if !ok {
		return Subject{}, errors.New("digest is not an object")
	}
	if err := exactKeys(d, "sha256"); err != nil {
		return Subject{}, fmt.Errorf("digest: %v", err)
	}
	h, _ := d["sha256"].(string)
	if !jsonfield.IsLowerHex(h, 64) {
		return Subject{}, errors.New("digest.sha256 is not 64 lowercase hex digits")
	}
	return Subject{Name: name, SHA256: h}, nil
}

// SHA256Hex returns the lowercase hex SHA-256 of b, a subject digest.
func SHA256Hex(b []byte) string { return canon.SHA256Hex(b) }

// CheckSubjects refuses ([ErrSubjectMismatch]) unless the files in are
// exactly the Statement's subjects: the artefact's SHA-256 equals the first
// subject's, and the ledger's the second's, with a ledger given exactly
// when there is a second subject.
func (s *Statement) CheckSubjects(in Inputs) error {
	want := 1
	if in.Ledger != nil {
		want = 2
	}
	if len(s.Subjects) != want {
		if want == 2 {
			return refusal.New(ErrSubjectMismatch, "a ledger was given but the commitment covers only the artefact")
		}
		return refusal.New(ErrSubjectMismatch, "the commitment covers a ledger (%s) that was not given", s.Subjects[1].Name)
	}
	if got := in.artefactSHA256(); got != s.Subjects[0].SHA256 {
		return refusal.New(ErrSubjectMismatch, "artefact %s has SHA-256 %s, the commitment's subject %q has %s", in.ArtefactName, got, s.Subjects[0].Name, s.Subjects[0].SHA256)
	}
	if in.Ledger != nil {
		if got := canon.SHA256Hex(in.Ledger); got != s.Subjects[1].SHA256 {
			return refusal.New(ErrSubjectMismatch, "ledger %s has SHA-256 %s, the commitment's subject %q has %s", in.LedgerName, got, s.Subjects[1].Name, s.Subjects[1].SHA256)
		}
	}
	return nil
}

// CheckPredicate refuses ([ErrPredicateMismatch]) unless the predicate's
// artefact and ledger sections equal what [Derive] reads from the files.
// Derivation refusals are returned as they are.
func (s *Statement) CheckPredicate(in Inputs) error {
	a, l, err := Derive(in)
	if err != nil {
		return err
	}
	if d := diff("artefact", s.Predicate.Artefact.tree(), a.tree()); d != "" {
		return refusal.New(ErrPredicateMismatch, "%s", d)
	}
	if d := diff("ledger", s.Predicate.Ledger.tree(), l.tree()); d != "" {
		return refusal.New(ErrPredicateMismatch, "%s", d)
	}
	return nil
}

// diff names the first field (in key order) where the signed value and the
// derived one differ, or returns "".
func diff(section string, signed, derived any) string {
	sm, ok1 := signed.(map[string]any)
	dm, ok2 := derived.(map[string]any)
	if !ok1 || !ok2 {
		if canon.String(signed, canon.JCSForm) != canon.String(derived, canon.JCSForm) {
			return fmt.Sprintf("%s: signed %s, the files say %s", section, canon.String(signed, canon.JCSForm), canon.String(derived, canon.JCSForm))
		}
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(dm)) {
		sv, dv := canon.String(sm[k], canon.JCSForm), canon.String(dm[k], canon.JCSForm)
		if sv != dv {
			return fmt.Sprintf("%s.%s: signed %s, the files say %s", section, k, sv, dv)
		}
	}
	return ""
}

// Signer signs a Statement's bytes into a bundle (package artefact/sigstore
// implements it).
type Signer interface {
	SignStatement(ctx context.Context, statement []byte) ([]byte, error)
}

// Verifier verifies a bundle's signature and returns the exact Statement
// bytes it signs (package artefact/sigstore implements it). It checks who
// signed; [Verify] checks what.
type Verifier interface {
	VerifyStatement(ctx context.Context, bundle []byte) ([]byte, error)
}
