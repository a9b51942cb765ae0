// Package episodeview reads the parts of an episode artefact (contract 8)
// that the Agent Run export and the episode report present: identity,
// delivered events, trajectory rows, the result vector, the execution record
// and the digests.
//
// It is a view, not a validator. Callers establish an artefact's coherence
// first (the artefact package's validation, injected) and use this package
// only to read what they map. A missing or mistyped field is a plain error
// that the caller turns into its own refusal class.
package episodeview

import (
	"fmt"
	"slices"
	"time"

	"github.com/obaudit/obaudit/canon"
)

// Episode is the read-only view of one artefact.
type Episode struct {
	ArtifactVersion    int64
	EngineVersion      string
	Operation          Operation
	InstanceID         string
	ScenarioID         string
	SemanticScenarioID string
	ScenarioLabel      string
	AgentID            string
	AgentKind          string
	ExpectedTerminal   string
	Status             string
	TerminalOutcome    string // "" when the artefact says null
	ReplayFinal        bool
	StartedAt, EndedAt Instant
	SimulatedMinutes   int64
	AgentInvocations   int64
	Events             []Event
	Rows               []Row
	Evaluation         Evaluation
	Decisions          int
	Execution          Execution
	Provider           *Provider // nil when provider_execution is null
	FinalPhase         string

	TrajectoryDigest string
	FinalStateDigest string
	DecisionsDigest  string
	// FileSHA256 is the SHA-256 of the artefact file's bytes as read.
	FileSHA256 string
}

// Operation is the artefact's operation identity.
type Operation struct {
	ID, Type, Version, SemanticScenarioID, PrivacyStatus, SpecDigest string
	ScenarioIDs                                                      []string
}

// Instant is a simulated-time instant: the artefact's text and its parse.
type Instant struct {
	Text string
	T    time.Time
}

// Event is one delivered event.
type Event struct {
	ID, Type, Actor string
	At              Instant
	Sequence        int64
	TriggersAgent   bool
	CausedBy        string // "" when null
	Disposition     string
	Verdict         string
	Payload         map[string]any
}

// Row is one trajectory row: index, instant, record type and its fields.
type Row struct {
	Index int
	At    Instant
	Type  string
	F     map[string]any
}

// Str returns the row's string field key, or "".
func (r Row) Str(key string) string { s, _ := r.F[key].(string); return s }

// Int returns the row's integer field key.
func (r Row) Int(key string) (int64, bool) { n, ok := r.F[key].(int64); return n, ok }

// Bool returns the row's boolean field key.
func (r Row) Bool(key string) bool { b, _ := r.F[key].(bool); return b }

// Strs returns the row's list-of-strings field key (non-strings skipped).
func (r Row) Strs(key string) []string { return strs(r.F[key]) }

// Map returns the row's object field key, or nil.
func (r Row) Map(key string) map[string]any { m, _ := r.F[key].(map[string]any); return m }

// Evaluation is the result vector.
type Evaluation struct {
	TerminalOutcome      string
	LegitimateCompletion bool
	Reliable             bool
	FailedDimensions     []string
	FindingCodes         []string
	Dimensions           []Dimension
}

// Dimension is one of the eleven graded dimensions.
type Dimension struct {
	Name     string
	OK       bool
	Findings []Finding
	Counts   []Count // sorted by name
	Note     string
}

// Finding is one evaluator finding.
type Finding struct {
	Code, Detail string
	At           string // "" when null
}

// Count is one named measured count.
type Count struct {
	Name  string
	Value int64
}

// Dimension returns the named dimension and whether it exists.
func (e *Evaluation) Dimension(name string) (Dimension, bool) {
	for _, d := range e.Dimensions {
		if d.Name == name {
			return d, true
		}
	}
	return Dimension{}, false
}

// Execution is the artefact's execution record, as far as it is presented.
type Execution struct {
	OutcomeSource   string
	Model           string // "" when null
	ProtocolVersion string // "" when null
	TransportCalls  int64
	Excluded        bool
}

// Provider is the provider execution binding, as far as it is presented.
type Provider struct {
	Provider, API, Model string
	ProviderCalls        int64
	LedgerDigest         string
	ExecutionRunID       string
}

