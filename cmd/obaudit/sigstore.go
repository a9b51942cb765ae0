package main

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/obaudit/obaudit/artefact/sigstore"
	"github.com/obaudit/obaudit/commitment"
	"github.com/spf13/cobra"
)

// verifierSet makes Sigstore bundle verifiers. They come from
// artefact/sigstore/sigverify, which links sigstore-go's verification (its
// transparency-log, Rekor and gRPC packages), whose package initialisation
// is most of a process's start-up (BENCHMARKS.md, "Start-up"). So only a
// binary built with the obaudit_sigstore tag (obaudit-sigstore) links them
// (sigstore_linked.go); the default build has none and hands each command
// that verifies a bundle (marked by [markSigstore]) whole to
// obaudit-sigstore, which is the same command line with them.
type verifierSet struct {
	// key verifies bundles signed by one pinned public key.
	key func(pub *ecdsa.PublicKey) (commitment.Verifier, error)
	// keyless verifies certificate-signed bundles against a trusted root
	// and an expected identity.
	keyless func(trustedRootJSON []byte, id sigstore.Identity) (commitment.Verifier, error)
}

// verifiersOf adapts sigverify's constructors.
func verifiersOf[V commitment.Verifier](key func(*ecdsa.PublicKey) (V, error), keyless func([]byte, sigstore.Identity) (V, error)) verifierSet {
	return verifierSet{
		key: func(pub *ecdsa.PublicKey) (commitment.Verifier, error) {
			v, err := key(pub)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
		keyless: func(root []byte, id sigstore.Identity) (commitment.Verifier, error) {
			v, err := keyless(root, id)
			if err != nil {
				return nil, err
			}
			return v, nil
		},
	}
}

// verifiers are this binary's: set at init by sigstore_linked.go (and by
// the tests), else none.
var verifiers verifierSet

// sigstoreAnnotation marks a command that verifies Sigstore bundles.
const sigstoreAnnotation = "obaudit/sigstore-verify"

// sigstoreBinary is the name obaudit-sigstore is installed under.
const sigstoreBinary = "obaudit-sigstore"

// markSigstore marks c as a command that verifies bundles.
func markSigstore(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[sigstoreAnnotation] = "yes"
	return c
}

// handOver reports whether args name a command that verifies bundles while
// this binary has no verifiers. If so it runs the command line in
// obaudit-sigstore, installed beside this executable (never looked up on
// PATH: what verifies a signature is not chosen by the environment), and
// returns its exit code, or the error that kept it from starting (before
// anything was read or written).
func handOver(ctx context.Context, root *cobra.Command, args []string, stdin io.Reader, stdout, stderr io.Writer) (bool, int, error) {
	if verifiers.key != nil {
		return false, 0, nil
	}
	c, _, err := root.Find(args)
	if err != nil || c.Annotations[sigstoreAnnotation] == "" || asksHelp(args) {
		return false, 0, nil
	}
	if os.Getenv(handedOverEnv) != "" {
		// A default build installed under obaudit-sigstore's name: handing
		// over again would run itself for ever.
		self, _ := os.Executable()
		return true, 0, fmt.Errorf("%s was handed %s by obaudit, and it does not link the verifiers: it is a default build, not obaudit-sigstore; rebuild it with go build -tags obaudit_sigstore", self, c.CommandPath())
	}
	path, err := siblingPath()
	if err != nil {
		return true, 0, fmt.Errorf("%s verifies Sigstore bundles in %s, %w", c.CommandPath(), sigstoreBinary, err)
	}
	code, err := execSibling(ctx, path, args, stdin, stdout, stderr)
	return true, code, err
}

// handedOverEnv marks, in the environment of the obaudit-sigstore obaudit
// runs, that the command was handed over, so that a binary without the
// verifiers never hands it over again.
const handedOverEnv = "OBAUDIT_HANDED_OVER"

// handOverEnv is the environment obaudit-sigstore runs with.
func handOverEnv() []string { return append(os.Environ(), handedOverEnv+"=1") }

// siblingPath is obaudit-sigstore's path: beside this executable, with
// symlinks resolved, and a regular file.
func siblingPath() (string, error) {
	name := sigstoreBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err != nil {
		return "", fmt.Errorf("and this executable's own path is unknown (%v)", err)
	}
	path := filepath.Join(filepath.Dir(self), name)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("which is not installed beside %s; build it there: go build -tags obaudit_sigstore -o %s ./cmd/obaudit", self, path)
	}
	return path, nil
}

// verification says where this binary's bundle verification is: "linked",
// or the obaudit-sigstore it hands it to, or "missing" and why.
func verification() (state, detail string) {
	if verifiers.key != nil {
		return "linked", ""
	}
	path, err := siblingPath()
	if err != nil {
		return "missing", sigstoreBinary + ", " + err.Error()
	}
	return "beside", path
}

// asksHelp reports whether args ask for a command's help (-h or --help
// before any "--"), which obaudit prints itself: every command is in its
// tree, only the verifiers are not.
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "--help":
			return true
		}
	}
	return false
}
