package maintenance

import (
	_ "embed"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/internal/python"
	"github.com/obaudit/obaudit/refusal"
)

//go:embed operation/lettings_maintenance_synthetic_v1.yaml
var defaultOperation []byte

// defaultOperationJSON is defaultOperation's tree in upstream canonical
// JSON (its spec_digest_sha256 input), generated from the YAML by
// TestDefaultOperationJSON (-update) and held equal to it there. The
// default spec is loaded from it: the strict YAML reader took four fifths
// of the embedded spec's load, a third of a cold validate's own work.
//
//go:embed operation/lettings_maintenance_synthetic_v1.json
var defaultOperationJSON []byte

// DefaultOperation returns the bytes of the embedded default operation
// (lettings_maintenance_synthetic_v1, operation 0.6.0): obaudit's own file,
// carrying upstream's facts.
func DefaultOperation() []byte { return slices.Clone(defaultOperation) }

// defaultSource names the embedded default operation in refusal details.
const defaultSource = "embedded:lettings_maintenance_synthetic_v1.yaml"

var (
	// defaultTree is the embedded default operation's tree. It is never
	// handed out and FromTree copies what it keeps, so nothing changes it:
	// every spec built from it hashes to one digest, computed by the first
	// build that needs it (defaultDigest).
	defaultTree = sync.OnceValues(func() (map[string]any, error) {
		tree, err := canon.Parse(defaultOperationJSON)
		if err != nil {
			return nil, err
		}
		return tree.(map[string]any), nil
	})

	digestMu      sync.Mutex
	defaultDigest string // "" until computed

	defaultSpec = sync.OnceValues(buildDefault)
)

// buildDefault builds a spec from the default tree, hashing it only if no
// build before it has.
func buildDefault() (*Spec, error) {
	tree, err := defaultTree()
	if err != nil {
		return nil, err
	}
	spec, err := buildSpec(tree, defaultSource)
	if err != nil {
		return nil, err
	}
	digestMu.Lock()
	defer digestMu.Unlock()
	if defaultDigest == "" {
		if defaultDigest, err = spec.ComputeDigest(); err != nil {
			return nil, err
		}
	}
	spec.Digest = defaultDigest
	return spec, nil
}

// DefaultSpec loads the embedded default operation (once). The spec is
// shared: [NewOperation] verifies it, as any caller may have changed it.
func DefaultSpec() (*Spec, error) { return defaultSpec() }

// OpenOperation binds a spec of the operation's own to scenarioID: the
// embedded default operation when b is nil, else b as [LoadSpec] reads it
// (see [OpenOperations]).
func OpenOperation(b []byte, source, scenarioID string) (*Operation, error) {
	spec, err := openSpec(b, source)
	if err != nil {
		return nil, err
	}
	return bind(spec, scenarioID)
}

// OpenOperations is [OpenOperation] for every scenario of the spec, keyed
// by id, with the spec they share. Their spec's digest is the one computed
// from what it holds (by this load, or for the default by the first build
// from the same unchanged tree) and no one else holds it, so unlike
// [NewOperation] it is not hashed again to be verified.
func OpenOperations(b []byte, source string) (*Spec, map[string]*Operation, error) {
	spec, err := openSpec(b, source)
	if err != nil {
		return nil, nil, err
	}
	ops, err := bindAll(spec, spec.ScenarioIDs())
	return spec, ops, err
}

// openSpec loads a spec no one else holds: the default built afresh from
// its tree under the digest the first build computed, or b by LoadSpec.
func openSpec(b []byte, source string) (*Spec, error) {
	if b != nil {
		return LoadSpec(b, source)
	}
	return buildDefault()
}

// LoadSpec parses an operation spec with the strict YAML reader and
// validates it, refusing anything unknown or inconsistent by a named class
// (see the Err* sentinels). source names the input in refusal details.
func LoadSpec(b []byte, source string) (*Spec, error) {
	raw, err := parseYAML(b, source)
	if err != nil {
		return nil, err
	}
	return FromTree(raw, source)
}

