// Package checkpoint holds the formats of a commitment to a campaign of
// signed run commitments: the leaf framing, the C2SP signed checkpoint (an
// ECDSA note signer and verifier) and the C2SP tlog-proof, with the offline
// inclusion verifier. The log itself is kept by package campaign on
// tessera (obaudit commit and campaign logs alike).
//
// # Format
//
// Leaves. Episode i's leaf is its run commitment bundle file (a Sigstore
// bundle, as obaudit sign or cosign attest-blob wrote it), by the SHA-256 of
// its exact bytes. The leaf data is framed and tagged,
//
//	"obaudit-campaign/v1 leaf\n" || hex(SHA-256(bundle bytes)) || "\n"
//
// and hashed as RFC 6962 prescribes: leaf hash = SHA-256(0x00 || leaf data),
// node hash = SHA-256(0x01 || left || right) (github.com/transparency-dev/merkle
// rfc6962), so leaves and interior nodes can never be confused, and the tag
// keeps these leaves apart from any other obaudit hash input.
//
// Checkpoint. A C2SP tlog-checkpoint (c2sp.org/tlog-checkpoint): the note
// text "ORIGIN\nSIZE\nBASE64(ROOT)\n", signed as a C2SP signed note
// (golang.org/x/mod/sumdb/note) by one ECDSA P-256 key, signature type 0x02
// (the key ID is the first four bytes of SHA-256 of the key's PKIX DER), under
// the key name ORIGIN. An origin is a schema-less URL-like name without
// spaces or "+", and may not begin with "DSSEv1", so that no checkpoint text
// is ever a DSSE pre-authentication encoding the same key signs for run
// commitments.
//
// Proofs. One C2SP tlog-proof@v1 file per episode (c2sp.org/tlog-proof):
// "c2sp.org/tlog-proof@v1", "index N", the inclusion proof hashes in base64
// one per line, an empty line, then the signed checkpoint verbatim.
//
// # Refusals
//
// [ErrMalformed], [ErrSignatureInvalid], [ErrOriginMismatch],
// [ErrTreeMismatch], [ErrInclusionInvalid], [ErrDuplicateLeaf].
//
// # Compatibility
//
// The leaf tag names version 1 of the leaf framing; a change gets a new tag.
// Checkpoint and proof formats are C2SP's and change only with them.
package checkpoint
