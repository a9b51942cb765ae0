package checkpoint

import "github.com/obaudit/obaudit/refusal"

// Refusal classes.
var (
	// ErrMalformed is returned when a checkpoint or a proof does not parse:
	// not a signed note, a body that is not "origin, size, base64 root", a
	// proof without its c2sp.org/tlog-proof@v1 header, index line or
	// checkpoint, a hash that is not 32 bytes of base64, or an input larger
	// than its bound.
	ErrMalformed = refusal.Sentinel("checkpoint/malformed")
	// ErrSignatureInvalid is returned when a checkpoint carries no valid
	// signature by the trusted key (signed by another key, or a byte of the
	// note changed).
	ErrSignatureInvalid = refusal.Sentinel("checkpoint/signature-invalid")
	// ErrOriginMismatch is returned when a checkpoint names another origin
	// than the one expected.
	ErrOriginMismatch = refusal.Sentinel("checkpoint/origin-mismatch")
	// ErrTreeMismatch is returned when a proof was made for another
	// checkpoint than the one given: another tree size or another root.
	ErrTreeMismatch = refusal.Sentinel("checkpoint/tree-mismatch")
	// ErrInclusionInvalid is returned when the proof does not place this
	// episode's leaf at its index under the checkpoint's root: a proof for
	// another leaf, an index beyond the tree, or altered hashes.
	ErrInclusionInvalid = refusal.Sentinel("checkpoint/inclusion-invalid")
	// ErrDuplicateLeaf is returned when a campaign lists the same commitment
	// bundle twice, which would count one episode twice.
	ErrDuplicateLeaf = refusal.Sentinel("checkpoint/duplicate-leaf")
)
