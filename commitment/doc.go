// Package commitment builds, signs and verifies obaudit run commitments: an
// in-toto Statement v1 that binds an episode artefact file (and, when there
// is one, its execution ledger file) by SHA-256 to a predicate carrying what
// an auditor compares.
//
// # Format
//
// A commitment is the RFC 8785 canonical JSON of
//
//	{"_type": "https://in-toto.io/Statement/v1",
//	 "subject": [{"name": ARTEFACT, "digest": {"sha256": HEX}},
//	             {"name": LEDGER,   "digest": {"sha256": HEX}}],   // ledger optional
//	 "predicateType": "https://obaudit.dev/run-commitment/v1",
//	 "predicate": {...}}
//
// Subject digests are over the exact bytes of the files (obaudit writes both
// in canonical form, so cosign verify-blob-attestation on a file agrees).
// Subject names are the file names at signing time and are not compared on
// verification; the order is: artefact first, ledger second.
//
// The predicate's validator is this package's named checks, one rule per
// field, each refusal naming the JSON pointer of the value it is about. The
// published JSON Schema, [schemas.CommitmentV1], states the same rules and
// is the oracle TestPredicateOracle holds them to: every committed and
// generated vector gets the same verdict from both, save documented
// exceptions where the named checks are stricter (never the other way).
// The predicate's artefact and ledger sections are derived from the files
// by [Derive], so a verifier recomputes and compares them. Its checks
// section records which obaudit checks passed before signing (validate,
// replay, bundle); false means "not run", since a failing check refuses to
// sign.
//
// The Statement travels in a DSSE envelope inside a Sigstore bundle. This
// package does not sign; it calls a [Signer] and a [Verifier] (package
// artefact/sigstore implements both with sigstore-go).
//
// # Verification
//
// [Verify] checks, in order and fail-closed: the bundle's signature (the
// Verifier's classes), that the signed Statement is a well-formed in-toto
// Statement (v1, or v0.1 as cosign attest-blob writes) of this predicate
// type whose predicate keeps the v1 rules, that each given file's SHA-256
// equals its subject and that the subjects are exactly the files given, and
// that the predicate's artefact and ledger sections equal what [Derive]
// computes from the files.
//
// # Refusals
//
// [ErrMalformedStatement], [ErrUnknownPredicateType], [ErrPredicateInvalid],
// [ErrSubjectMismatch], [ErrPredicateMismatch], [ErrArtefactInvalid],
// [ErrLedgerInvalid], [ErrLedgerUnbound], [ErrCheckFailed].
//
// # Compatibility
//
// The predicate type names its version. Within v1 unknown fields are refused
// (the signature covers them; an auditor that ignored them would vouch for
// content it never read). An incompatible change gets a new predicate type
// and schema file; the v1 reader stays.
package commitment
