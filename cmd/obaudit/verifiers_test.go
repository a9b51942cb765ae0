//go:build !obaudit_sigstore

package main

import "github.com/obaudit/obaudit/artefact/sigstore/sigverify"

// The tests run the command line in-process (and the test binary stands in
// for the installed one) with obaudit-sigstore's verifiers.
func init() { verifiers = verifiersOf(sigverify.NewKeyVerifier, sigverify.NewKeylessVerifier) }
