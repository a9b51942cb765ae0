package maintenance

import (
	"maps"
	"slices"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// Constants the loader enforces.
const (
	SupportedSchemaVersion = 1
	RequiredPrivacyStatus  = "SYNTHETIC_ONLY"
)

// ProducibleTerminals are the business terminals the state machine can enter:
// the only ones a scenario may expect.
var ProducibleTerminals = []string{"completed_successfully", "transferred_to_human_ownership"}

// PolicyFields lists every policy key, in upstream's order.
var PolicyFields = []string{
	"currency", "issue_classification", "approval_threshold_minor", "approval_reminder_after_minutes",
	"approval_deadline_after_minutes", "approval_validity_minutes", "provisional_close_minutes",
	"visit_followup_after_minutes", "completion_notice_within_minutes", "max_turns_per_invocation",
	"horizon_minutes", "max_retrieval_batches_per_invocation",
}

// Spec is a loaded, validated operation spec with its content identity.
// Treat it as immutable.
type Spec struct {
	OperationID        string
	OperationType      string
	OperationVersion   string
	SemanticScenarioID string
	PrivacyStatus      string
	Disclaimer         string
	DataProvenance     string
	Actors             map[string]*Actor
	Policy             Policy
	MessageFixtures    map[string]string
	HiddenState        map[string]any
	Scenarios          map[string]*Scenario
	// Digest is spec_digest_sha256: the SHA-256 of the upstream canonical JSON
	// of [Spec.SemanticPayload].
	Digest string
	Source string
}

// Actor is one registered actor.
type Actor struct {
	ID, Role  string
	Authority []string // sorted
}

// Holds reports whether the actor holds an authority.
func (a *Actor) Holds(authority string) bool {
	_, ok := slices.BinarySearch(a.Authority, authority)
	return ok
}

// Policy is the operation's invented, executable policy.
type Policy struct {
	Currency                         string
	IssueClassification              string
	ApprovalThresholdMinor           int64
	ApprovalReminderAfterMinutes     int64
	ApprovalDeadlineAfterMinutes     int64
	ApprovalValidityMinutes          int64
	ProvisionalCloseMinutes          int64
	VisitFollowupAfterMinutes        int64
	CompletionNoticeWithinMinutes    int64
	MaxTurnsPerInvocation            int64
	HorizonMinutes                   int64
	MaxRetrievalBatchesPerInvocation int64
}

func (p *Policy) tree() map[string]any {
	return map[string]any{
		"currency": p.Currency, "issue_classification": p.IssueClassification,
		"approval_threshold_minor": p.ApprovalThresholdMinor, "approval_reminder_after_minutes": p.ApprovalReminderAfterMinutes,
		"approval_deadline_after_minutes": p.ApprovalDeadlineAfterMinutes, "approval_validity_minutes": p.ApprovalValidityMinutes,
		"provisional_close_minutes": p.ProvisionalCloseMinutes, "visit_followup_after_minutes": p.VisitFollowupAfterMinutes,
		"completion_notice_within_minutes": p.CompletionNoticeWithinMinutes, "max_turns_per_invocation": p.MaxTurnsPerInvocation,
		"horizon_minutes": p.HorizonMinutes, "max_retrieval_batches_per_invocation": p.MaxRetrievalBatchesPerInvocation,
	}
}

// Scenario is one frozen variant.
type Scenario struct {
	ID                      string
	Label                   string
	StartsAt                string
	ExpectedTerminal        string
	HumanCheckpointBudget   int64
	RequiredCheckpointTypes []string // authored order
	DispatchFailures        []string // sorted
	ExpectedEventRejections []ExpectedRejection
	Events                  []AuthoredEvent
}

// ExpectedRejection is one authored delivery the scenario expects refused.
type ExpectedRejection struct{ EventID, Code, Reason string }

// AuthoredEvent is one authored external event.
type AuthoredEvent struct {
	EventID       string
	Type          string
	Actor         string
	Sequence      int64
	Payload       map[string]any
	TriggersAgent bool
	At            string // "" when conditional
	Trigger       *engine.Trigger
	DelayMinutes  int64
}

// IdentityPayload is what artefacts record as the spec identity.
func (s *Spec) IdentityPayload() map[string]any {
	return map[string]any{
		"operation_id": s.OperationID, "operation_type": s.OperationType, "operation_version": s.OperationVersion,
		"semantic_scenario_id": s.SemanticScenarioID, "privacy_status": s.PrivacyStatus,
		"spec_digest_sha256": s.Digest, "scenario_ids": canon.StringList(s.ScenarioIDs()),
	}
}

// ScenarioIDs lists the scenario ids, sorted.
func (s *Spec) ScenarioIDs() []string { return slices.Sorted(maps.Keys(s.Scenarios)) }

func optString(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// SemanticPayload is every authored fact that decides what the operation
// does: the input of spec_digest_sha256. The evaluator reads scenario data
// (budgets, required checkpoint types, expected rejections) from it.
func (s *Spec) SemanticPayload() map[string]any {
	actors := map[string]any{}
	for id, a := range s.Actors {
		actors[id] = map[string]any{"role": a.Role, "authority": canon.StringList(a.Authority)}
	}
	scenarios := map[string]any{}
	for id, sc := range s.Scenarios {
		scenarios[id] = sc.semanticPayload()
	}
	return map[string]any{
		"schema_version": int64(SupportedSchemaVersion), "operation_id": s.OperationID,
		"operation_type": s.OperationType, "operation_version": s.OperationVersion,
		"semantic_scenario_id": s.SemanticScenarioID, "privacy_status": s.PrivacyStatus,
		"disclaimer": s.Disclaimer, "data_provenance": s.DataProvenance, "actors": actors,
		"policy": s.Policy.tree(), "message_fixtures": stringsTree(s.MessageFixtures), "hidden_state": canon.Clone(s.HiddenState),
		"scenarios": scenarios,
	}
}

func (sc *Scenario) semanticPayload() map[string]any {
	rej := make([]any, len(sc.ExpectedEventRejections))
	for i, r := range sc.ExpectedEventRejections {
		rej[i] = map[string]any{"event_id": r.EventID, "code": r.Code, "reason": r.Reason}
	}
	events := make([]any, len(sc.Events))
	for i := range sc.Events {
		e := &sc.Events[i]
		var at, trig any
		if e.At != "" {
			at = e.At
		}
		if e.Trigger != nil {
			trig = map[string]any{"kind": e.Trigger.Kind, "type": e.Trigger.Type, "cycle_id": optString(e.Trigger.CycleID)}
		}
		events[i] = map[string]any{
			"event_id": e.EventID, "type": e.Type, "actor": e.Actor, "sequence": e.Sequence,
			"payload": canon.Clone(e.Payload), "triggers_agent": e.TriggersAgent, "at": at,
			"trigger": trig, "delay_minutes": e.DelayMinutes,
		}
	}
	return map[string]any{
		"label": sc.Label, "starts_at": sc.StartsAt, "expected_terminal": sc.ExpectedTerminal,
		"human_checkpoint_budget":   sc.HumanCheckpointBudget,
		"required_checkpoint_types": canon.StringList(sc.RequiredCheckpointTypes),
		"dispatch_failures":         canon.StringList(sc.DispatchFailures),
		"expected_event_rejections": rej, "events": events,
	}
}

// ComputeDigest recomputes spec_digest_sha256 from what the spec now holds.
func (s *Spec) ComputeDigest() (string, error) {
	// canon.UpstreamDigest, through the engine's faster encoder (canon's
	// bytes or canon's own error; NewOperation verifies the spec per run).
	b, err := canon.Append(nil, s.SemanticPayload(), canon.UpstreamForm)
	if err != nil {
		return "", refusal.Wrap(ErrSchema, err, "%s: this spec cannot be given a content identity", s.Source)
	}
	return canon.SHA256Hex(b), nil
}

// Verify refuses a spec that no longer hashes to the digest it was loaded
// under ([ErrIdentityMismatch]); it runs before every episode.
func (s *Spec) Verify() error {
	d, err := s.ComputeDigest()
	if err != nil {
		return err
	}
	if d != s.Digest {
		return refusal.New(ErrIdentityMismatch, "%s: this operation claims spec digest %s but what it now holds hashes to %s", s.Source, s.Digest, d)
	}
	return nil
}

// Scenario returns a scenario by id, or [ErrUnknownScenario].
func (s *Spec) Scenario(id string) (*Scenario, error) {
	sc, ok := s.Scenarios[id]
	if !ok {
		return nil, refusal.New(ErrUnknownScenario, "%s: no scenario %q in this operation; available scenarios are %v", s.Source, id, s.ScenarioIDs())
	}
	return sc, nil
}

func deepCopyMap(m map[string]any) map[string]any {
	return canon.Clone(m).(map[string]any)
}
