package artefact

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes. Each is returned with a detail that starts with the JSON
// pointer of the offending value; [Pointer] extracts that pointer.
var (
	// ErrUnsupportedVersion is returned when artifact_version is not an
	// integer naming a contract this build reads (1..8).
	ErrUnsupportedVersion = refusal.Sentinel("artefact/unsupported-version")
	// ErrUnknownField is returned when an object carries a field its contract
	// does not define, at any depth (top level, operation, event, row body,
	// decision, execution record, attempt, binding, evaluation).
	ErrUnknownField = refusal.Sentinel("artefact/unknown-field")
	// ErrMissingField is returned when an object lacks a field its contract
	// requires.
	ErrMissingField = refusal.Sentinel("artefact/missing-field")
	// ErrBadField is returned when a field has the wrong JSON type or form:
	// an empty or non-string text, a boolean where a count belongs, a negative
	// or non-integer count, a malformed instant, digest or identifier.
	ErrBadField = refusal.Sentinel("artefact/bad-field")
	// ErrUnknownValue is returned when a field's value is outside its closed
	// vocabulary: a disposition, record type, decision kind (including an
	// ASK's nested wait that is not a WAIT), model output classification,
	// outcome source, fault, attempt outcome, retrieval authority, initiator
	// or refusal code, invalidation cause, terminal class, model protocol,
	// bindable provider or API, or execution-ledger version.
	ErrUnknownValue = refusal.Sentinel("artefact/unknown-value")
	// ErrBadAmount is returned when a USD amount is not an exact,
	// non-negative decimal string in its one canonical rendering.
	ErrBadAmount = refusal.Sentinel("artefact/bad-amount")
	// ErrOutOfOrder is returned when a sequence the format fixes is broken: a
	// trajectory index that is not its position, simulated time moving
	// backwards (between rows, or ended_at before started_at), or a decision
	// tape that is not strictly increasing from invocation 1.
	ErrOutOfOrder = refusal.Sentinel("artefact/out-of-order")
	// ErrLaterContract is returned when a document carries a row type or a
	// finding code that only a later contract than the one it declares writes.
	ErrLaterContract = refusal.Sentinel("artefact/later-contract")
	// ErrRowShape is returned when a trajectory row's body is none of the
	// shapes its record type is written in under the document's contract.
	ErrRowShape = refusal.Sentinel("artefact/row-shape")
	// ErrUnknownOperationType is returned when no domain registered with the
	// reader validates the document's operation type.
	ErrUnknownOperationType = refusal.Sentinel("artefact/unknown-operation-type")
	// ErrFinalState is returned when the domain's canonical-state validator
	// refuses final_state.
	ErrFinalState = refusal.Sentinel("artefact/final-state")
	// ErrEvaluation is returned when the result vector is not the one the
	// contract graded (names missing, unknown, duplicated or reordered), or
	// when failed_dimensions, finding_codes or reliable do not follow from the
	// dimensions beside them.
	ErrEvaluation = refusal.Sentinel("artefact/evaluation-incoherent")
	// ErrExecution is returned when the execution record contradicts itself:
	// retries claimed, an exclusion half-stated, an attempt's fault and
	// ending disagreeing, calls by an agent that has no provider, or more
	// attempts than calls.
	ErrExecution = refusal.Sentinel("artefact/execution-incoherent")
	// ErrExcluded is returned for an execution record marked excluded: a run
	// stopped at the provider boundary has no episode artefact.
	ErrExcluded = refusal.Sentinel("artefact/excluded-run")
	// ErrUnregisteredAgent is returned when a deterministic (or contract-1)
	// record names an agent the domain does not register.
	ErrUnregisteredAgent = refusal.Sentinel("artefact/unregistered-agent")
	// ErrRelabelled is returned when the agent identity contradicts the
	// execution source: a registered in-process agent on a model or recorded
	// record, or an agent_kind the source or registry does not give.
	ErrRelabelled = refusal.Sentinel("artefact/relabelled-run")
	// ErrModelIdentity is returned when a model record omits its model,
	// protocol or output ceiling or names a protocol this build does not
	// speak, or when a non-model record names any of them.
	ErrModelIdentity = refusal.Sentinel("artefact/model-identity")
	// ErrTapeMismatch is returned when the execution record and the decision
	// tape describe different runs: calls nobody made, attempts and decisions
	// of different number or misaligned (invocation, turn), an attempt
	// outcome that does not fit the decision beside it, one request written
	// down twice, or a decision on an invocation the episode never reached.
	ErrTapeMismatch = refusal.Sentinel("artefact/tape-mismatch")
	// ErrBindingUnexpected is returned when a record whose decisions did not
	// come off a provider carries a provider execution binding.
	ErrBindingUnexpected = refusal.Sentinel("artefact/binding-unexpected")
	// ErrBindingMissing is returned when a model record (contract >= 7)
	// carries no provider execution binding.
	ErrBindingMissing = refusal.Sentinel("artefact/binding-missing")
	// ErrBindingIncoherent is returned when a binding disagrees with the
	// record it sits in or with itself: another model, call or attempt counts
	// that are not the record's, fewer attempts than calls, a decision-to-call
	// mapping that is not exactly 0..n-1, or a protocol this build cannot
	// rebuild.
	ErrBindingIncoherent = refusal.Sentinel("artefact/binding-incoherent")
	// ErrDigestMismatch is returned when a recomputed content digest
	// (final_state, trajectory, decisions) disagrees with the one recorded.
	ErrDigestMismatch = refusal.Sentinel("artefact/digest-mismatch")
	// ErrSchema is returned by package artefact/schema when a document
	// violates the published contract-8 JSON Schema (obaudit validate
	// --schema runs it beside the named checks).
	ErrSchema = refusal.Sentinel("artefact/schema")
	// ErrNotReproducible is returned by replay for a contract this build
	// reads but does not reproduce (1..7).
	ErrNotReproducible = refusal.Sentinel("artefact/not-reproducible")
	// ErrRetrievalProvenance is returned by replay when a re-served read does
	// not come back as the read the record describes.
	ErrRetrievalProvenance = refusal.Sentinel("artefact/retrieval-provenance")
)

