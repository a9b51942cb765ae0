package sigstore

import "github.com/obaudit/obaudit/refusal"

// Refusal classes.
var (
	// ErrKeyInvalid is returned when a key file is not a PEM-encoded private
	// key (PKCS#8 or SEC 1) or public key (PKIX), or is encrypted.
	ErrKeyInvalid = refusal.Sentinel("signature/key-invalid")
	// ErrKeyUnsupported is returned when a key parses but is not ECDSA P-256.
	ErrKeyUnsupported = refusal.Sentinel("signature/key-unsupported")
	// ErrTrustedRootInvalid is returned when a trusted root file is not a
	// Sigstore trusted root sigstore-go reads, or is larger than
	// [MaxTrustedRootBytes].
	ErrTrustedRootInvalid = refusal.Sentinel("signature/trusted-root-invalid")
	// ErrMalformedBundle is returned when a bundle does not parse as a
	// Sigstore bundle sigstore-go accepts, is larger than [MaxBundleBytes], or
	// is not a DSSE envelope of an in-toto Statement with exactly one
	// signature.
	ErrMalformedBundle = refusal.Sentinel("signature/malformed-bundle")
	// ErrSignatureInvalid is returned when the envelope's signature does not
	// verify: the bundle was signed by another key, or a byte of its payload
	// or signature was changed, or (with a pinned key) it carries a
	// certificate instead of a key hint.
	ErrSignatureInvalid = refusal.Sentinel("signature/invalid")
	// ErrTlogInvalid is returned in keyless verification when the bundle has
	// no transparency-log entry that verifies against the trusted root (entry
	// missing, inclusion proof or promise invalid, unknown log).
	ErrTlogInvalid = refusal.Sentinel("signature/tlog-invalid")
	// ErrTimestampInvalid is returned in keyless verification when no
	// observer timestamp verifies (neither an RFC 3161 timestamp nor a log's
	// integrated time from a trusted authority).
	ErrTimestampInvalid = refusal.Sentinel("signature/timestamp-invalid")
	// ErrCertificateInvalid is returned in keyless verification when the
	// signing certificate does not chain to a trusted Fulcio authority at
	// every verified timestamp: expired or not yet valid then, or issued by
	// an authority the trusted root does not hold.
	ErrCertificateInvalid = refusal.Sentinel("signature/certificate-invalid")
	// ErrIdentityMismatch is returned in keyless verification when a valid
	// certificate names another identity (subject alternative name) or OIDC
	// issuer than the one expected.
	ErrIdentityMismatch = refusal.Sentinel("signature/identity-mismatch")
)
