package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/internal/safefs"
	"github.com/obaudit/obaudit/refusal"
	"github.com/spf13/cobra"
)

func newKeygenCmd(g *globals) *cobra.Command {
	var prefix string
	c := &cobra.Command{
		Use:   "keygen --output PREFIX",
		Short: "Write an ECDSA P-256 signing key pair: PREFIX.key (0600) and PREFIX.pub",
		Long: `Generates an ECDSA P-256 key pair for obaudit sign and obaudit commit.

PREFIX.key  the private key, unencrypted PKCS#8 PEM, mode 0600
PREFIX.pub  the public key, PKIX PEM (what obaudit verify --key and cosign --key read)

Neither file is ever overwritten: if either exists, nothing is written and the
command is refused (fs/exists). Keep PREFIX.key offline; publish PREFIX.pub.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if prefix == "" {
				return usagef("--output PREFIX is required")
			}
			keyPath, pubPath := prefix+".key", prefix+".pub"
			for _, p := range []string{keyPath, pubPath} {
				if _, err := os.Lstat(p); err == nil {
					return refusal.New(safefs.ErrExists, "%s exists; keygen never overwrites a key", p)
				}
			}
			k, err := sigstore.GenerateKey(rand.Reader)
			if err != nil {
				return err
			}
			priv, err := sigstore.MarshalPrivateKey(k)
			if err != nil {
				return err
			}
			pub, err := sigstore.MarshalPublicKey(&k.PublicKey)
			if err != nil {
				return err
			}
			if err := safefs.WriteFile(keyPath, priv, 0o600); err != nil {
				return err
			}
			if err := safefs.WriteFile(pubPath, pub, 0o644); err != nil {
				return err
			}
			id := sigstore.KeyID(&k.PublicKey)
			return writeReport(cmd, g, map[string]any{
				"mediaType":  "application/vnd.obaudit.keygen+json;version=1",
				"private":    keyPath,
				"public":     pubPath,
				"algorithm":  "ECDSA P-256 SHA-256",
				"key_sha256": id,
			}, func(w io.Writer) {
				fmt.Fprintf(w, "private key: %s (mode 0600; keep it offline)\n", keyPath)
				fmt.Fprintf(w, "public key:  %s\n", pubPath)
				fmt.Fprintf(w, "key sha256:  %s\n", id)
			})
		},
	}
	c.Flags().StringVar(&prefix, "output", "", "path prefix of the key files (PREFIX.key, PREFIX.pub)")
	return c
}
