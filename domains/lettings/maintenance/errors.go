package maintenance

import "github.com/obaudit/obaudit/refusal"

// Refusals returned when an operation spec is loaded or verified. Each says
// when it is returned.
var (
	// ErrFormat is returned when the bytes are not one strict YAML document
	// holding a mapping: malformed YAML, several documents, anchors/aliases,
	// merge keys, explicit tags, non-string keys, nesting deeper than 64.
	ErrFormat = refusal.Sentinel("spec/format")
	// ErrDuplicateKey is returned when a mapping names one key twice.
	ErrDuplicateKey = refusal.Sentinel("spec/duplicate-key")
	// ErrNonStringInstant is returned when an unquoted YAML timestamp appears
	// (YAML would read it as a date, not the string instant a spec carries).
	ErrNonStringInstant = refusal.Sentinel("spec/non-string-instant")
	// ErrAmbiguousScalar is returned for an unquoted scalar that YAML 1.1
	// (upstream's reader) and YAML 1.2 read differently: octal, hex, binary,
	// sexagesimal or underscored integers, .inf and .nan.
	ErrAmbiguousScalar = refusal.Sentinel("spec/ambiguous-scalar")
	// ErrMalformedInstant is returned when an instant is not the canonical
	// "YYYY-MM-DDTHH:MM:SSZ".
	ErrMalformedInstant = refusal.Sentinel("spec/malformed-instant")
	// ErrClockRewind is returned when an authored timing would move the
	// simulated clock backwards: a negative delay, or an unconditional event
	// before its scenario starts.
	ErrClockRewind = refusal.Sentinel("spec/clock-rewind")
	// ErrUnknownField is returned when a mapping carries a key this build
	// does not know (a spec it cannot fully honour).
	ErrUnknownField = refusal.Sentinel("spec/unknown-field")
	// ErrSchema is returned when a field is missing, has the wrong type or an
	// out-of-range value.
	ErrSchema = refusal.Sentinel("spec/schema")
	// ErrUnknownEventType is returned when an authored event (or an on_event
	// trigger) names an event type that has no reducer.
	ErrUnknownEventType = refusal.Sentinel("spec/unknown-event-type")
	// ErrActorLacksAuthority is returned when an authored event's actor does
	// not hold the authority its type requires (provenance cannot be
	// self-asserted).
	ErrActorLacksAuthority = refusal.Sentinel("spec/actor-lacks-authority")
	// ErrUnknownReference is returned when the spec names something it does
	// not declare: an actor, a message fixture, an action type, an event id,
	// a terminal class.
	ErrUnknownReference = refusal.Sentinel("spec/unknown-reference")
	// ErrDuplicateIdentity is returned when an identity (event id, authority,
	// expected rejection) is declared twice.
	ErrDuplicateIdentity = refusal.Sentinel("spec/duplicate-identity")
	// ErrUnknownScenario is returned when a run names a scenario the spec
	// does not hold.
	ErrUnknownScenario = refusal.Sentinel("spec/unknown-scenario")
	// ErrIdentityMismatch is returned when a spec no longer hashes to the
	// digest it was loaded under (checked before every run).
	ErrIdentityMismatch = refusal.Sentinel("spec/identity-mismatch")
)
