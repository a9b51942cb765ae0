package artefact

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/format/provexec"
)

// Artefact is the typed view of one episode artefact. Field names follow
// the JSON keys; comments give the key. Fields a contract does not carry are
// zero (OperationInstanceID below contract 4; Decisions, DecisionsDigest and
// Execution below contract 2; ProviderExecution below 7 and for every run
// that reached no provider).
//
// Values the engine and the domain own (event payloads, trajectory rows,
// the final state, decision bodies) stay as JSON trees (map[string]any and
// []any with int64, float64, string, bool and nil leaves), exactly as
// [canon.Parse] produces them, so re-encoding reproduces their bytes.
type Artefact struct {
	ArtifactVersion     int64          // artifact_version
	EngineVersion       string         // engine_version
	Operation           Operation      // operation
	OperationInstanceID string         // operation_instance_id (contract >= 4)
	ScenarioID          string         // scenario_id
	SemanticScenarioID  string         // semantic_scenario_id
	ScenarioLabel       string         // scenario_label
	AgentID             string         // agent_id
	AgentKind           string         // agent_kind
	ExpectedTerminal    string         // expected_terminal
	Status              string         // status
	TerminalOutcome     *string        // terminal_outcome (null when no terminal was reached)
	ReplayFinal         bool           // replay_final
	StartedAt           string         // started_at
	EndedAt             string         // ended_at
	SimulatedMinutes    int64          // simulated_minutes
	AgentInvocations    int64          // agent_invocations
	Events              []any          // events: delivered events, in delivery order
	Trajectory          []any          // trajectory: the ledger rows
	TrajectoryDigest    string         // trajectory_digest_sha256
	FinalState          map[string]any // final_state
	FinalStateDigest    string         // final_state_digest_sha256
	Evaluation          Evaluation     // evaluation
	Decisions           []Decision     // decisions (contract >= 2)
	DecisionsDigest     string         // decisions_digest_sha256 (contract >= 2)
	Execution           *Execution     // agent_execution (contract >= 2)
	ProviderExecution   *Binding       // provider_execution (contract >= 7; nil is JSON null)
	Note                string         // note
}

// Operation is the identity of the operation spec a run executed.
type Operation struct {
	OperationID        string   // operation_id
	OperationType      string   // operation_type
	OperationVersion   string   // operation_version
	SemanticScenarioID string   // semantic_scenario_id
	PrivacyStatus      string   // privacy_status
	SpecDigest         string   // spec_digest_sha256
	ScenarioIDs        []string // scenario_ids
}

// Evaluation is the result vector.
type Evaluation struct {
	TerminalOutcome      string      // terminal_outcome
	LegitimateCompletion bool        // legitimate_completion
	Reliable             bool        // reliable
	FailedDimensions     []string    // failed_dimensions
	FindingCodes         []string    // finding_codes
	Dimensions           []Dimension // dimensions
}

// Dimension is one graded dimension of the result vector.
type Dimension struct {
	Name     string           // name
	OK       bool             // ok
	Findings []Finding        // findings
	Counts   map[string]int64 // counts
	Note     string           // note
}

// Finding is one finding of a dimension.
type Finding struct {
	Code   string  // code
	Detail string  // detail
	At     *string // at (null or text)
}

// Decision is one entry of the decision tape: one call the engine made to
// the agent, the digest of the observation it was handed, and what came
// back (the outcome body, a JSON tree whose "kind" selects its shape).
type Decision struct {
	InvocationIndex   int64          // invocation_index (from 1)
	TurnIndex         int64          // turn_index
	ObservationDigest string         // observation_digest_sha256
	Outcome           map[string]any // outcome
}

// Execution is the execution record: how the decisions were produced.
type Execution struct {
	OutcomeSource   string    // outcome_source: deterministic, model or recorded
	Model           *string   // model
	ProtocolVersion *string   // protocol_version
	MaxOutputTokens *int64    // max_output_tokens
	TransportCalls  int64     // transport_calls
	RetryCount      int64     // retry_count (always 0)
	Attempts        []Attempt // attempts
	Excluded        bool      // excluded (never true in an artefact)
	ExclusionCode   *string   // exclusion_code
	ExclusionDetail string    // exclusion_detail
}

