package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/refusal"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/commitment"
	"github.com/spf13/cobra"
)

// commitmentEstablishes and commitmentDoesNotEstablish are what a verified
// commitment means; SECURITY.md ("Signed commitments") says the same.
const (
	commitmentEstablishes = "the holder of the signing key (or the certified identity) signed this exact " +
		"statement: these files, byte for byte, with the facts the predicate states, which the files " +
		"were re-read to confirm"
	commitmentDoesNotEstablish = "that the run happened as recorded, that a provider answered, that the " +
		"signer ran the checks it lists, or when it signed (a key-signed bundle carries no time)"
)

func newVerifyCmd(g *globals) *cobra.Command {
	var bundlePath, keyPath, rootPath, identity, issuer string
	var replay bool
	c := &cobra.Command{
		Use:   "verify --bundle B (--key PUB | --trusted-root ROOT --certificate-identity ID --certificate-oidc-issuer ISS) ARTEFACT [LEDGER]",
		Short: "Verify a signed run commitment against the artefact (and ledger), offline",
		Long: `Verifies a run commitment bundle (from obaudit sign, or cosign attest-blob with the
obaudit predicate) offline and fail-closed, in this order: the signature, by the pinned
public key (--key) or keyless (--trusted-root with --certificate-identity and
--certificate-oidc-issuer: the certificate chain at the verified timestamps, a
transparency-log entry and an observer timestamp, then the identity); the Statement and
its predicate type and schema; that ARTEFACT (and LEDGER) are exactly the signed
subjects, byte for byte; and that the predicate agrees with what the files say. Then
the checks the predicate says the signer ran are re-run here (validate with the
re-grade, replay unless --replay=false, and the bundle audit when LEDGER is given):
a signature binds digests to a key, and says nothing about whether the evidence holds.

Nothing is fetched from the network. Exit 0: verified, and every re-run check holds.
Exit 1: refused, by class. Exit 2: the signature verifies and a re-run check refuses
the evidence (the report names it).`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if bundlePath == "" {
				return usagef("--bundle B is required")
			}
			keyless := rootPath != "" || identity != "" || issuer != ""
			switch {
			case keyPath != "" && keyless:
				return usagef("--key and keyless flags (--trusted-root, --certificate-identity, --certificate-oidc-issuer) are exclusive")
			case keyPath == "" && !keyless:
				return usagef("give --key PUB, or --trusted-root with --certificate-identity and --certificate-oidc-issuer")
			case keyless && (rootPath == "" || identity == "" || issuer == ""):
				return usagef("keyless verification needs all of --trusted-root, --certificate-identity and --certificate-oidc-issuer")
			}
			var v commitment.Verifier
			signer := map[string]any{}
			if keyPath != "" {
				pub, err := readPublicKey(cmd, keyPath)
				if err != nil {
					return err
				}
				if v, err = verifiers.key(pub); err != nil {
					return err
				}
				signer["key_sha256"] = sigstore.KeyID(pub)
			} else {
				rootJSON, err := readInputAs(cmd, rootPath, kindTrustedRoot)
				if err != nil {
					return err
				}
				if v, err = verifiers.keyless(rootJSON, sigstore.Identity{Subject: identity, Issuer: issuer}); err != nil {
					return err
				}
				signer["certificate_identity"] = identity
				signer["certificate_oidc_issuer"] = issuer
			}
			b, err := readInputAs(cmd, bundlePath, kindBundle)
			if err != nil {
				return err
			}
			files, err := readCommitmentFiles(cmd, args)
			if err != nil {
				return err
			}
			st, err := commitment.Verify(cmd.Context(), b, files.in, v)
			if err != nil {
				return err
			}
			// The predicate's checks are the signer's statement: re-run them.
			rechecked, failed := recheck(cmd, files, replay)
			p := st.Predicate
			if err := writeReport(cmd, g, map[string]any{
				"mediaType":          "application/vnd.obaudit.verify+json;version=1",
				"ok":                 true,
				"statement_type":     st.Type,
				"predicate_type":     commitment.PredicateType,
				"subjects":           subjectsTree(st),
				"signer":             signer,
				"predicate":          p.Tree(),
				"rechecked":          rechecked,
				"evidence_holds":     failed == nil,
				"establishes":        commitmentEstablishes,
				"does_not_establish": commitmentDoesNotEstablish,
			}, func(w io.Writer) {
				fmt.Fprintf(w, "verified: %s\n", bundlePath)
				for _, s := range st.Subjects {
					fmt.Fprintf(w, "subject: %s sha256:%s\n", s.Name, s.SHA256)
				}
				if id, ok := signer["key_sha256"]; ok {
					fmt.Fprintf(w, "signed by key sha256: %s\n", id)
				} else {
					fmt.Fprintf(w, "signed by: %s (issuer %s)\n", identity, issuer)
				}
				a := p.Artefact
				fmt.Fprintf(w, "run: %s %s, scenario %s, agent %s, engine %s, contract %d\n",
					a.OperationID, a.OperationVersion, a.ScenarioID, a.AgentID, a.EngineVersion, a.ArtifactVersion)
				fmt.Fprintf(w, "reliable: %t, result vector sha256:%s\n", a.Reliable, a.EvaluationDigest)
				if p.Ledger != nil {
					fmt.Fprintf(w, "ledger: v%d, %d rows, chain head %s, terminal %s\n", p.Ledger.LedgerVersion, p.Ledger.Rows, p.Ledger.ChainHead, orNone(p.Ledger.TerminalKind))
				}
				fmt.Fprintf(w, "checks the signer reports: validate=%t replay=%t bundle=%t\n", p.Checks.Validate, p.Checks.Replay, p.Checks.Bundle)
				for _, name := range []string{"validate", "replay", "bundle"} {
					if r, ok := rechecked[name]; ok {
						fmt.Fprintf(w, "re-checked here: %s %s\n", name, r)
					}
				}
				fmt.Fprintf(w, "establishes: %s\n", commitmentEstablishes)
				fmt.Fprintf(w, "not established: %s\n", commitmentDoesNotEstablish)
			}); err != nil {
				return err
			}
			return failed
		},
	}
	f := c.Flags()
	f.StringVar(&bundlePath, "bundle", "", "the commitment bundle (Sigstore bundle JSON)")
	f.StringVar(&keyPath, "key", "", "the signer's ECDSA P-256 public key (PEM)")
	f.StringVar(&rootPath, "trusted-root", "", "Sigstore trusted root JSON, for keyless verification")
	f.StringVar(&identity, "certificate-identity", "", "expected certificate subject (email or URI), exact")
	f.StringVar(&issuer, "certificate-oidc-issuer", "", "expected OIDC issuer, exact")
	f.BoolVar(&replay, "replay", true, "also re-execute the episode (contract 8) when re-running the signer's checks")
	return c
}

// recheck re-runs the checks sign runs (validate with the re-grade, replay
// unless disabled or the contract is not reproduced, the bundle audit when a
// ledger is given) on the verified files. A signature binds digests to a key;
// whether the evidence holds is re-established here, never read off the
// predicate. failed is an answer-no naming the first check that refused.
func recheck(cmd *cobra.Command, f *commitmentFiles, replay bool) (map[string]any, error) {
	out := map[string]any{}
	var failed error
	run := func(name string, c commitment.CheckerFunc) {
		err := c(cmd.Context(), f.in)
		if err == nil {
			out[name] = "ok"
			return
		}
		class, _ := refusal.ClassOf(err)
		out[name] = "refused " + string(class)
		if failed == nil {
			failed = answerNo("the signature verifies, and the evidence it signs does not hold: %s refused (%s: %s)", name, class, refusal.Detail(err))
		}
	}
	run("validate", f.validate)
	if f.art.err == nil && replay && artefact.Reproducible(f.art.doc.Version()) {
		run("replay", f.replay)
	}
	if f.in.Ledger != nil {
		run("bundle", f.bundle)
	}
	return out, failed
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