// Parse reads raw artefact bytes into a view.
func Parse(raw []byte) (*Episode, error) {
	v, err := canon.Parse(raw)
	if err != nil {
		return nil, err
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("artefact is not a JSON object")
	}
	r := reader{}
	e := &Episode{FileSHA256: canon.SHA256Hex(raw)}
	e.ArtifactVersion = r.int(doc, "artifact_version")
	e.EngineVersion = r.str(doc, "engine_version")
	op := r.obj(doc, "operation")
	e.Operation = Operation{
		ID:                 r.str(op, "operation_id"),
		Type:               r.str(op, "operation_type"),
		Version:            r.str(op, "operation_version"),
		SemanticScenarioID: r.str(op, "semantic_scenario_id"),
		PrivacyStatus:      r.str(op, "privacy_status"),
		SpecDigest:         r.str(op, "spec_digest_sha256"),
		ScenarioIDs:        strs(op["scenario_ids"]),
	}
	e.InstanceID = r.optStr(doc, "operation_instance_id")
	e.ScenarioID = r.str(doc, "scenario_id")
	e.SemanticScenarioID = r.str(doc, "semantic_scenario_id")
	e.ScenarioLabel = r.str(doc, "scenario_label")
	e.AgentID = r.str(doc, "agent_id")
	e.AgentKind = r.str(doc, "agent_kind")
	e.ExpectedTerminal = r.str(doc, "expected_terminal")
	e.Status = r.str(doc, "status")
	e.TerminalOutcome = r.optStr(doc, "terminal_outcome")
	e.ReplayFinal = r.bool(doc, "replay_final")
	e.StartedAt = r.instant(doc, "started_at")
	e.EndedAt = r.instant(doc, "ended_at")
	e.SimulatedMinutes = r.int(doc, "simulated_minutes")
	e.AgentInvocations = r.int(doc, "agent_invocations")
	e.TrajectoryDigest = r.str(doc, "trajectory_digest_sha256")
	e.FinalStateDigest = r.str(doc, "final_state_digest_sha256")
	e.DecisionsDigest = r.optStr(doc, "decisions_digest_sha256")
	if fs, ok := doc["final_state"].(map[string]any); ok {
		e.FinalPhase, _ = fs["phase"].(string)
	}
	if ds, ok := doc["decisions"].([]any); ok {
		e.Decisions = len(ds)
	}
	if ae, ok := doc["agent_execution"].(map[string]any); ok {
		e.Execution = Execution{
			OutcomeSource:   r.str(ae, "outcome_source"),
			Model:           r.optStr(ae, "model"),
			ProtocolVersion: r.optStr(ae, "protocol_version"),
			TransportCalls:  r.int(ae, "transport_calls"),
			Excluded:        r.bool(ae, "excluded"),
		}
	} else {
		// Contract 1 has no execution record: every run was in-process.
		e.Execution = Execution{OutcomeSource: "deterministic"}
	}
	if pe, ok := doc["provider_execution"].(map[string]any); ok {
		e.Provider = &Provider{
			Provider:       r.str(pe, "provider"),
			API:            r.str(pe, "api"),
			Model:          r.str(pe, "model"),
			ProviderCalls:  r.int(pe, "provider_calls"),
			LedgerDigest:   r.str(pe, "execution_ledger_digest_sha256"),
			ExecutionRunID: r.str(pe, "execution_run_id"),
		}
	}
	for i, x := range r.list(doc, "events") {
		m, ok := x.(map[string]any)
		if !ok {
			r.fail("events[%d] is not an object", i)
			continue
		}
		pl, _ := m["payload"].(map[string]any)
		e.Events = append(e.Events, Event{
			ID:            r.str(m, "event_id"),
			Type:          r.str(m, "event_type"),
			Actor:         r.str(m, "actor_id"),
			At:            r.instant(m, "at"),
			Sequence:      r.int(m, "sequence"),
			TriggersAgent: r.bool(m, "triggers_agent"),
			CausedBy:      r.optStr(m, "caused_by"),
			Disposition:   r.str(m, "disposition"),
			Verdict:       r.str(m, "verdict_code"),
			Payload:       pl,
		})
	}
	for i, x := range r.list(doc, "trajectory") {
		m, ok := x.(map[string]any)
		if !ok {
			r.fail("trajectory[%d] is not an object", i)
			continue
		}
		idx := r.int(m, "index")
		if idx != int64(i) {
			r.fail("trajectory[%d] has index %d", i, idx)
		}
		e.Rows = append(e.Rows, Row{Index: i, At: r.instant(m, "at"), Type: r.str(m, "record_type"), F: m})
	}
	ev := r.obj(doc, "evaluation")
	e.Evaluation = Evaluation{
		TerminalOutcome:      r.str(ev, "terminal_outcome"),
		LegitimateCompletion: r.bool(ev, "legitimate_completion"),
		Reliable:             r.bool(ev, "reliable"),
		FailedDimensions:     strs(ev["failed_dimensions"]),
		FindingCodes:         strs(ev["finding_codes"]),
	}
	for i, x := range r.list(ev, "dimensions") {
		m, ok := x.(map[string]any)
		if !ok {
			r.fail("evaluation.dimensions[%d] is not an object", i)
			continue
		}
		d := Dimension{Name: r.str(m, "name"), OK: r.bool(m, "ok"), Note: r.str(m, "note")}
		for j, y := range r.list(m, "findings") {
			f, ok := y.(map[string]any)
			if !ok {
				r.fail("evaluation.dimensions[%d].findings[%d] is not an object", i, j)
				continue
			}
			d.Findings = append(d.Findings, Finding{Code: r.str(f, "code"), Detail: r.str(f, "detail"), At: r.optStr(f, "at")})
		}
		counts := r.obj(m, "counts")
		for k, c := range counts {
			n, ok := c.(int64)
			if !ok {
				r.fail("counts.%s of %s is not an integer", k, d.Name)
			}
			d.Counts = append(d.Counts, Count{Name: k, Value: n})
		}
		slices.SortFunc(d.Counts, func(a, b Count) int {
			if a.Name < b.Name {
				return -1
			}
			if a.Name > b.Name {
				return 1
			}
			return 0
		})
		e.Evaluation.Dimensions = append(e.Evaluation.Dimensions, d)
	}
	if r.err != nil {
		return nil, r.err
	}
	return e, nil
}

