package commitment

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// Checker is one obaudit check run before signing. It returns nil when the
// inputs pass, a refusal when they do not (an [ErrCheckFailed] refusal is
// passed through as it is, for a check whose "no" has no class of its
// own), and any other error for a failure to run.
type Checker interface {
	Check(ctx context.Context, in Inputs) error
}

// CheckerFunc adapts a function to [Checker].
type CheckerFunc func(ctx context.Context, in Inputs) error

// Check calls f.
func (f CheckerFunc) Check(ctx context.Context, in Inputs) error { return f(ctx, in) }

// Options configure [New] and [Sign]. The zero value runs no check; the
// command line wires the checks it has (artefact validation, replay, the
// bundle audit) and records in the predicate which passed.
type Options struct {
	// Validate checks the artefact's coherence. Nil means not run
	// (checks.validate false).
	Validate Checker
	// Replay re-executes the artefact. Nil means not run.
	Replay Checker
	// Bundle audits the artefact against the ledger; it runs only when a
	// ledger is given. Nil means not run.
	Bundle Checker
	// ObauditVersion names the signing release in the predicate. Required.
	ObauditVersion string
}

func runCheck(ctx context.Context, name string, c Checker, in Inputs) (bool, error) {
	if c == nil {
		return false, nil
	}
	err := c.Check(ctx, in)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, ErrCheckFailed) {
		return false, err
	}
	if _, ok := refusal.ClassOf(err); ok {
		return false, refusal.Wrap(ErrCheckFailed, err, "%s", name)
	}
	return false, fmt.Errorf("%s check: %w", name, err)
}

// New runs the configured checks (validate, replay, then bundle when there
// is a ledger), derives the predicate from the files, and returns the
// Statement. Any check's refusal refuses ([ErrCheckFailed], wrapping it),
// as does any derivation refusal.
func New(ctx context.Context, in Inputs, opts Options) (*Statement, error) {
	if opts.ObauditVersion == "" {
		return nil, errors.New("commitment: Options.ObauditVersion is required")
	}
	var c Checks
	var err error
	if c.Validate, err = runCheck(ctx, "validate", opts.Validate, in); err != nil {
		return nil, err
	}
	if c.Replay, err = runCheck(ctx, "replay", opts.Replay, in); err != nil {
		return nil, err
	}
	if in.Ledger != nil {
		if c.Bundle, err = runCheck(ctx, "bundle", opts.Bundle, in); err != nil {
			return nil, err
		}
	}
	// Hashed once, after the checks, for the Document check and the subject.
	in.artefactSum = canon.SHA256Hex(in.Artefact)
	a, l, err := Derive(in)
	if err != nil {
		return nil, err
	}
	s := &Statement{
		Type:      StatementType,
		Subjects:  []Subject{{Name: subjectName(in.ArtefactName, "artefact.json"), SHA256: in.artefactSHA256()}},
		Predicate: Predicate{Artefact: a, Ledger: l, Checks: c, ObauditVersion: opts.ObauditVersion},
	}
	if in.Ledger != nil {
		s.Subjects = append(s.Subjects, Subject{Name: subjectName(in.LedgerName, "execution-ledger.ndjson"), SHA256: canon.SHA256Hex(in.Ledger)})
	}
	return s, nil
}

func subjectName(path, fallback string) string {
	if path == "" || path == "-" {
		return fallback
	}
	return filepath.Base(path)
}

// Sign builds the commitment ([New]) and has signer sign its canonical
// bytes. It returns the bundle and the Statement.
func Sign(ctx context.Context, in Inputs, opts Options, signer Signer) ([]byte, *Statement, error) {
	s, err := New(ctx, in, opts)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.Marshal()
	if err != nil {
		return nil, nil, err
	}
	bundle, err := signer.SignStatement(ctx, b)
	if err != nil {
		return nil, nil, err
	}
	return bundle, s, nil
}

// Verify checks a commitment bundle against the files in: the signature
// (verifier), the Statement ([Parse]), the subjects
// ([Statement.CheckSubjects]) and the predicate
// ([Statement.CheckPredicate]), in that order, stopping at the first
// refusal. It returns the verified Statement.
func Verify(ctx context.Context, bundle []byte, in Inputs, verifier Verifier) (*Statement, error) {
	payload, err := verifier.VerifyStatement(ctx, bundle)
	if err != nil {
		return nil, err
	}
	s, err := Parse(payload)
	if err != nil {
		return nil, err
	}
	in.artefactSum = canon.SHA256Hex(in.Artefact)
	if err := s.CheckSubjects(in); err != nil {
		return nil, err
	}
	if err := s.CheckPredicate(in); err != nil {
		return nil, err
	}
	return s, nil
}
