// Package engine runs one episode of an operation: a simulated clock, an
// event queue, an agent that is invoked when something wakes it, and an
// append-only trajectory (the execution ledger) of everything that happened.
// It is upstream OperateBench 0.9.0's runtime; both engine versions obaudit
// carries (schemas.EngineUpstream, schemas.EngineObaudit) run this same code
// and differ only in the version carried into the result.
//
// The engine imports no domain (TestDependencyRules holds it to that). It
// knows shapes, never semantics: what an event means, whether an action is
// allowed and what the record holds are the pack's, reached through the
// contract below.
//
// # The domain contract
//
// A pack implements [Domain] for one scenario of its operation:
//
//   - Plan: the scenario as the engine runs it ([Plan]): start instant,
//     authored events (each at an instant, or conditional on a [Trigger]:
//     an accepted action or event of a type, optionally in one cycle, plus
//     a delay), the horizon, the per-invocation bounds, the invocation
//     allowance, the message fixtures whose dispatch is authored to fail,
//     and run metadata ([ScenarioMeta]) the engine carries but never reads.
//   - Static: the published vocabulary every observation shows ([Static]):
//     policy view, actors, action schemas, wake event types, the retrieval
//     catalogue and the record mechanics; and the pack's types the hosted
//     decisions ASK and ESCALATE become ([HostedTypes]).
//   - NewState: a fresh mutable record ([State]) for one execution. The
//     Domain value itself is immutable and may be shared by concurrent
//     episodes.
//   - EventAuthority: the authority class of an event's actor (from the
//     actor registry, never from the event type).
//   - RequiredReads: the reads an outcome key must have had served in the
//     current window before it is proposed (the read guard's input).
//
// The [State] owns the record and is reached only through its reducers:
// ReduceEvent, ApplyAction and ApplyTerminal return a [Verdict] (accepted,
// or refused with a code and detail; a refusal mutates nothing), Serve
// answers a canonical batch of reads at an instant without mutating, and
// Canonical is the whole record (hidden truth included), the episode's
// final_state. While it reduces, a state is handed a [Context]: the clock
// (Now, Shift), the ledger (Record), timers (ScheduleTimer, CancelTimer)
// and the authored dispatch faults; it cannot deliver events, invoke the
// agent or move time. Two interfaces are optional: [StateEncoder] (the
// state writes its own canonical bytes, which must equal
// canon.Upstream(Canonical()); a pack declares each record's members once
// to a [Members], which yields both forms, as the engine does for its
// decisions and observations) and [Graded] (the domain publishes a
// [GradingContract], copied into [Episode.Contract] so the evaluator,
// which imports no domain either, grades from data: the scenario's
// expectations, the terminal classes, the catalogue and root shapes, the
// read and citation contract with its selectors ([EvidenceSelector], whose
// fields the pack names), and which of its types each rubric rule is about
// ([RubricTypes])). No operation's word is spelled here: repo_test.go's
// TestPackBoundary fails on any string literal of a pack's vocabulary
// outside that pack.
//
// An [Agent] is told the operation and an opaque instance id
// (BeginEpisode) and then answers one [Observation] per call with a
// [Decision]: a business outcome ([Act], [Wait], [Ask], [Escalate],
// [Complete]), a read step ([Retrieve]) or an unreadable answer
// ([Malformed]). [Ask] and [Escalate] are upstream's composite outcomes:
// the engine proposes them as the pack's Static.Hosted Ask and Escalate
// actions and, when the action is accepted, waits (an Escalate on the
// pack's EscalationResolved event, with its deadline as fallback).
//
// # The loop
//
// [Run] validates the [Config] and executes the episode ([Execute] runs one
// execution without a self-check). An execution queues the authored timed
// events, tells the agent the episode begins and then, until something
// halts it, takes the earliest pending event (by instant, then sequence,
// then event id; engine timers sort after every authored sequence at an
// instant) and advances the clock to it. A standing wait's fallback
// deadline that falls first fires instead and invokes the agent with no
// event; anything past the horizon ends the episode.
//
// Delivering an event: after the operation is replay-final it is recorded
// and ignored (event_after_terminal); otherwise the state reduces it
// (event_rejected, or event_observed / event_audit_only), conditional
// events whose trigger it satisfies are scheduled, and an accepted event
// that triggers the agent invokes it unless the operation is now
// replay-final (with a wait_rejected row first when the standing wait did
// not declare that wake type).
//
// An invocation (agent_invoked) clears the served-read window
// (derived_context_invalidated) and the retrieval batch budget, then calls
// the agent turn by turn. A [Retrieve] is checked against the catalogue and
// budget and served (retrieval_served rows) or refused (retrieval_refused);
// it is not a business turn. A business outcome is first held to the
// outcome contract (else outcome_rejected, MALFORMED_AGENT_OUTCOME), then
// recorded (agent_outcome) and handled: an action passes the read guard
// (ACTION_WITHOUT_RETRIEVAL, STALE_RETRIEVED_RECORD,
// ACTED_ON_CLAIM_WITHOUT_RECORD) and the state's ApplyAction
// (action_rejected, or effect_accepted, which invalidates the served window
// and fires action-triggered events) and the invocation continues; a wait
// naming only published wake types is declared (wait_declared) and ends the
// invocation (one naming others is wait_rejected and the invocation goes
// on); a terminal proposal passes the read guard and ApplyTerminal and,
// accepted, ends the invocation (terminal_rejected otherwise). An invocation that produces more business
// outcomes than the plan allows, or more calls than outcomes plus batches
// plus one, is a critical_violation and deadlocks the episode, as is an
// agent invoked more often than the allowance.
//
// The episode ends with an episode_ended row and a status: [StatusDeadlock]
// when a limit stopped it and [StatusHorizon] when the horizon did; else the
// business terminal when the operation is replay-final, and [StatusHorizon]
// when nothing was left to deliver. The
// [Episode] holds the trajectory, the delivered events, the final state,
// the decision tape (one entry per agent call, bound to the digest of the
// observation it answered) and the trajectory, final-state and decisions
// digests, each a SHA-256 over upstream canonical JSON
// ([AppendCanonical]); a caller that only grades the episode sets
// [Config.NoDigests] and gets it without the tape and the digests. Nothing
// is read from the wall clock or from randomness: the instance id is
// injected and instants are the canonical "YYYY-MM-DDTHH:MM:SSZ"
// ([ParseInstant], [FormatInstant]).
//
// # Self-check modes
//
// [Config.SelfCheck] says how a run checks its own determinism (upstream's
// deterministic_replay), reported in [Episode.ReplayOK]:
//
//   - [SelfCheckNone]: one execution; ReplayOK is nil (the evaluator grades
//     REPLAY_NOT_CHECKED).
//   - [SelfCheckRerun]: a second whole execution with a fresh agent from the
//     factory and a fresh state; its trajectory and final-state canonical
//     bytes must equal the first execution's byte for byte (what a
//     deterministic agent gets).
//   - [SelfCheckPlayback]: the environment is executed again with the first
//     execution's decision tape played back by [Playback] (no agent runs a
//     second time); the final-state and trajectory digests must match (what
//     a model-backed agent gets).
//
// # Refusals
//
// Two kinds of "no" are kept apart. What an agent or an event does wrong is
// a recorded, non-mutating verdict in the trajectory (a code such as
// EVENT_ACTOR_LACKS_AUTHORITY or STALE_RETRIEVED_RECORD), never an error:
// the episode goes on and the evaluator grades it. What makes an episode
// impossible to run is an error of a named class, and the run returns no
// episode:
//
//   - engine/config: no domain, no agent factory, or an unknown self-check
//     mode ([ErrConfig]);
//   - engine/malformed-instance-id, engine/unknown-version: the injected
//     instance id or engine version ([ErrMalformedInstanceID],
//     [ErrUnknownEngineVersion]);
//   - engine/malformed-instant, engine/clock-rewind,
//     engine/duplicate-event-id: a plan or a state that would schedule a
//     non-canonical instant, move the clock backwards or reuse an event id
//     ([ErrMalformedInstant], [ErrClockRewind], [ErrDuplicateEventID]);
//   - playback/…: a decision tape that does not describe the episode it is
//     replayed against ([ErrTapeExhausted], [ErrTapeUnconsumed],
//     [ErrDecisionOrder], [ErrObservationMismatch], [ErrMalformedDecision]).
//
// An error the agent returns (a provider lane's, say) aborts the run and is
// returned as is.
//
// # Other runtimes
//
// hosted.go exposes the engine's own rules ([NewHostedContext],
// [NewObservation], [ContractProblem], [BatchProblem], [ReadGuard],
// [EventEnvelope], [ClaimValues]) so that another runtime (a treatment arm
// without the timed loop) drives an unchanged domain and unchanged agents
// without reimplementing them.
package engine
