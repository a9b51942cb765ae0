package campaign

import "github.com/obaudit/obaudit/refusal"

// Refusal classes.
var (
	// ErrFileInvalid is returned by [ParseFile] when a campaign file is not
	// strict JSON of the obaudit-campaign/v1 schema: an unknown or missing
	// field, another format, a value out of range (no subjects, no
	// variants, zero trials, a stability k above the trials per cell, a
	// duplicate id, an origin that cannot name a log).
	ErrFileInvalid = refusal.Sentinel("campaign/file-invalid")
	// ErrUnknownName is returned by [Expand] when the campaign file names a
	// variant, agent, model profile lane or arm this build does not carry.
	ErrUnknownName = refusal.Sentinel("campaign/unknown-name")
	// ErrBoundsExceeded is returned by [Expand] when the worst case of the
	// per-trial bounds over every model-backed trial exceeds an aggregate
	// bound: the plan could not keep its own budget.
	ErrBoundsExceeded = refusal.Sentinel("campaign/bounds-exceeded")
	// ErrPlanInvalid is returned when a campaign directory's plan.json does
	// not decode as a sealed obaudit-campaign-plan/v1 plan, or is not the
	// plan the log's first entry seals.
	ErrPlanInvalid = refusal.Sentinel("campaign/plan-invalid")
	// ErrAlreadyStarted is returned by [Run] without Continue when any
	// assigned identity has already started or ended: a campaign runs once,
	// and interrupted work is finished with --continue, never rerun.
	ErrAlreadyStarted = refusal.Sentinel("campaign/already-started")
	// ErrLogInvalid is returned when the campaign log does not hold
	// together: a checkpoint not signed by the plan's log key, an entry
	// that is not a plan seal or an outcome record, tiles whose entries do
	// not hash to the checkpoint's root, or a consistency proof that fails.
	ErrLogInvalid = refusal.Sentinel("campaign/log-invalid")
	// ErrCheckpointMismatch is returned by [Verify] when the checkpoint the
	// verifier holds is not a prefix of the campaign's log: another origin
	// or key, a larger size, or a root the log's first entries do not hash
	// to (results added, dropped or replaced after it was published).
	ErrCheckpointMismatch = refusal.Sentinel("campaign/checkpoint-mismatch")
	// ErrIdentityMismatch is returned when an outcome record names a trial
	// the plan does not assign, names one twice, or carries identity fields
	// (seed, instance id, subject, variant, arm) other than the plan's.
	ErrIdentityMismatch = refusal.Sentinel("campaign/identity-mismatch")
	// ErrOutcomeMismatch is returned by [Verify] when an outcome record
	// disagrees with the trial's files: a file digest, the commitment, the
	// status, the funnel stage or the per-episode vector is not what the
	// files re-derive.
	ErrOutcomeMismatch = refusal.Sentinel("campaign/outcome-mismatch")
	// ErrReportMismatch is returned by [Verify] when report.json is not
	// byte for byte the report re-derived from the verified outcomes (a
	// report edited by hand).
	ErrReportMismatch = refusal.Sentinel("campaign/report-mismatch")
	// ErrLogStorage is returned when a campaign's log store cannot be used:
	// the directory records an object store that was not opened (a binary
	// built without that driver), a store other than the one recorded, a
	// storage URL obaudit does not read, or a store that refuses the log.
	ErrLogStorage = refusal.Sentinel("campaign/log-storage")
)