var (
	topLevelFields = []string{"schema_version", "operation_id", "operation_type", "operation_version",
		"semantic_scenario_id", "privacy_status", "disclaimer", "data_provenance", "actors", "policy",
		"message_fixtures", "hidden_state", "scenarios"}
	actorFields     = []string{"role", "authority"}
	scenarioFields  = []string{"label", "starts_at", "expected_terminal", "human_checkpoint_budget", "required_checkpoint_types", "dispatch_failures", "expected_event_rejections", "events"}
	rejectionFields = []string{"event_id", "code", "reason"}
	eventFields     = []string{"event_id", "type", "actor", "at", "on_action", "on_event", "delay_minutes", "triggers_agent", "payload"}
	triggerFields   = []string{"type", "cycle_id"}
)

func rejectUnknown(m map[string]any, allowed []string, where string) error {
	if unknown := jsonfield.Unknown(m, allowed); unknown != nil {
		known := slices.Sorted(slices.Values(allowed))
		return refusal.New(ErrUnknownField, "%s: unknown field(s) %s; this build refuses a spec it cannot fully honour. Known fields are %s", where, python.Loose.StrList(unknown), python.Loose.StrList(known))
	}
	return nil
}

func requireAll(m map[string]any, fields []string, where string) error {
	if missing := jsonfield.Missing(m, fields); missing != nil {
		return refusal.New(ErrSchema, "%s: missing required field(s) %s", where, python.Loose.StrList(missing))
	}
	return nil
}

// requireExactly refuses m unless it has every one of fields and nothing
// else: unknown fields first ([ErrUnknownField]), then missing ones.
func requireExactly(m map[string]any, fields []string, where string) error {
	if err := rejectUnknown(m, fields, where); err != nil {
		return err
	}
	return requireAll(m, fields, where)
}

func requireMapping(v any, where string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrSchema, "%s: expected a mapping, got %s", where, python.TypeName(v))
	}
	return m, nil
}

// requireRecord is requireMapping, then keys (rejectUnknown or
// requireExactly) holding the mapping's keys to fields.
func requireRecord(v any, where string, fields []string, keys func(map[string]any, []string, string) error) (map[string]any, error) {
	m, err := requireMapping(v, where)
	if err != nil {
		return nil, err
	}
	if err := keys(m, fields, where); err != nil {
		return nil, err
	}
	return m, nil
}

// requireEntries is requireMapping, refusing an empty mapping as well
// ([ErrSchema], with the detail empty).
func requireEntries(v any, where, empty string) (map[string]any, error) {
	m, err := requireMapping(v, where)
	if err == nil && len(m) == 0 {
		return nil, refusal.New(ErrSchema, "%s", empty)
	}
	return m, err
}

func requireText(m map[string]any, key, where string) (string, error) {
	s, ok := m[key].(string)
	if !ok || s == "" {
		return "", refusal.New(ErrSchema, "%s: %s must be a non-empty string", where, python.Loose.Quote(key))
	}
	return s, nil
}

func requireInt(m map[string]any, key, where string) (int64, error) {
	n, ok := m[key].(int64)
	if !ok {
		return 0, refusal.New(ErrSchema, "%s: %s must be an integer", where, python.Loose.Quote(key))
	}
	return n, nil
}

func requireStrings(v any, where, what string) ([]string, error) {
	l, ok := v.([]any)
	if !ok {
		return nil, refusal.New(ErrSchema, "%s: %s must be a list of strings", where, what)
	}
	out := make([]string, len(l))
	for i, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, refusal.New(ErrSchema, "%s: %s must be a list of strings", where, what)
		}
		out[i] = s
	}
	return out, nil
}

