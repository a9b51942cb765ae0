// Package campaign plans, runs, reports and verifies a preregistered
// population of episodes: a sealed plan of assigned trial identities, an
// append-only transparency log (C2SP tlog-tiles on tessera) whose first
// entry seals the plan and whose every further entry is one trial's
// outcome, and a population report ([Report]) computed from the outcomes
// alone, which [Verify] re-derives from the trials' files.
//
// The package names no operation pack, agent or provider lane: cmd/obaudit
// passes a [Catalog] to [Expand], an [Executor] and a commitment signer to
// [Run], and a [TrialChecker] and a commitment verifier to [Verify].
//
// # Format
//
// Campaign file: strict JSON, "format": "obaudit-campaign/v1" ([File]).
//
// plan.json: the RFC 8785 encoding of [Plan] ("format":
// "obaudit-campaign-plan/v1") and a newline; its seal is the SHA-256 of the
// RFC 8785 bytes ([PlanDigest]). Per-trial seeds are SHA-256 over
// "obaudit-campaign/v1 trial-seed\n" and the length-framed campaign seed
// and identity key; instance and execution run ids derive from the seed
// under their own tags.
//
// Log entries: entry 0 is "obaudit-campaign/v1 plan\n" + hex(seal) + "\n";
// every other entry is "obaudit-campaign/v1 outcome\n" followed by the
// RFC 8785 encoding of an [Outcome] ("format":
// "obaudit-campaign-outcome/v1"). Leaves are hashed as RFC 6962 prescribes
// (tessera). Checkpoints are C2SP signed notes by the plan's ECDSA P-256
// log key (package checkpoint's signer, key name = the campaign origin).
//
// Arms: full_lifecycle and [ArmNoTime] (stateful_time_removed). With both,
// the plan seals the ineligible variant × arm cells ([Ineligible]), a
// No-Time trial runs its Full twin's operation instance, outcomes carry
// CommonOutcomeV1 ([Plan.RecordsCommon]) and the report gives δ ([Delta]).
//
// report.json: the RFC 8785 encoding of [Report] (mediaType
// application/vnd.obaudit.campaign-report+json;version=1) and a newline.
//
// # Refusals
//
// [ErrFileInvalid], [ErrUnknownName], [ErrBoundsExceeded], [ErrPlanInvalid],
// [ErrAlreadyStarted], [ErrLogInvalid], [ErrCheckpointMismatch],
// [ErrIdentityMismatch], [ErrOutcomeMismatch], [ErrReportMismatch]; package
// checkpoint's classes for a checkpoint's own signature and form.
//
// # Compatibility
//
// Each format names its version; within a version unknown fields are
// refused (the log and its checkpoints cover them). An incompatible change
// gets a new format string and leaf tag; readers of v1 stay. Identities are
// fixed at plan time and independent of one another, so a shard
// ([Partition], [RunShard]) executes a partition of the same plan.
//
// # Shards
//
// shard.json: the RFC 8785 encoding of [Manifest] ("format":
// "obaudit-campaign-shard/v1") and a newline. A shard directory is a
// campaign directory of its own (the same plan.json bytes, its own log
// under the plan's key, trials/ of its identities only); [Merge] appends
// its outcomes to the campaign log in plan order after checking them as
// [Verify] does. Refusals: [ErrShardMissing], [ErrShardDuplicate],
// [ErrShardForeign], [ErrShardInvalid].
package campaign
