// Package notimewire holds the public wire types and the protocol's
// published identifiers of the stateful_time_removed arm
// (operatebench.arm.stateful_time_removed.v1): the transformed plan, the
// No-Time run record, the arm-neutral evidence projection and the
// CommonOutcomeV1 object. It is a leaf of types and literals only: no
// partition, closure, key, liveness or projection algorithm lives here, so
// the compiler/runtime (arm/notime) and the independent verifier
// (arm/notimeverify) can both read it without sharing a derived rule
// (repo_test.go TestDependencyRules holds that).
package notimewire

// Protocol and record identities.
const (
	// Protocol is the frozen upstream protocol identity this arm implements.
	Protocol = "operatebench.arm.stateful_time_removed.v1"
	// Arm names, as the CLI and records spell them.
	ArmFull   = "full_lifecycle"
	ArmNoTime = "stateful_time_removed"
	// RunContract is obaudit's record contract for a No-Time run. It is not
	// an upstream artefact contract and carries no artifact_contract_version.
	RunContract = "obaudit.arm.stateful_time_removed.run.v1"
	// VerificationContract names the `obaudit arms verify` report.
	VerificationContract = "obaudit.arm.matching_proof.v1"
	// Anchor replaces every model-visible instant in No-Time.
	Anchor = "notime:v1"
)

// Hash domains published by the protocol (§2, §4) and the ones obaudit
// names where the protocol names a domain without spelling it (VERSIONING.md).
const (
	DomainClosure            = "operatebench.notime.reachable_pre_finality_closure.v1"
	DomainCompleteOccurrence = "operatebench.notime.complete_occurrence.v1"
	DomainActivation         = "operatebench.notime.finality_activation.v1"
	DomainEventKey           = "operatebench.notime.event_key.v1"
	DomainPointKey           = "operatebench.notime.point_key.v1"
	DomainProposalKey        = "operatebench.notime.proposal_key.v1"
	DomainEffectKey          = "operatebench.notime.effect_key.v1"
	DomainCauseKey           = "operatebench.notime.cause_key.v1"
	DomainRecordVersion      = "operatebench.notime.record_version.v1"
	DomainEntry              = "operatebench.notime.common_entry.v1"
)

// Finality relations of an event to one cut specification.
const (
	PreFinality  = "pre_finality"
	PostFinality = "post_finality"
)

// Halt classes (§3).
const (
	HaltTerminal   = "TERMINAL"
	HaltDeadlock   = "DEADLOCK"
	HaltHorizon    = "TRANSITION_HORIZON"
	HaltError      = "ERROR"
	HaltRunning    = "RUNNING"
	CodeUnknown    = "UNKNOWN_TRANSITION_INPUT"
	CodeIntegrity  = "INTEGRITY"
	CodeReachMism  = "FINALITY_REACHABILITY_MISMATCH"
	CodeDuplicate  = "DUPLICATE_EVENT_ID"
	UntriggeredTag = "UNTRIGGERED_AT_FINALITY"
)

// PlanV1 is NoTimePlanV1.
type PlanV1 struct {
	Protocol                         string      `json:"protocol"`
	OriginPlanDigest                 string      `json:"origin_plan_digest"`
	Events                           []EventV1   `json:"events"`
	FinalityCutSpecs                 []CutSpecV1 `json:"finality_cut_specs"`
	MaxTransitions                   int64       `json:"max_transitions"`
	MaxInvocations                   int64       `json:"max_invocations"`
	MaxTurnsPerInvocation            int64       `json:"max_turns_per_invocation"`
	MaxRetrievalBatchesPerInvocation int64       `json:"max_retrieval_batches_per_invocation"`
}

// EventV1 is NoTimeEventV1.
type EventV1 struct {
	EventID          string         `json:"event_id"`
	EventType        string         `json:"event_type"`
	ActorID          string         `json:"actor_id"`
	AuthoredSequence int64          `json:"authored_sequence"`
	Payload          map[string]any `json:"payload"`
	TriggersAgent    bool           `json:"triggers_agent"`
	// SourceClass is "absolute" or "conditional".
	SourceClass string   `json:"source_class"`
	Cause       *CauseV1 `json:"cause"`
	// FinalityRelations maps a cut specification's
	// provisional_close_common_cause_key to pre_finality or post_finality.
	FinalityRelations map[string]string `json:"finality_relations"`
}

// CauseV1 is a conditional event's cause: an accepted action (kind
// "action") or an accepted/audit event (kind "event") of Type, on CycleID
// (nil: any cycle).
type CauseV1 struct {
	Kind    string  `json:"kind"`
	Type    string  `json:"type"`
	CycleID *string `json:"cycle_id"`
}