// instant checks a spec instant: a string (an unquoted timestamp never gets
// here, see the YAML reader) in the canonical form.
func instant(v any, where string) (string, int64, error) {
	s, ok := v.(string)
	if !ok {
		return "", 0, refusal.New(ErrNonStringInstant, "%s: an instant must be a \"YYYY-MM-DDTHH:MM:SSZ\" string, got %s", where, python.TypeName(v))
	}
	sec, err := engine.ParseInstant(s)
	if err != nil {
		return "", 0, refusal.New(ErrMalformedInstant, "%s: %q is not YYYY-MM-DDTHH:MM:SSZ", where, s)
	}
	return s, sec, nil
}

// FromTree validates an already-parsed spec mapping.
func FromTree(raw map[string]any, source string) (*Spec, error) {
	s, err := buildSpec(raw, source)
	if err != nil {
		return nil, err
	}
	if s.Digest, err = s.ComputeDigest(); err != nil {
		return nil, err
	}
	return s, nil
}

// buildSpec is FromTree but for the digest.
func buildSpec(raw map[string]any, source string) (*Spec, error) {
	if err := requireExactly(raw, topLevelFields, source); err != nil {
		return nil, err
	}
	version, err := requireInt(raw, "schema_version", source)
	if err != nil {
		return nil, err
	}
	if version != SupportedSchemaVersion {
		return nil, refusal.New(ErrSchema, "%s: schema_version %d is not supported by this build (expects %d)", source, version, SupportedSchemaVersion)
	}
	privacy, err := requireText(raw, "privacy_status", source)
	if err != nil {
		return nil, err
	}
	if privacy != RequiredPrivacyStatus {
		return nil, refusal.New(ErrSchema, "%s: privacy_status must be %q; this build executes synthetic fixtures only", source, RequiredPrivacyStatus)
	}
	s := &Spec{PrivacyStatus: privacy, Source: source}
	if s.Actors, err = parseActors(raw["actors"], source); err != nil {
		return nil, err
	}
	if s.Policy, err = parsePolicy(raw["policy"], source); err != nil {
		return nil, err
	}
	if s.MessageFixtures, err = parseFixtures(raw["message_fixtures"], source); err != nil {
		return nil, err
	}
	hidden, err := requireMapping(raw["hidden_state"], source+": hidden_state")
	if err != nil {
		return nil, err
	}
	s.HiddenState = deepCopyMap(hidden)
	if s.SemanticScenarioID, err = requireText(raw, "semantic_scenario_id", source); err != nil {
		return nil, err
	}
	if s.Scenarios, err = parseScenarios(raw["scenarios"], s, source); err != nil {
		return nil, err
	}
	for _, f := range []struct {
		dst *string
		key string
	}{{&s.OperationID, "operation_id"}, {&s.OperationType, "operation_type"}, {&s.OperationVersion, "operation_version"},
		{&s.Disclaimer, "disclaimer"}, {&s.DataProvenance, "data_provenance"}} {
		if *f.dst, err = requireText(raw, f.key, source); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func parseActors(v any, source string) (map[string]*Actor, error) {
	m, err := requireEntries(v, source+": actors", source+": actors must declare at least one actor")
	if err != nil {
		return nil, err
	}
	out := map[string]*Actor{}
	for id, body := range m {
		where := source + ": actor " + id
		e, err := requireRecord(body, where, actorFields, rejectUnknown)
		if err != nil {
			return nil, err
		}
		auth, err := requireStrings(e["authority"], where, "authority")
		if err != nil {
			return nil, err
		}
		for i, a := range auth {
			if slices.Contains(auth[:i], a) {
				return nil, refusal.New(ErrDuplicateIdentity, "%s: authority: %s is declared twice", where, python.Loose.Quote(a))
			}
		}
		role, err := requireText(e, "role", where)
		if err != nil {
			return nil, err
		}
		slices.Sort(auth)
		out[id] = &Actor{ID: id, Role: role, Authority: auth}
	}
	return out, nil
}

func parsePolicy(v any, source string) (Policy, error) {
	where := source + ": policy"
	m, err := requireRecord(v, where, PolicyFields, requireExactly)
	if err != nil {
		return Policy{}, err
	}
	var p Policy
	ints := map[string]*int64{
		"approval_threshold_minor": &p.ApprovalThresholdMinor, "approval_reminder_after_minutes": &p.ApprovalReminderAfterMinutes,
		"approval_deadline_after_minutes": &p.ApprovalDeadlineAfterMinutes, "approval_validity_minutes": &p.ApprovalValidityMinutes,
		"provisional_close_minutes": &p.ProvisionalCloseMinutes, "visit_followup_after_minutes": &p.VisitFollowupAfterMinutes,
		"completion_notice_within_minutes": &p.CompletionNoticeWithinMinutes, "max_turns_per_invocation": &p.MaxTurnsPerInvocation,
		"horizon_minutes": &p.HorizonMinutes, "max_retrieval_batches_per_invocation": &p.MaxRetrievalBatchesPerInvocation,
	}
	for _, k := range PolicyFields {
		dst, ok := ints[k]
		if !ok {
			continue
		}
		n, err := requireInt(m, k, where)
		if err != nil {
			return Policy{}, err
		}
		if n <= 0 {
			return Policy{}, refusal.New(ErrSchema, "%s: %s must be positive, got %d", where, k, n)
		}
		*dst = n
	}
	if p.Currency, err = requireText(m, "currency", where); err != nil {
		return Policy{}, err
	}
	if p.IssueClassification, err = requireText(m, "issue_classification", where); err != nil {
		return Policy{}, err
	}
	return p, nil
}

func parseFixtures(v any, source string) (map[string]string, error) {
	where := source + ": message_fixtures"
	m, err := requireEntries(v, where, where+": at least one message fixture is required")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for id, text := range m {
		s, ok := text.(string)
		if !ok || s == "" {
			return nil, refusal.New(ErrSchema, "%s: %s must map to non-empty text", where, python.Loose.Quote(id))
		}
		out[id] = s
	}
	return out, nil
}

func parseScenarios(v any, s *Spec, source string) (map[string]*Scenario, error) {
	m, err := requireEntries(v, source+": scenarios", source+": at least one scenario variant is required")
	if err != nil {
		return nil, err
	}
	out := map[string]*Scenario{}
	for _, id := range slices.Sorted(maps.Keys(m)) {
		where := source + ": scenario " + id
		e, err := requireRecord(m[id], where, scenarioFields, requireExactly)
		if err != nil {
			return nil, err
		}
		sc := &Scenario{ID: id}
		if sc.ExpectedTerminal, err = requireText(e, "expected_terminal", where); err != nil {
			return nil, err
		}
		if !slices.Contains(ProducibleTerminals, sc.ExpectedTerminal) {
			return nil, refusal.New(ErrUnknownReference, "%s: expected_terminal %s is not a terminal class; known classes are %s", where, python.Loose.Quote(sc.ExpectedTerminal), python.Loose.StrList(ProducibleTerminals))
		}
		var startSec int64
		if sc.StartsAt, startSec, err = instant(e["starts_at"], where+": starts_at"); err != nil {
			return nil, err
		}
		if sc.HumanCheckpointBudget, err = requireInt(e, "human_checkpoint_budget", where); err != nil {
			return nil, err
		}
		if sc.HumanCheckpointBudget < 0 {
			return nil, refusal.New(ErrSchema, "%s: human_checkpoint_budget cannot be negative", where)
		}
		if sc.RequiredCheckpointTypes, err = requireStrings(e["required_checkpoint_types"], where, "required_checkpoint_types"); err != nil {
			return nil, err
		}
		failures, err := requireStrings(e["dispatch_failures"], where, "dispatch_failures")
		if err != nil {
			return nil, err
		}
		for _, f := range failures {
			if _, ok := s.MessageFixtures[f]; !ok {
				return nil, refusal.New(ErrUnknownReference, "%s: dispatch_failures names %s, which is not a declared message fixture", where, python.Loose.Quote(f))
			}
		}
		slices.Sort(failures)
		sc.DispatchFailures = slices.Compact(failures)
		if sc.Events, err = parseEvents(e["events"], s.Actors, where, startSec); err != nil {
			return nil, err
		}
		if sc.ExpectedEventRejections, err = parseRejections(e["expected_event_rejections"], sc.Events, where); err != nil {
			return nil, err
		}
		if sc.Label, err = requireText(e, "label", where); err != nil {
			return nil, err
		}
		out[id] = sc
	}
	return out, nil
}

func parseRejections(v any, events []AuthoredEvent, where string) ([]ExpectedRejection, error) {
	place := where + ": expected_event_rejections"
	l, ok := v.([]any)
	if !ok {
		return nil, refusal.New(ErrSchema, "%s: must be a list (use [] for none)", place)
	}
	out := []ExpectedRejection{}
	seen := map[string]bool{}
	for i, body := range l {
		pos := place + "[" + strconv.Itoa(i) + "]"
		m, err := requireRecord(body, pos, rejectionFields, requireExactly)
		if err != nil {
			return nil, err
		}
		var r ExpectedRejection
		if r.EventID, err = requireText(m, "event_id", pos); err != nil {
			return nil, err
		}
		if !slices.ContainsFunc(events, func(e AuthoredEvent) bool { return e.EventID == r.EventID }) {
			return nil, refusal.New(ErrUnknownReference, "%s: names event %s, which this scenario does not author", pos, python.Loose.Quote(r.EventID))
		}
		if seen[r.EventID] {
			return nil, refusal.New(ErrDuplicateIdentity, "%s: event %s already has a declared refusal", pos, python.Loose.Quote(r.EventID))
		}
		seen[r.EventID] = true
		if r.Code, err = requireText(m, "code", pos); err != nil {
			return nil, err
		}
		if r.Reason, err = requireText(m, "reason", pos); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func parseEvents(v any, actors map[string]*Actor, where string, startSec int64) ([]AuthoredEvent, error) {
	l, ok := v.([]any)
	if !ok || len(l) == 0 {
		return nil, refusal.New(ErrSchema, "%s: events must be a non-empty list", where)
	}
	var out []AuthoredEvent
	seen := map[string]bool{}
	for i, body := range l {
		pos := where + ": event #" + strconv.Itoa(i)
		m, err := requireRecord(body, pos, eventFields, rejectUnknown)
		if err != nil {
			return nil, err
		}
		ev := AuthoredEvent{Sequence: int64(i), TriggersAgent: true}
		if ev.EventID, err = requireText(m, "event_id", pos); err != nil {
			return nil, err
		}
		if seen[ev.EventID] {
			return nil, refusal.New(ErrDuplicateIdentity, "%s: event id %s is declared twice", where, python.Loose.Quote(ev.EventID))
		}
		seen[ev.EventID] = true
		if ev.Type, err = requireText(m, "type", pos); err != nil {
			return nil, err
		}
		kind, known := events[ev.Type]
		if !known {
			return nil, refusal.New(ErrUnknownEventType, "%s: unknown event type %s; known types are %s", pos, python.Loose.Quote(ev.Type), python.Loose.StrList(WakeEventTypes))
		}
		if ev.Actor, err = requireText(m, "actor", pos); err != nil {
			return nil, err
		}
		actor, ok := actors[ev.Actor]
		if !ok {
			return nil, refusal.New(ErrUnknownReference, "%s: unknown actor %s", pos, python.Loose.Quote(ev.Actor))
		}
		if !actor.Holds(kind.authority) {
			return nil, refusal.New(ErrActorLacksAuthority, "%s: actor %s does not hold %s, so it cannot emit %s; provenance is derived from the actor registry and cannot be self-asserted",
				pos, python.Loose.Quote(ev.Actor), python.Loose.Quote(kind.authority), python.Loose.Quote(ev.Type))
		}
		if ev.Trigger, err = parseTrigger(m, pos); err != nil {
			return nil, err
		}
		atV := m["at"]
		if atV != nil && ev.Trigger != nil {
			return nil, refusal.New(ErrSchema, "%s: declares both an absolute instant and a cause; an authored event has exactly one answer to 'when'", pos)
		}
		if atV == nil && ev.Trigger == nil {
			return nil, refusal.New(ErrSchema, "%s: declares neither 'at' nor 'on_action'/'on_event', so nothing can ever schedule it", pos)
		}
		if atV != nil {
			var sec int64
			if ev.At, sec, err = instant(atV, pos+": at"); err != nil {
				return nil, err
			}
			if sec < startSec {
				return nil, refusal.New(ErrClockRewind, "%s: at %s is before the scenario starts; the clock never moves backwards", pos, ev.At)
			}
		}
		if d, ok := m["delay_minutes"]; ok {
			n, isInt := d.(int64)
			if !isInt {
				return nil, refusal.New(ErrSchema, "%s: delay_minutes must be a non-negative integer, got %s", pos, python.Loose.Repr(d))
			}
			if n < 0 {
				return nil, refusal.New(ErrClockRewind, "%s: delay_minutes %d would schedule the event before its cause", pos, n)
			}
			ev.DelayMinutes = n
		}
		if t, ok := m["triggers_agent"]; ok {
			b, isBool := t.(bool)
			if !isBool {
				return nil, refusal.New(ErrSchema, "%s: triggers_agent must be true or false", pos)
			}
			ev.TriggersAgent = b
		}
		payload := map[string]any{}
		if p, ok := m["payload"]; ok {
			if payload, err = requireMapping(p, pos+": payload"); err != nil {
				return nil, err
			}
		}
		if p, unknown := payloadProblem(eventPayloadSchemas()[ev.Type], payload, pos, ev.Type); p != "" {
			if unknown {
				return nil, refusal.New(ErrUnknownField, "%s", p)
			}
			return nil, refusal.New(ErrSchema, "%s", p)
		}
		ev.Payload = deepCopyMap(payload)
		out = append(out, ev)
	}
	return out, nil
}

func parseTrigger(m map[string]any, pos string) (*engine.Trigger, error) {
	onAction := m["on_action"]
	onEvent := m["on_event"]
	if onAction != nil && onEvent != nil {
		return nil, refusal.New(ErrSchema, "%s: declares both on_action and on_event; an authored event has one cause", pos)
	}
	if onAction == nil && onEvent == nil {
		return nil, nil
	}
	kind, body := engine.TriggerOnAction, onAction
	if onEvent != nil {
		kind, body = engine.TriggerOnEvent, onEvent
	}
	where := pos + ": on_" + kind
	b, err := requireRecord(body, where, triggerFields, rejectUnknown)
	if err != nil {
		return nil, err
	}
	typ, err := requireText(b, "type", where)
	if err != nil {
		return nil, err
	}
	if kind == engine.TriggerOnAction && !slices.Contains(ActionTypes, typ) {
		return nil, refusal.New(ErrUnknownReference, "%s: on_action names %s, which is not a known action type", pos, python.Loose.Quote(typ))
	}
	if kind == engine.TriggerOnEvent {
		if _, ok := events[typ]; !ok {
			return nil, refusal.New(ErrUnknownEventType, "%s: on_event names %s, which is not a known event type", pos, python.Loose.Quote(typ))
		}
	}
	t := &engine.Trigger{Kind: kind, Type: typ}
	if c := b["cycle_id"]; c != nil {
		s, ok := c.(string)
		if !ok {
			return nil, refusal.New(ErrSchema, "%s: on_%s cycle_id must be a string", pos, kind)
		}
		t.CycleID = &s
	}
	return t, nil
}
