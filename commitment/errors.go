package commitment

import "github.com/obaudit/obaudit/refusal"

// Refusal classes.
var (
	// ErrMalformedStatement is returned when a signed payload is not an
	// in-toto Statement this reader accepts: not strict JSON, larger than
	// [MaxStatementBytes], an unknown _type, a missing or extra field, or a
	// subject that is not {name, digest: {sha256: HEX}}.
	ErrMalformedStatement = refusal.Sentinel("commitment/malformed-statement")
	// ErrUnknownPredicateType is returned when a Statement's predicateType is
	// not [PredicateType].
	ErrUnknownPredicateType = refusal.Sentinel("commitment/unknown-predicate-type")
	// ErrPredicateInvalid is returned when a predicate breaks a rule of the
	// v1 predicate (a missing, unknown or mistyped field, a value out of its
	// bounds or form: the rules the published JSON Schema states), or names
	// a ledger while the Statement has one subject (or none while it has
	// two).
	ErrPredicateInvalid = refusal.Sentinel("commitment/predicate-invalid")
	// ErrSubjectMismatch is returned when a file's SHA-256 differs from its
	// subject's digest (a changed byte, or a bundle made for another file),
	// or when the files given are not exactly the subjects (a ledger given
	// that the commitment does not cover, or one it covers not given).
	ErrSubjectMismatch = refusal.Sentinel("commitment/subject-mismatch")
	// ErrPredicateMismatch is returned when the predicate's artefact or
	// ledger section differs from what the files say.
	ErrPredicateMismatch = refusal.Sentinel("commitment/predicate-mismatch")
	// ErrArtefactInvalid is returned when the facts a commitment carries
	// cannot be read from an artefact: not a JSON object, a missing or
	// mistyped field, or a trajectory, final-state or decisions digest that
	// does not match its content.
	ErrArtefactInvalid = refusal.Sentinel("commitment/artefact-invalid")
	// ErrLedgerInvalid is returned when a ledger's chain head cannot be
	// established: a row that is not a JSON object line, a broken index,
	// back link or row digest, a version change, or no header first.
	ErrLedgerInvalid = refusal.Sentinel("commitment/ledger-invalid")
	// ErrLedgerUnbound is returned when a ledger is given with an artefact
	// that does not bind it: no provider_execution binding, or a binding
	// whose run id or ledger digest is not this ledger's.
	ErrLedgerUnbound = refusal.Sentinel("commitment/ledger-unbound")
	// ErrCheckFailed is returned when an obaudit check run before signing
	// (validate, replay or bundle) refuses the input; the check's own
	// refusal is wrapped and stays matchable with errors.Is.
	ErrCheckFailed = refusal.Sentinel("commitment/check-failed")
)
