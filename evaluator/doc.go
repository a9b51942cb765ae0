// Package evaluator grades one OperateBench episode: the deterministic,
// semantic, eleven-dimension result vector of upstream's evaluator (written
// for its lettings-maintenance operation), reproduced from upstream engine
// 0.9.0 byte for byte. It reads the
// trajectory, the delivered events and the final state — never text, never a
// judge — and it does not trust the runtime's guards: every dimension is
// re-derived from the record.
//
// # Use
//
// [Evaluate] takes the engine version to grade under, the pack's grading
// contract for the scenario (an engine.GradingContract the pack's domain
// publishes, engine.Graded), and the run as canon value trees:
//
//	contract := dom.(engine.Graded).GradingContract() // dom: the pack's domain for the scenario
//	ev, err := evaluator.Evaluate(engineVersion, contract, evaluator.Run{
//		Status: status, ReplayFinal: replayFinal, SimulatedMinutes: minutes,
//		AgentInvocations: invocations, FinalState: finalState,
//		Trajectory: trajectory, Events: events, ReplayOK: replayOK, // replayOK: the self-check, or nil
//	})
//
// An engine run feeds it directly: engine.Episode carries the same trees
// ([RunOf] builds the Run); a checked artefact is re-graded from its
// typed rows by episode.Regrade.
//
// # Format
//
// [Evaluation.Tree] is the artefact's `evaluation` section with upstream's
// field names: {terminal_outcome, legitimate_completion, reliable,
// failed_dimensions, finding_codes, dimensions}; each dimension is {name, ok,
// findings, counts, note} and each finding {code, detail, at}. The eleven
// dimensions, in report order, are given by [Dimensions]; `reliable` is the
// strict conjunction of legitimate completion with all eleven. Finding details
// reproduce upstream's wording, including Python's repr of identifiers and
// lists, so an evaluation encodes to upstream's bytes.
//
// # Engine versions
//
// schemas.EngineUpstream ("0.9.0") is upstream's grading exactly.
// schemas.EngineObaudit ("0.9.0+obaudit.1") adds one rule (see VERSIONING.md):
// a required notification committed but never delivered fails `recovery`
// (REQUIRED_NOTIFICATION_UNDELIVERED) and, for a transferred operation,
// `obligations` (OBLIGATION_MESSAGE_NOT_ESTABLISHED). [FindingCodes] lists
// the codes each version raises.
//
// # Refusals
//
// An unknown engine version is refused as engine.ErrUnknownEngineVersion; a
// contract the evaluator cannot apply as [ErrContract]; a record that cannot
// be read at all (where upstream's evaluator itself would stop with an
// exception) as [ErrUnreadableRecord]. A record that can be read but does not hold together
// is not refused: it is graded, and fails by name (record integrity is a
// pre-pass reported in temporal_correctness, critical_invariants and
// environment_integrity).
//
// # Compatibility
//
// The grading of an engine version never changes; a change is a new engine
// version. The evaluator imports no domain and spells no pack's word: the
// rules are upstream's (their finding codes, the record roots and fields
// they read), and which action and event types each is about
// (GradingContract.Types), the catalogue and the citation selectors reach it
// from the pack as an engine.GradingContract.
package evaluator