// CutSpecV1 is NoTimeFinalityCutSpecV1 (plus the cause it is keyed by, so a
// reader can see which accepted COMPLETE instantiates it).
type CutSpecV1 struct {
	ProvisionalCloseCommonCauseKey string    `json:"provisional_close_common_cause_key"`
	CompleteCommonPointKey         string    `json:"complete_common_point_key"`
	CompleteCycleID                *string   `json:"complete_cycle_id"`
	Closure                        ClosureV1 `json:"reachable_pre_finality_closure"`
}

// ClosureV1 is ReachablePreFinalityClosureV1.
type ClosureV1 struct {
	ConditionalEntries          []ReachableConditionalV1 `json:"conditional_entries"`
	AuthoredDescendantEventKeys []string                 `json:"authored_descendant_event_keys"`
	ClosureDigest               string                   `json:"closure_digest_sha256"`
}

// ReachableConditionalV1 is one retained conditional a cut may wait for.
type ReachableConditionalV1 struct {
	ConditionalSemanticKey string                `json:"conditional_semantic_key"`
	CauseOccurrences       []ReachableCauseOccV1 `json:"cause_occurrences"`
}

// ReachableCauseOccV1 is ReachableCauseOccurrenceV1.
type ReachableCauseOccV1 struct {
	SemanticCauseKey        string   `json:"semantic_cause_key"`
	CauseKind               string   `json:"cause_kind"`
	RequiredDisposition     string   `json:"required_disposition"`
	PredecessorSemanticKeys []string `json:"predecessor_semantic_keys"`
}

// RunV1 is one No-Time run as recorded (RunContract).
type RunV1 struct {
	Contract            string           `json:"contract"`
	Protocol            string           `json:"protocol"`
	Arm                 string           `json:"arm"`
	OperationID         string           `json:"operation_id"`
	ScenarioID          string           `json:"scenario_id"`
	SpecDigest          string           `json:"spec_digest_sha256"`
	OperationInstanceID string           `json:"operation_instance_id"`
	AgentID             string           `json:"agent_id"`
	AgentKind           string           `json:"agent_kind"`
	Plan                PlanV1           `json:"plan"`
	PlanDigest          string           `json:"plan_digest_sha256"`
	Halt                string           `json:"halt"`
	HaltCode            string           `json:"halt_code"`
	TerminalOutcome     any              `json:"terminal_outcome"`
	ReplayFinal         bool             `json:"replay_final"`
	TransitionCount     int64            `json:"transition_count"`
	Invocations         int64            `json:"invocations"`
	UnresolvedTriggers  []string         `json:"unresolved_trigger_keys"`
	Trajectory          []map[string]any `json:"trajectory"`
	Decisions           []any            `json:"decisions"`
	FinalState          map[string]any   `json:"final_state"`
	TrajectoryDigest    string           `json:"trajectory_digest_sha256"`
	FinalStateDigest    string           `json:"final_state_digest_sha256"`
	DecisionsDigest     string           `json:"decisions_digest_sha256"`
	// ElapsedMinutes is the mechanism report's duration: always null here.
	ElapsedMinutes any `json:"elapsed_minutes"`
}

// EntryV1 is one entry of ArmNeutralEvidenceProjectionV1: a common business
// fact with its kind and its normalised fields.
type EntryV1 struct {
	Kind   string         `json:"kind"`
	Fields map[string]any `json:"fields"`
}

// ProjectionV1 is ArmNeutralEvidenceProjectionV1: causally ordered common
// entries plus the integrity status of the evidence they were read from. It
// names no arm, timestamp, timer, WAIT record or compiler identity.
type ProjectionV1 struct {
	Entries []EntryV1 `json:"entries"`
	// Integrity is "ok" or a closed integrity code.
	Integrity string `json:"integrity_status"`
	// TerminalOutcome and ReplayFinal are the terminal facts of the run.
	TerminalOutcome any  `json:"terminal_outcome"`
	ReplayFinal     bool `json:"replay_final"`
}

// Common outcome statuses (the only three values `status` may take).
const (
	StatusSuccess = "SUCCESS"
	StatusFailure = "FAILURE"
	StatusError   = "ERROR"
	VerdictPass   = "PASS"
	VerdictFail   = "FAIL"
	VerdictError  = "ERROR"
)

// CommonOutcomeV1 is the sole common primary outcome object.
type CommonOutcomeV1 struct {
	Status            string            `json:"status"`
	PredicateVerdicts map[string]string `json:"predicate_verdicts"`
	FindingCodes      []string          `json:"finding_codes"`
}
