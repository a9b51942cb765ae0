package main

import (
	"crypto/ecdsa"
	"io"
	"os"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/spf13/cobra"
)

// readInput reads the named file, or stdin for "-", bounded by
// limits.MaxInputBytes (a larger input is refused as limits/exceeded).
func readInput(cmd *cobra.Command, name string) ([]byte, error) {
	var r io.Reader
	if name == "-" {
		r = cmd.InOrStdin()
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, limits.MaxInputBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > limits.MaxInputBytes {
		return nil, limits.Exceeded("MaxInputBytes", limits.MaxInputBytes, int64(len(b)))
	}
	return b, nil
}

// readPrivateKey reads a PEM private key (sigstore.ParsePrivateKey) from
// the named file, or stdin for "-".
func readPrivateKey(cmd *cobra.Command, name string) (*ecdsa.PrivateKey, error) {
	b, err := readInputAs(cmd, name, kindPrivateKey)
	if err != nil {
		return nil, err
	}
	return sigstore.ParsePrivateKey(b)
}

// readPublicKey reads a PEM public key (sigstore.ParsePublicKey) from the
// named file, or stdin for "-".
func readPublicKey(cmd *cobra.Command, name string) (*ecdsa.PublicKey, error) {
	b, err := readInputAs(cmd, name, kindPublicKey)
	if err != nil {
		return nil, err
	}
	return sigstore.ParsePublicKey(b)
}