// Attempt is one provider call of a model execution.
type Attempt struct {
	InvocationIndex int64   // invocation_index
	TurnIndex       int64   // turn_index
	RequestDigest   string  // request_digest_sha256
	Outcome         string  // outcome: decided, classified or failed
	Fault           *string // fault (non-null iff failed)
}

// Binding is the provider execution binding (contract >= 7), one type with
// the ledger's ([provexec.Binding]).
type Binding = provexec.Binding

// DecisionDigest returns the digest a ledger records for decision i: the
// upstream content digest of its outcome body (the ledger's
// decision_digest_sha256).
func (a *Artefact) DecisionDigest(i int) (string, error) {
	return canon.UpstreamDigest(a.Decisions[i].Outcome)
}

// Seal computes and sets the three content digests (trajectory, final
// state and, from contract 2, decisions) from the content beside them.
func (a *Artefact) Seal() error {
	var err error
	if a.TrajectoryDigest, err = canon.UpstreamDigest(anySlice(a.Trajectory)); err != nil {
		return err
	}
	if a.FinalStateDigest, err = canon.UpstreamDigest(a.FinalState); err != nil {
		return err
	}
	if a.ArtifactVersion >= 2 {
		if a.DecisionsDigest, err = canon.UpstreamDigest(decisionsTree(a.Decisions)); err != nil {
			return err
		}
	}
	return nil
}

func anySlice(x []any) []any {
	if x == nil {
		return []any{}
	}
	return x
}

// opt is the tree value of an optional field: null for nil.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func decisionsTree(ds []Decision) []any {
	out := make([]any, len(ds))
	for i, d := range ds {
		out[i] = map[string]any{
			"invocation_index":          d.InvocationIndex,
			"turn_index":                d.TurnIndex,
			"observation_digest_sha256": d.ObservationDigest,
			"outcome":                   d.Outcome,
		}
	}
	return out
}

// Tree returns the artefact as a JSON tree holding exactly the top-level
// fields of its contract, ready for canonical encoding.
func (a *Artefact) Tree() map[string]any {
	op := map[string]any{
		"operation_id":         a.Operation.OperationID,
		"operation_type":       a.Operation.OperationType,
		"operation_version":    a.Operation.OperationVersion,
		"semantic_scenario_id": a.Operation.SemanticScenarioID,
		"privacy_status":       a.Operation.PrivacyStatus,
		"spec_digest_sha256":   a.Operation.SpecDigest,
		"scenario_ids":         canon.StringList(a.Operation.ScenarioIDs),
	}
	t := map[string]any{
		"artifact_version":          a.ArtifactVersion,
		"engine_version":            a.EngineVersion,
		"operation":                 op,
		"scenario_id":               a.ScenarioID,
		"semantic_scenario_id":      a.SemanticScenarioID,
		"scenario_label":            a.ScenarioLabel,
		"agent_id":                  a.AgentID,
		"agent_kind":                a.AgentKind,
		"expected_terminal":         a.ExpectedTerminal,
		"status":                    a.Status,
		"terminal_outcome":          opt(a.TerminalOutcome),
		"replay_final":              a.ReplayFinal,
		"started_at":                a.StartedAt,
		"ended_at":                  a.EndedAt,
		"simulated_minutes":         a.SimulatedMinutes,
		"agent_invocations":         a.AgentInvocations,
		"events":                    anySlice(a.Events),
		"trajectory":                anySlice(a.Trajectory),
		"trajectory_digest_sha256":  a.TrajectoryDigest,
		"final_state":               a.FinalState,
		"final_state_digest_sha256": a.FinalStateDigest,
		"evaluation":                a.Evaluation.Tree(),
		"note":                      a.Note,
	}
	v := int(a.ArtifactVersion)
	if v >= 2 {
		t["decisions"] = decisionsTree(a.Decisions)
		t["decisions_digest_sha256"] = a.DecisionsDigest
		t["agent_execution"] = a.Execution.tree()
	}
	if v >= 4 {
		t["operation_instance_id"] = a.OperationInstanceID
	}
	if v >= 7 {
		var pe any
		if a.ProviderExecution != nil {
			pe = a.ProviderExecution.Tree()
		}
		t["provider_execution"] = pe
	}
	return t
}

