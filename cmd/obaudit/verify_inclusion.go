package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/checkpoint"
	"github.com/spf13/cobra"
)

func newVerifyInclusionCmd(g *globals) *cobra.Command {
	var keyPath, proofPath, cpPath, origin string
	c := &cobra.Command{
		Use:   "verify-inclusion --key PUB --proof P [--checkpoint C] [--origin O] BUNDLE",
		Short: "Verify that one episode's commitment bundle is in a signed campaign checkpoint",
		Long: `Checks a C2SP tlog-proof (from obaudit commit) for BUNDLE, offline: the checkpoint is
signed by PUB; with --checkpoint, the proof is for exactly that checkpoint (same size
and root); with --origin, the checkpoint names that origin; and the proof's hashes lead
from BUNDLE's leaf at the proof's index to the checkpoint's root.

It says nothing about BUNDLE's own signature or the files it covers: that is
obaudit verify. Exit 0: included. Exit 1: refused, by class.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if keyPath == "" || proofPath == "" {
				return usagef("--key and --proof are required")
			}
			pub, err := readPublicKey(cmd, keyPath)
			if err != nil {
				return err
			}
			proofFile, err := readInputAs(cmd, proofPath, kindProof)
			if err != nil {
				return err
			}
			bundleFile, err := readInputAs(cmd, args[0], kindBundle)
			if err != nil {
				return err
			}
			opts := checkpoint.VerifyOptions{Origin: origin}
			if opts.Checkpoint, err = readOptional(cmd, cpPath, kindCheckpoint); err != nil {
				return err
			}
			cp, idx, err := checkpoint.VerifyInclusion(proofFile, bundleFile, pub, opts)
			if err != nil {
				return err
			}
			root := fmt.Sprintf("%x", cp.Root)
			return writeReport(cmd, g, map[string]any{
				"mediaType": "application/vnd.obaudit.verify-inclusion+json;version=1",
				"ok":        true,
				"bundle":    args[0],
				"index":     int64(idx),
				"origin":    cp.Origin,
				"size":      int64(cp.Size),
				"root":      root,
			}, func(w io.Writer) {
				fmt.Fprintf(w, "included: %s is leaf %d of %d in %s (root %s)\n", args[0], idx, cp.Size, cp.Origin, root)
			})
		},
	}
	f := c.Flags()
	f.StringVar(&keyPath, "key", "", "the checkpoint signer's ECDSA P-256 public key (PEM)")
	f.StringVar(&proofPath, "proof", "", "the episode's tlog-proof file")
	f.StringVar(&cpPath, "checkpoint", "", "the campaign checkpoint the proof must be for")
	f.StringVar(&origin, "origin", "", "the origin the checkpoint must name")
	return c
}
