package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"path/filepath"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// commitmentFiles are the files a commitment covers, each read once. The
// artefact is read by readArtefactInput: strictly, with every named check
// and the re-grade (checkArtefact), as obaudit validate reads it; that one
// read is what the validate check reports, what replay and the bundle audit
// take, and, when it validated, the Document the commitment's facts are
// derived from (commitment.Inputs.Document), so no check parses it again.
type commitmentFiles struct {
	in  commitment.Inputs
	art *artefactInput
}

// readCommitmentFiles reads args (ARTEFACT [LEDGER]).
func readCommitmentFiles(cmd *cobra.Command, args []string) (*commitmentFiles, error) {
	art, err := readArtefactInput(cmd, args[0], true)
	if err != nil {
		return nil, err
	}
	f := newCommitmentFiles(args[0], art)
	if len(args) == 2 {
		f.in.LedgerName = args[1]
		if f.in.Ledger, err = readInputAs(cmd, args[1], kindLedger); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// newCommitmentFiles is the artefact named name, as read (art: with the
// re-grade), and no ledger.
func newCommitmentFiles(name string, art *artefactInput) *commitmentFiles {
	f := &commitmentFiles{in: commitment.Inputs{ArtefactName: name, Artefact: art.raw}, art: art}
	if art.err == nil {
		f.in.Document = art.doc
	}
	return f
}

// options are the checks obaudit sign runs, over the one read: validate,
// replay unless --replay=false, and the bundle audit with a ledger.
func (f *commitmentFiles) options(replay bool) commitment.Options {
	o := commitment.Options{
		Validate:       commitment.CheckerFunc(f.validate),
		Bundle:         commitment.CheckerFunc(f.bundle),
		ObauditVersion: toolkitVersion,
	}
	if replay {
		o.Replay = commitment.CheckerFunc(f.replay)
	}
	return o
}

// validate is the validate check: the artefact reader's full validation and
// the re-grade, as obaudit validate runs them. sign refuses to sign what
// does not validate.
func (f *commitmentFiles) validate(context.Context, commitment.Inputs) error { return f.art.err }

// replay is the replay check: the episode is re-executed as obaudit replay
// does (embedded spec of the artefact's pack) and must reproduce the record
// in every section.
func (f *commitmentFiles) replay(context.Context, commitment.Inputs) error {
	if f.art.err != nil {
		return f.art.err
	}
	pack, err := replayPack(f.art.doc)
	if err != nil {
		return err
	}
	r, err := replayAgainst(pack, f.art.doc, nil, "")
	if err != nil {
		return err
	}
	if !r.OK() {
		d := r.FirstDivergence
		return refusal.New(commitment.ErrCheckFailed, "replay: the replay differs from the record: first at %s %s", d.Section, d.Pointer)
	}
	return nil
}

// bundle is the bundle audit, run when a ledger is given: the artefact and
// the ledger must describe one run. An artefact that did not validate is
// still audited (verify re-runs each check on its own) from its parse.
func (f *commitmentFiles) bundle(context.Context, commitment.Inputs) error {
	var tree any
	if f.art.doc != nil {
		tree = f.art.doc.Tree
	} else {
		var err error
		if tree, err = canon.Parse(f.art.raw); err != nil {
			return err
		}
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return refusal.New(commitment.ErrArtefactInvalid, "artefact: not a JSON object")
	}
	_, err := bundle.AuditReader(m, bytes.NewReader(f.in.Ledger), f.in.LedgerName, bundle.Options{})
	return err
}

// subjectsTree is a Statement's subjects in a --json report (sign, verify).
func subjectsTree(st *commitment.Statement) []any {
	out := make([]any, len(st.Subjects))
	for i, s := range st.Subjects {
		out[i] = map[string]any{"name": s.Name, "sha256": s.SHA256}
	}
	return out
}

func checksTree(c commitment.Checks) map[string]any {
	return map[string]any{"validate": c.Validate, "replay": c.Replay, "bundle": c.Bundle}
}

func newSignCmd(g *globals) *cobra.Command {
	var keyPath, output string
	var predicateOnly, replay bool
	c := &cobra.Command{
		Use:   "sign ARTEFACT [LEDGER] --key KEY [--output B.sigstore.json]",
		Short: "Sign a run commitment: an in-toto Statement over the artefact (and ledger) in a Sigstore bundle",
		Long: `Builds the run commitment for an episode artefact and, when given, its execution
ledger: an in-toto Statement v1 whose subjects are the two files (SHA-256 of their
exact bytes) and whose predicate (type ` + commitment.PredicateType + `)
carries the artefact contract, engine version, operation, scenario, agent, the
trajectory, final-state, decisions and result-vector digests, reliable, the ledger's
chain head and terminal kind, and which obaudit checks passed. It wraps the Statement
in DSSE and a Sigstore bundle (v0.3) signed with KEY (ECDSA P-256 PEM, from obaudit
keygen), offline.

It refuses to sign what does not hold together: an artefact that does not validate (as
obaudit validate), one that does not replay to the same record (as obaudit replay;
--replay=false skips this, and contracts 1-7, which cannot be replayed, need it), and
with a ledger, a pair the bundle audit refuses (as obaudit bundle). The predicate
records which checks ran.

--output defaults to STEM.sigstore.json beside ARTEFACT (STEM: its name without
  .episode_artifact.json or .json: a preflight's ID.episode_artifact.json signs to
  ID.sigstore.json) and is never overwritten.
--predicate-only prints the predicate (RFC 8785 JSON) and signs nothing, for
  cosign attest-blob --predicate FILE --type ` + commitment.PredicateType + `.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !predicateOnly && keyPath == "" {
				return usagef("--key KEY is required (or --predicate-only)")
			}
			files, err := readCommitmentFiles(cmd, args)
			if err != nil {
				return err
			}
			in, ctx := files.in, cmd.Context()
			if predicateOnly {
				st, err := commitment.New(ctx, in, files.options(replay))
				if err != nil {
					return err
				}
				return writeJSON(cmd, st.Predicate.Tree())
			}
			key, err := readPrivateKey(cmd, keyPath)
			if err != nil {
				return err
			}
			signer, err := sigstore.NewKeySigner(key, rand.Reader)
			if err != nil {
				return err
			}
			b, st, err := commitment.Sign(ctx, in, files.options(replay), signer)
			if err != nil {
				return err
			}
			if output == "" {
				output = filepath.Join(filepath.Dir(args[0]), preflight.FileName(args[0], preflight.BundleSuffix))
			}
			if err := safefs.WriteFile(output, b, 0o644); err != nil {
				return err
			}
			return writeReport(cmd, g, map[string]any{
				"mediaType":      "application/vnd.obaudit.sign+json;version=1",
				"bundle":         output,
				"predicate_type": commitment.PredicateType,
				"subjects":       subjectsTree(st),
				"checks":         checksTree(st.Predicate.Checks),
				"key_sha256":     sigstore.KeyID(signer.PublicKey()),
			}, func(w io.Writer) {
				fmt.Fprintf(w, "signed: %s\n", output)
				for _, s := range st.Subjects {
					fmt.Fprintf(w, "subject: %s sha256:%s\n", s.Name, s.SHA256)
				}
				ch := st.Predicate.Checks
				fmt.Fprintf(w, "checks passed: validate=%t replay=%t bundle=%t\n", ch.Validate, ch.Replay, ch.Bundle)
				fmt.Fprintf(w, "key sha256: %s\n", sigstore.KeyID(signer.PublicKey()))
			})
		},
	}
	c.Flags().StringVar(&keyPath, "key", "", "ECDSA P-256 private key (PEM)")
	c.Flags().StringVar(&output, "output", "", "bundle file to write (default STEM.sigstore.json beside ARTEFACT)")
	c.Flags().BoolVar(&replay, "replay", true, "re-execute the episode and refuse to sign unless it reproduces (contract 8)")
	c.Flags().BoolVar(&predicateOnly, "predicate-only", false, "print the predicate and sign nothing")
	return c
}