// Tree renders the result vector as the artefact's "evaluation" object.
func (e *Evaluation) Tree() map[string]any {
	dims := make([]any, len(e.Dimensions))
	for i, d := range e.Dimensions {
		findings := make([]any, len(d.Findings))
		for j, f := range d.Findings {
			findings[j] = map[string]any{"code": f.Code, "detail": f.Detail, "at": opt(f.At)}
		}
		counts := make(map[string]any, len(d.Counts))
		for k, n := range d.Counts {
			counts[k] = n
		}
		dims[i] = map[string]any{"name": d.Name, "ok": d.OK, "findings": findings, "counts": counts, "note": d.Note}
	}
	return map[string]any{
		"terminal_outcome":      e.TerminalOutcome,
		"legitimate_completion": e.LegitimateCompletion,
		"reliable":              e.Reliable,
		"failed_dimensions":     canon.StringList(e.FailedDimensions),
		"finding_codes":         canon.StringList(e.FindingCodes),
		"dimensions":            dims,
	}
}

func (e *Execution) tree() any {
	if e == nil {
		return nil
	}
	attempts := make([]any, len(e.Attempts))
	for i, at := range e.Attempts {
		attempts[i] = map[string]any{
			"invocation_index":      at.InvocationIndex,
			"turn_index":            at.TurnIndex,
			"request_digest_sha256": at.RequestDigest,
			"outcome":               at.Outcome,
			"fault":                 opt(at.Fault),
		}
	}
	return map[string]any{
		"outcome_source":    e.OutcomeSource,
		"model":             opt(e.Model),
		"protocol_version":  opt(e.ProtocolVersion),
		"max_output_tokens": opt(e.MaxOutputTokens),
		"transport_calls":   e.TransportCalls,
		"retry_count":       e.RetryCount,
		"attempts":          attempts,
		"excluded":          e.Excluded,
		"exclusion_code":    opt(e.ExclusionCode),
		"exclusion_detail":  e.ExclusionDetail,
	}
}

// Unchecked returns the typed view of a tree that nothing validated, for
// tests of the readers of a [Document] over trees no validator accepts
// (hostile strings, spliced rows). Every reader of real input goes through
// [Read] or [Validate]. A tree of the wrong kinds panics.
func Unchecked(tree map[string]any, fileSHA256 string) *Document {
	return &Document{Artefact: decode(tree), Tree: tree, FileSHA256: fileSHA256}
}