// pointerErr carries the JSON pointer of the value a refusal is about.
type pointerErr struct {
	pointer string
	cause   error
}

func (e *pointerErr) Error() string { return "at " + e.pointer }

// Unwrap returns the cause a refusal was wrapped around, if any.
func (e *pointerErr) Unwrap() error { return e.cause }

// Pointer returns the JSON pointer (RFC 6901) of the value a refusal from
// this package is about, or "" if err carries none. "" is also the pointer
// of the whole document; ok distinguishes the two.
func Pointer(err error) (pointer string, ok bool) {
	var p *pointerErr
	if errors.As(err, &p) {
		return p.pointer, true
	}
	return "", false
}

// fail builds a refusal of class sentinel about the value at pointer.
func fail(sentinel *refusal.Refusal, pointer string, format string, args ...any) error {
	return wrapAt(sentinel, nil, pointer, format, args...)
}

// wrapAt is fail with a cause kept in the chain (nil for none), its text
// after the detail.
func wrapAt(sentinel *refusal.Refusal, cause error, pointer, format string, args ...any) error {
	detail := cmp.Or(pointer, "/") + ": " + fmt.Sprintf(format, args...)
	if cause != nil {
		detail += ": " + cause.Error()
	}
	return &refusal.Refusal{Class: sentinel.Class, Detail: detail, Err: &pointerErr{pointer: pointer, cause: cause}}
}

// RefusalAt returns a refusal of class sentinel about the value at the JSON
// pointer, in this package's form (the detail starts with the pointer, and
// [Pointer] recovers it). It is for packages that check artefacts beside
// this one, such as artefact/schema.
func RefusalAt(sentinel *refusal.Refusal, pointer, format string, args ...any) error {
	return fail(sentinel, pointer, format, args...)
}
