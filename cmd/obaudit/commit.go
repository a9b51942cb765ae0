package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/campaign"
	"github.com/obaudit/obaudit/checkpoint"
	"github.com/obaudit/obaudit/commitment"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

// commitInputs expands the arguments: a single directory stands for its
// *.sigstore.json files in name order; otherwise the files in the order
// given.
func commitInputs(args []string) ([]string, error) {
	if len(args) == 1 {
		if fi, err := os.Stat(args[0]); err == nil && fi.IsDir() {
			m, err := filepath.Glob(filepath.Join(args[0], "*.sigstore.json"))
			if err != nil {
				return nil, err
			}
			sort.Strings(m)
			if len(m) == 0 {
				return nil, usagef("%s holds no *.sigstore.json bundle", args[0])
			}
			return m, nil
		}
	}
	return args, nil
}

func newCommitCmd(g *globals) *cobra.Command {
	var keyPath, bundleKeyPath, origin, output string
	c := &cobra.Command{
		Use:   "commit --key KEY --origin ORIGIN --output DIR (BUNDLE-DIR | BUNDLE...)",
		Short: "Commit to a campaign: a signed checkpoint over many run commitments, and a proof per episode",
		Long: `Appends the episodes' run commitment bundles (a directory's *.sigstore.json files in
name order, or the files given, in order) to a new append-only log, DIR/log (C2SP tlog-tiles,
RFC 6962, written by tessera as campaign logs are), whose checkpoint (C2SP tlog-checkpoint, a
C2SP signed note under the key name ORIGIN) KEY signs, and writes a copy of it to
DIR/checkpoint and, per episode, DIR/NAME.tlog-proof (C2SP tlog-proof@v1, built from the
log's tiles).

Every bundle must first verify as a run commitment signed by --bundle-key (default: the
public half of KEY); the checkpoint never covers what does not. Leaves are the
bundles' exact bytes, framed "obaudit-campaign/v1 leaf"; the same bundle twice is
refused. DIR is created if absent; DIR/log must not exist; no file in it is ever overwritten.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyPath == "" || output == "" || origin == "" {
				return usagef("--key, --origin and --output are required")
			}
			if !checkpoint.ValidOrigin(origin) {
				return usagef("--origin %q: a name without spaces or '+', not starting with DSSEv1 (e.g. example.com/campaign/2031-03)", origin)
			}
			key, err := readPrivateKey(cmd, keyPath)
			if err != nil {
				return err
			}
			bundlePub := &key.PublicKey
			if bundleKeyPath != "" {
				if bundlePub, err = readPublicKey(cmd, bundleKeyPath); err != nil {
					return err
				}
			}
			v, err := verifiers.key(bundlePub)
			if err != nil {
				return err
			}
			paths, err := commitInputs(args)
			if err != nil {
				return err
			}
			// Every output is checked before anything is signed or
			// written (all or nothing: see writeCampaign).
			targets := []string{filepath.Join(output, "checkpoint")}
			for _, p := range paths {
				targets = append(targets, filepath.Join(output, preflight.FileName(p, preflight.ProofSuffix)))
			}
			names := map[string]string{}
			seen := map[string]string{}
			bundles := make([][]byte, len(paths))
			for i, p := range paths {
				if err := interrupted(cmd.Context()); err != nil {
					return err
				}
				b, err := readInputAs(cmd, p, kindBundle)
				if err != nil {
					return err
				}
				// The same bundle twice (one path twice, or a copy) would
				// count one episode twice: refused, as Commit would.
				if prev, dup := seen[string(b)]; dup {
					return refusal.New(checkpoint.ErrDuplicateLeaf, "%s and %s are the same bundle; each episode is committed once", prev, p)
				}
				seen[string(b)] = p
				n := preflight.FileName(p, preflight.ProofSuffix)
				if prev, dup := names[n]; dup {
					return usagef("%s and %s would both write %s: give bundles distinct file names", prev, p, n)
				}
				names[n] = p
				payload, err := v.VerifyStatement(cmd.Context(), b)
				if err != nil {
					return inFile(p, err)
				}
				if _, err := commitment.Parse(payload); err != nil {
					return inFile(p, err)
				}
				bundles[i] = b
			}
			signer, err := checkpoint.NewNoteSigner(origin, key, rand.Reader)
			if err != nil {
				return err
			}
			if err := checkCampaignOutputs(output, targets); err != nil {
				return err
			}
			if err := interrupted(cmd.Context()); err != nil {
				return err // nothing is written after an interrupt
			}
			quietTessera()
			cpPath := targets[0]
			var camp *campaign.Committed
			if err := writeCampaign(output, targets, func() (data [][]byte, err error) {
				if camp, err = campaign.CommitBundles(cmd.Context(), output, bundles, signer, &key.PublicKey); err != nil {
					return nil, err
				}
				return append([][]byte{camp.Signed}, camp.Proofs...), nil
			}); err != nil {
				return err
			}
			proofs := make([]any, len(paths))
			for i, p := range paths {
				proofs[i] = map[string]any{"index": int64(i), "bundle": p, "proof": targets[i+1]}
			}
			root := fmt.Sprintf("%x", camp.Checkpoint.Root)
			return writeReport(cmd, g, map[string]any{
				"mediaType":  "application/vnd.obaudit.commit+json;version=1",
				"origin":     origin,
				"size":       int64(camp.Checkpoint.Size),
				"root":       root,
				"checkpoint": cpPath,
				"proofs":     proofs,
				"key_sha256": sigstore.KeyID(&key.PublicKey),
			}, func(w io.Writer) {
				fmt.Fprintf(w, "checkpoint: %s\n", cpPath)
				fmt.Fprintf(w, "origin: %s\nsize: %d\nroot: %s\n", origin, camp.Checkpoint.Size, root)
				fmt.Fprintf(w, "proofs: %d in %s\n", len(paths), output)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&keyPath, "key", "", "ECDSA P-256 private key (PEM) that signs the checkpoint")
	f.StringVar(&bundleKeyPath, "bundle-key", "", "public key the episode bundles must verify with (default: KEY's)")
	f.StringVar(&origin, "origin", "", "the campaign's name: the checkpoint origin and note key name")
	f.StringVar(&output, "output", "", "directory for the checkpoint and the proofs")
	return c
}

// checkCampaignOutputs refuses, before anything is read or written, an
// output that exists (or a link or non-directory on its path) beneath an
// existing dir; a dir that does not exist yet holds none.
func checkCampaignOutputs(dir string, targets []string) error {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		return nil
	}
	return checkOutputs(0o644, targets...)
}

// writeCampaign builds the log (build appends the bundles to DIR/log and
// returns the checkpoint and proofs to write) and writes the checkpoint and
// every proof, all or nothing: dir is created if absent (mode 0755), every
// target is checked again before build runs, and on any failure the log and
// every file written are removed, and dir too when this call created it. A
// checkpoint is never left without its proofs, nor a log without its
// checkpoint.
func writeCampaign(dir string, targets []string, build func() ([][]byte, error)) (err error) {
	made := false
	if err := os.Mkdir(dir, 0o755); err == nil {
		made = true
	} else if !os.IsExist(err) {
		return err
	}
	logDir := filepath.Join(dir, campaign.LogDir)
	if _, err := os.Lstat(logDir); !os.IsNotExist(err) {
		return refusal.New(safefs.ErrExists, "%s already exists: commit writes a new log, never appends to one", logDir)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(logDir) // absent before this call (checked above): only what build wrote
			if made {
				os.Remove(dir)
			}
		}
	}()
	t, err := safefs.CheckTargets(targets...)
	if err != nil {
		return err
	}
	defer t.Close()
	data, err := build()
	if err != nil {
		t.Abandon()
		return err
	}
	return t.WriteAll(data, 0o644)
}

// inFile names the bundle a refusal is about, keeping its class.
func inFile(path string, err error) error {
	if c, ok := refusal.ClassOf(err); ok {
		return &refusal.Refusal{Class: c, Detail: path + ": " + refusal.Detail(err), Err: err}
	}
	return fmt.Errorf("%s: %w", path, err)
}