// decode builds the typed view of a validated tree. It relies on the
// validation having run: every type assertion below is guaranteed.
func decode(t map[string]any) *Artefact {
	s := func(k string) string { x, _ := t[k].(string); return x }
	op := t["operation"].(map[string]any)
	a := &Artefact{
		ArtifactVersion: t["artifact_version"].(int64),
		EngineVersion:   s("engine_version"),
		Operation: Operation{
			OperationID:        op["operation_id"].(string),
			OperationType:      op["operation_type"].(string),
			OperationVersion:   op["operation_version"].(string),
			SemanticScenarioID: op["semantic_scenario_id"].(string),
			PrivacyStatus:      op["privacy_status"].(string),
			SpecDigest:         op["spec_digest_sha256"].(string),
			ScenarioIDs:        strs(op["scenario_ids"]),
		},
		OperationInstanceID: s("operation_instance_id"),
		ScenarioID:          s("scenario_id"),
		SemanticScenarioID:  s("semantic_scenario_id"),
		ScenarioLabel:       s("scenario_label"),
		AgentID:             s("agent_id"),
		AgentKind:           s("agent_kind"),
		ExpectedTerminal:    s("expected_terminal"),
		Status:              s("status"),
		TerminalOutcome:     ptrStr(t["terminal_outcome"]),
		ReplayFinal:         t["replay_final"].(bool),
		StartedAt:           s("started_at"),
		EndedAt:             s("ended_at"),
		SimulatedMinutes:    t["simulated_minutes"].(int64),
		AgentInvocations:    t["agent_invocations"].(int64),
		Events:              t["events"].([]any),
		Trajectory:          t["trajectory"].([]any),
		TrajectoryDigest:    s("trajectory_digest_sha256"),
		FinalState:          t["final_state"].(map[string]any),
		FinalStateDigest:    s("final_state_digest_sha256"),
		Note:                s("note"),
	}
	ev := t["evaluation"].(map[string]any)
	a.Evaluation = Evaluation{
		TerminalOutcome:      ev["terminal_outcome"].(string),
		LegitimateCompletion: ev["legitimate_completion"].(bool),
		Reliable:             ev["reliable"].(bool),
		FailedDimensions:     strs(ev["failed_dimensions"]),
		FindingCodes:         strs(ev["finding_codes"]),
	}
	for _, d := range ev["dimensions"].([]any) {
		dm := d.(map[string]any)
		dim := Dimension{Name: dm["name"].(string), OK: dm["ok"].(bool), Note: dm["note"].(string), Counts: map[string]int64{}}
		for k, n := range dm["counts"].(map[string]any) {
			dim.Counts[k] = n.(int64)
		}
		for _, f := range dm["findings"].([]any) {
			fm := f.(map[string]any)
			dim.Findings = append(dim.Findings, Finding{Code: fm["code"].(string), Detail: fm["detail"].(string), At: ptrStr(fm["at"])})
		}
		a.Evaluation.Dimensions = append(a.Evaluation.Dimensions, dim)
	}
	if a.ArtifactVersion >= 2 {
		a.DecisionsDigest = s("decisions_digest_sha256")
		for _, d := range t["decisions"].([]any) {
			dm := d.(map[string]any)
			a.Decisions = append(a.Decisions, Decision{
				InvocationIndex:   dm["invocation_index"].(int64),
				TurnIndex:         dm["turn_index"].(int64),
				ObservationDigest: dm["observation_digest_sha256"].(string),
				Outcome:           dm["outcome"].(map[string]any),
			})
		}
		ex := t["agent_execution"].(map[string]any)
		e := &Execution{
			OutcomeSource:   ex["outcome_source"].(string),
			Model:           ptrStr(ex["model"]),
			ProtocolVersion: ptrStr(ex["protocol_version"]),
			TransportCalls:  ex["transport_calls"].(int64),
			RetryCount:      ex["retry_count"].(int64),
			Excluded:        ex["excluded"].(bool),
			ExclusionCode:   ptrStr(ex["exclusion_code"]),
			ExclusionDetail: ex["exclusion_detail"].(string),
		}
		if n, ok := ex["max_output_tokens"].(int64); ok {
			e.MaxOutputTokens = &n
		}
		for _, at := range ex["attempts"].([]any) {
			am := at.(map[string]any)
			e.Attempts = append(e.Attempts, Attempt{
				InvocationIndex: am["invocation_index"].(int64),
				TurnIndex:       am["turn_index"].(int64),
				RequestDigest:   am["request_digest_sha256"].(string),
				Outcome:         am["outcome"].(string),
				Fault:           ptrStr(am["fault"]),
			})
		}
		a.Execution = e
	}
	if b, ok := t["provider_execution"].(map[string]any); ok {
		pb := &Binding{
			ExecutionRunID:          b["execution_run_id"].(string),
			ExecutionLedgerVersion:  b["execution_ledger_version"].(int64),
			ExecutionLedgerDigest:   b["execution_ledger_digest_sha256"].(string),
			Provider:                b["provider"].(string),
			API:                     b["api"].(string),
			Model:                   b["model"].(string),
			SettingsDigest:          b["settings_digest_sha256"].(string),
			PricingDigest:           b["pricing_digest_sha256"].(string),
			ProviderCalls:           b["provider_calls"].(int64),
			Attempts:                b["attempts"].(int64),
			MeasuredCostUSD:         b["measured_cost_usd"].(string),
			ForfeitedReservationUSD: b["forfeited_reservation_usd"].(string),
			InputTokens:             b["input_tokens"].(int64),
			OutputTokens:            b["output_tokens"].(int64),
		}
		for _, n := range b["decision_call_index"].([]any) {
			pb.DecisionCallIndex = append(pb.DecisionCallIndex, n.(int64))
		}
		a.ProviderExecution = pb
	}
	return a
}

