package engine

import "github.com/obaudit/obaudit/refusal"

// Refusals returned while running an episode. Each says when it is returned.
var (
	// ErrClockRewind is returned when something would move the simulated
	// clock backwards or shift an instant by a negative number of minutes.
	ErrClockRewind = refusal.Sentinel("engine/clock-rewind")
	// ErrMalformedInstant is returned when an instant is not the canonical
	// "YYYY-MM-DDTHH:MM:SSZ" form.
	ErrMalformedInstant = refusal.Sentinel("engine/malformed-instant")
	// ErrDuplicateEventID is returned when an event identity is scheduled a
	// second time in one episode (identities are single-use).
	ErrDuplicateEventID = refusal.Sentinel("engine/duplicate-event-id")
	// ErrMalformedInstanceID is returned when an operation instance id is not
	// "opinst_" followed by 32 lower-case hex digits.
	ErrMalformedInstanceID = refusal.Sentinel("engine/malformed-instance-id")
	// ErrUnknownEngineVersion is returned when a run names an engine version
	// obaudit does not carry (see schemas.Engines).
	ErrUnknownEngineVersion = refusal.Sentinel("engine/unknown-version")
	// ErrConfig is returned when a run configuration is incomplete or
	// contradictory (no domain, no agent factory, an unknown self-check mode).
	ErrConfig = refusal.Sentinel("engine/config")
)

// Refusals returned by the tape playback agent ([Playback]) when a recorded
// decision tape does not describe the episode it is replayed against.
var (
	// ErrTapeExhausted is returned when the episode asks for a decision the
	// tape does not hold.
	ErrTapeExhausted = refusal.Sentinel("playback/tape-exhausted")
	// ErrTapeUnconsumed is returned when the episode ends with recorded
	// decisions left over.
	ErrTapeUnconsumed = refusal.Sentinel("playback/tape-unconsumed")
	// ErrDecisionOrder is returned when a recorded decision's invocation and
	// turn are not the ones the episode is asking for.
	ErrDecisionOrder = refusal.Sentinel("playback/decision-order")
	// ErrObservationMismatch is returned when the observation offered to a
	// recorded decision does not hash to the digest recorded beside it.
	ErrObservationMismatch = refusal.Sentinel("playback/observation-mismatch")
	// ErrMalformedDecision is returned when a recorded decision is not shaped
	// like one the engine writes.
	ErrMalformedDecision = refusal.Sentinel("playback/malformed-decision")
)