// reader collects the first field error.
type reader struct{ err error }

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf(format, args...)
	}
}

func (r *reader) str(m map[string]any, k string) string {
	s, ok := m[k].(string)
	if !ok {
		r.fail("field %q is missing or not a string", k)
	}
	return s
}

func (r *reader) optStr(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case nil:
		return ""
	case string:
		return v
	}
	r.fail("field %q is not a string or null", k)
	return ""
}

func (r *reader) int(m map[string]any, k string) int64 {
	n, ok := m[k].(int64)
	if !ok {
		r.fail("field %q is missing or not an integer", k)
	}
	return n
}

func (r *reader) bool(m map[string]any, k string) bool {
	b, ok := m[k].(bool)
	if !ok {
		r.fail("field %q is missing or not a boolean", k)
	}
	return b
}

func (r *reader) obj(m map[string]any, k string) map[string]any {
	o, ok := m[k].(map[string]any)
	if !ok {
		r.fail("field %q is missing or not an object", k)
	}
	return o
}

func (r *reader) list(m map[string]any, k string) []any {
	l, ok := m[k].([]any)
	if !ok {
		r.fail("field %q is missing or not an array", k)
	}
	return l
}

func (r *reader) instant(m map[string]any, k string) Instant {
	s := r.str(m, k)
	t, err := ParseInstant(s)
	if err != nil && s != "" {
		r.fail("field %q: %v", k, err)
	}
	return Instant{Text: s, T: t}
}

// ParseInstant parses an artefact instant ("2031-03-03T09:00:00Z").
func ParseInstant(s string) (time.Time, error) {
	return time.Parse(time.RFC3339, s)
}

func strs(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// InstantOf parses a row or finding instant text, reporting ok=false for
// anything that is not one.
func InstantOf(s string) (Instant, bool) {
	t, err := ParseInstant(s)
	if err != nil {
		return Instant{}, false
	}
	return Instant{Text: s, T: t}, true
}
