package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"path/filepath"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// signValidate is the validate check obaudit sign runs first: the
// artefact reader's full validation and the re-grade, as obaudit validate
// runs them (checkArtefact). sign refuses to sign what does not validate.
var signValidate commitment.Checker = commitment.CheckerFunc(func(ctx context.Context, in commitment.Inputs) error {
	_, _, err := checkArtefact(in.Artefact)
	return err
})

// signReplay is the replay check sign runs unless --replay=false: the
// episode is re-executed as obaudit replay does (embedded spec of the
// artefact's pack) and must reproduce the record in every section.
var signReplay commitment.Checker = commitment.CheckerFunc(func(ctx context.Context, in commitment.Inputs) error {
	doc, err := artefact.Read(in.Artefact, artefactOptions())
	if err != nil {
		return err
	}
	pack, err := replayPack(doc)
	if err != nil {
		return err
	}
	r, err := replayAgainst(pack, doc, nil, "")
	if err != nil {
		return err
	}
	if !r.OK() {
		d := r.FirstDivergence
		return refusal.New(commitment.ErrCheckFailed, "replay: the replay differs from the record: first at %s %s", d.Section, d.Pointer)
	}
	return nil
})

// signBundle is the bundle audit sign runs when a ledger is given: the
// artefact and the ledger must describe one run.
var signBundle commitment.Checker = commitment.CheckerFunc(func(ctx context.Context, in commitment.Inputs) error {
	tree, err := canon.Parse(in.Artefact)
	if err != nil {
		return err
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return refusal.New(commitment.ErrArtefactInvalid, "artefact: not a JSON object")
	}
	_, err = bundle.AuditReader(m, bytes.NewReader(in.Ledger), in.LedgerName, bundle.Options{})
	return err
})

func signOptions(replay bool) commitment.Options {
	o := commitment.Options{
		Validate:       signValidate,
		Bundle:         signBundle,
		ObauditVersion: toolkitVersion,
	}
	if replay {
		o.Replay = signReplay
	}
	return o
}

func readCommitmentInputs(cmd *cobra.Command, args []string) (commitment.Inputs, error) {
	in := commitment.Inputs{ArtefactName: args[0]}
	var err error
	if in.Artefact, err = readInputAs(cmd, args[0], kindArtefact); err != nil {
		return in, err
	}
	if len(args) == 2 {
		in.LedgerName = args[1]
		if in.Ledger, err = readInputAs(cmd, args[1], kindLedger); err != nil {
			return in, err
		}
	}
	return in, nil
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
			in, err := readCommitmentInputs(cmd, args)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if predicateOnly {
				st, err := commitment.New(ctx, in, signOptions(replay))
				if err != nil {
					return err
				}
				b, err := canon.JCS(st.Predicate.Tree())
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(append(b, '\n'))
				return err
			}
			key, err := readPrivateKey(cmd, keyPath)
			if err != nil {
				return err
			}
			signer, err := sigstore.NewKeySigner(key, rand.Reader)
			if err != nil {
				return err
			}
			b, st, err := commitment.Sign(ctx, in, signOptions(replay), signer)
			if err != nil {
				return err
			}
			if output == "" {
				output = filepath.Join(filepath.Dir(args[0]), preflight.FileName(args[0], preflight.BundleSuffix))
			}
			if err := safefs.WriteFile(output, b, 0o644); err != nil {
				return err
			}
			if g.json {
				subjects := make([]any, len(st.Subjects))
				for i, s := range st.Subjects {
					subjects[i] = map[string]any{"name": s.Name, "sha256": s.SHA256}
				}
				return writeJSON(cmd, map[string]any{
					"mediaType":      "application/vnd.obaudit.sign+json;version=1",
					"bundle":         output,
					"predicate_type": commitment.PredicateType,
					"subjects":       subjects,
					"checks":         checksTree(st.Predicate.Checks),
					"key_sha256":     sigstore.KeyID(signer.PublicKey()),
				})
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "signed: %s\n", output)
			for _, s := range st.Subjects {
				fmt.Fprintf(w, "subject: %s sha256:%s\n", s.Name, s.SHA256)
			}
			ch := st.Predicate.Checks
			fmt.Fprintf(w, "checks passed: validate=%t replay=%t bundle=%t\n", ch.Validate, ch.Replay, ch.Bundle)
			fmt.Fprintf(w, "key sha256: %s\n", sigstore.KeyID(signer.PublicKey()))
			return nil
		},
	}
	c.Flags().StringVar(&keyPath, "key", "", "ECDSA P-256 private key (PEM)")
	c.Flags().StringVar(&output, "output", "", "bundle file to write (default STEM.sigstore.json beside ARTEFACT)")
	c.Flags().BoolVar(&replay, "replay", true, "re-execute the episode and refuse to sign unless it reproduces (contract 8)")
	c.Flags().BoolVar(&predicateOnly, "predicate-only", false, "print the predicate and sign nothing")
	return c
}