func strs(x any) []string {
	l := x.([]any)
	out := make([]string, len(l))
	for i, e := range l {
		out[i] = e.(string)
	}
	return out
}

func ptrStr(x any) *string {
	if s, ok := x.(string); ok {
		return &s
	}
	return nil
}

// Event is one delivered event of a validated artefact ("events"[i]):
// validation holds every field to its kind, so the view reads them without
// checking again.
type Event struct {
	EventID       string         // event_id
	EventType     string         // event_type
	ActorID       string         // actor_id
	At            string         // at (an instant)
	Sequence      int64          // sequence
	Payload       map[string]any // payload
	TriggersAgent bool           // triggers_agent
	CausedBy      string         // caused_by ("" when null)
	Disposition   string         // disposition
	VerdictCode   string         // verdict_code
}

// DeliveredEvents returns the events of a validated artefact, typed, in
// delivery order.
func (a *Artefact) DeliveredEvents() []Event {
	out := make([]Event, len(a.Events))
	for i, x := range a.Events {
		m := x.(map[string]any)
		s := func(k string) string { v, _ := m[k].(string); return v }
		out[i] = Event{
			EventID: s("event_id"), EventType: s("event_type"), ActorID: s("actor_id"), At: s("at"),
			Sequence: m["sequence"].(int64), Payload: m["payload"].(map[string]any),
			TriggersAgent: m["triggers_agent"].(bool), CausedBy: s("caused_by"),
			Disposition: s("disposition"), VerdictCode: s("verdict_code"),
		}
	}
	return out
}

// Row is one trajectory row of a validated artefact: the contract's head
// (index, at, record_type) and the record's fields, held to its record
// type's shape by validation. The accessors return the zero value for a
// field the record does not carry.
type Row map[string]any

// Rows returns the trajectory of a validated artefact, in ledger order (a
// row's index is its position).
func (a *Artefact) Rows() []Row {
	out := make([]Row, len(a.Trajectory))
	for i, x := range a.Trajectory {
		out[i] = x.(map[string]any)
	}
	return out
}

// Index is the row's index.
func (r Row) Index() int { n, _ := r["index"].(int64); return int(n) }

// Type is the row's record_type.
func (r Row) Type() string { return r.Str("record_type") }

// At is the row's instant text.
func (r Row) At() string { return r.Str("at") }

// Str returns the string field key, or "".
func (r Row) Str(key string) string { s, _ := r[key].(string); return s }

// Int returns the integer field key.
func (r Row) Int(key string) (int64, bool) { n, ok := r[key].(int64); return n, ok }

// Bool returns the boolean field key.
func (r Row) Bool(key string) bool { b, _ := r[key].(bool); return b }

// Strs returns the list-of-strings field key.
func (r Row) Strs(key string) []string { return Strings(r[key]) }

// Map returns the object field key, or nil.
func (r Row) Map(key string) map[string]any { m, _ := r[key].(map[string]any); return m }

// Strings returns the strings of a JSON list (other elements skipped; nil
// for anything that is not a list).
func Strings(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Dimension returns the named dimension of the result vector and whether
// it is graded.
func (e *Evaluation) Dimension(name string) (Dimension, bool) {
	for _, d := range e.Dimensions {
		if d.Name == name {
			return d, true
		}
	}
	return Dimension{}, false
}

// Instant is a finding's instant text, "" when it names none.
func (f Finding) Instant() string { return Deref(f.At) }

// ExecutionRecord is the execution record; a contract-1 artefact has none,
// and every run it describes was in process (outcome source deterministic).
func (a *Artefact) ExecutionRecord() Execution {
	if a.Execution == nil {
		return Execution{OutcomeSource: SourceDeterministic}
	}
	return *a.Execution
}

// Deref is the text p points to, or "" for nil (a JSON null).
func Deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// FinalPhase is the final state's "phase", or "".
func (a *Artefact) FinalPhase() string { s, _ := a.FinalState["phase"].(string); return s }
