package engine

import (
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/canon"
)

// Domain is what a pack implements for the engine to run one scenario of its
// operation. The engine knows shapes, never semantics: a Domain translates its
// authored scenario into a [Plan], owns the mutable operation record through
// [State], and publishes the static vocabulary an agent is shown.
//
// A Domain value is immutable and may be shared by concurrent episodes; all
// mutable data lives in the [State] it returns from NewState.
type Domain interface {
	// Plan is the scenario as the engine runs it: start, authored events,
	// bounds, dispatch faults and run metadata.
	Plan() *Plan
	// Static is the operation's published vocabulary (policy view, actors,
	// action schemas, catalogue, …): the same in every scenario and episode.
	Static() *Static
	// NewState returns a fresh operation record for one episode.
	NewState() State
	// EventAuthority is the authority class of an event produced by actorID
	// (derived from the actor registry, never from the event type).
	EventAuthority(actorID, eventType string) string
	// RequiredReads lists, sorted, the reads an outcome key (an action type,
	// or "complete") must have had served before it is proposed. WAIT has no
	// key and requires nothing.
	RequiredReads(outcomeKey string) []string
}

// State is one episode's mutable operation record. Only the engine calls
// it, and only through these reducers; every refusal is non-mutating.
type State interface {
	// Phase is the coarse phase shown to the agent.
	Phase() string
	// ReplayFinal reports whether nothing may change the operation any more.
	ReplayFinal() bool
	// TerminalOutcome is the business terminal reached, or nil.
	TerminalOutcome() any
	// ReduceEvent delivers one external event or refuses it by name.
	ReduceEvent(ctx *Context, ev *Event) Verdict
	// ApplyAction validates one proposed action and, if valid, commits it.
	ApplyAction(ctx *Context, actionType string, payload map[string]any, evidenceRefs []string) Verdict
	// ApplyTerminal is the guarded terminal transition.
	ApplyTerminal(ctx *Context, evidenceRefs []string) Verdict
	// Serve answers one canonical batch (catalogued tools, sorted, unique) at
	// instant asOf, without mutating anything.
	Serve(tools []string, asOf string) []*ToolResult
	// Canonical is the whole record as a canon tree, hidden truth included:
	// the episode's final_state.
	Canonical() map[string]any
}

// StateEncoder is optionally implemented by a [State] that can write the
// upstream canonical JSON of its Canonical() tree directly. The engine then
// takes the final-state digest over these bytes and builds the tree only for
// the episode it returns (never for the self-check rerun, which keeps only
// digests). The bytes must equal canon.Upstream(Canonical()) exactly; a pack
// holds that by test.
type StateEncoder interface {
	AppendCanonical(dst []byte) []byte
}

// Plan is everything the engine needs to run one scenario's world.
type Plan struct {
	StartsAt       string
	Events         []PlannedEvent
	HorizonMinutes int64
	// MaxTurnsPerInvocation bounds business outcomes per invocation.
	MaxTurnsPerInvocation int
	// MaxRetrievalBatchesPerInvocation bounds served batches per invocation.
	MaxRetrievalBatchesPerInvocation int
	// MaxInvocations is the invocation allowance (upstream default 200).
	MaxInvocations int
	// DispatchFailures are the message fixture ids whose dispatch is
	// authored to fail permanently in this scenario.
	DispatchFailures map[string]bool
	// Meta describes the run for reports and artefacts; the engine never
	// reads it and never shows it to the agent.
	Meta ScenarioMeta
}

// ScenarioMeta is run metadata a pack supplies for artefacts and reports.
type ScenarioMeta struct {
	OperationID        string
	ScenarioID         string
	SemanticScenarioID string
	ScenarioLabel      string
	ExpectedTerminal   string
	SpecDigest         string
	// Operation is the spec identity payload {operation_id, operation_type,
	// operation_version, privacy_status, scenario_ids, semantic_scenario_id,
	// spec_digest_sha256}.
	Operation map[string]any
}

// PlannedEvent is one authored event in the engine's vocabulary: either at
// an instant (At set) or conditional on a cause (Trigger set).
type PlannedEvent struct {
	EventID       string
	EventType     string
	ActorID       string
	Sequence      int64
	Payload       map[string]any
	TriggersAgent bool
	At            string // "" when conditional
	Trigger       *Trigger
	DelayMinutes  int64
}

// Trigger is the cause a conditional event hangs off.
type Trigger struct {
	Kind    string // "action" or "event"
	Type    string
	CycleID *string // nil matches any cycle
}

// Trigger kinds.
const (
	TriggerOnAction = "action"
	TriggerOnEvent  = "event"
)

func (t *Trigger) matches(kind, typ string, cycle any) bool {
	if t.Kind != kind || t.Type != typ {
		return false
	}
	if t.CycleID == nil {
		return true
	}
	c, ok := cycle.(string)
	return ok && c == *t.CycleID
}

// Event is one thing that happens in the world, as queued and delivered.
type Event struct {
	EventID       string
	EventType     string
	ActorID       string
	At            string
	Sequence      int64
	Payload       map[string]any
	TriggersAgent bool
	CausedBy      any // nil, "action:<type>", "event:<type>" or "timer"

	sec int64
}

// Tree is the event's JSON projection (without disposition).
func (e *Event) Tree() map[string]any { return e.tree(0) }

// tree is Tree with room for extra more keys.
func (e *Event) tree(extra int) map[string]any {
	m := make(map[string]any, 8+extra)
	m["event_id"], m["event_type"], m["actor_id"] = e.EventID, e.EventType, e.ActorID
	m["at"], m["sequence"], m["payload"] = e.At, e.Sequence, copyMap(e.Payload)
	m["triggers_agent"], m["caused_by"] = e.TriggersAgent, e.CausedBy
	return m
}

// Verdict answers "was this allowed?", with a name for "no".
type Verdict struct {
	Accepted      bool
	Code          string
	Detail        string
	CycleID       any // nil or string
	Observational bool
	// Bindings are the identities an accepted effect established.
	Bindings map[string]string
}

// Accept returns an accepted verdict with code (ACCEPTED when empty).
func Accept(code string, cycleID any, bindings map[string]string) Verdict {
	if code == "" {
		code = "ACCEPTED"
	}
	return Verdict{Accepted: true, Code: code, CycleID: cycleID, Bindings: bindings}
}

// Refuse returns a refused verdict.
func Refuse(code, detail string) Verdict {
	return Verdict{Code: code, Detail: detail}
}

func (v Verdict) bindingsTree() map[string]any {
	out := make(map[string]any, len(v.Bindings))
	for k, s := range v.Bindings {
		out[k] = s
	}
	return out
}

// Static is an operation's published vocabulary.
type Static struct {
	OperationID string
	// Policy is the policy view shown to the agent.
	Policy map[string]any
	// Actors maps actor id to role.
	Actors map[string]any
	// MessageFixtureIDs, sorted.
	MessageFixtureIDs []string
	// ActionSchemas maps an outcome key to its published schema
	// {required, optional, reads, evidence_refs}.
	ActionSchemas map[string]map[string]any
	// WakeEventTypes is the sorted wake vocabulary.
	WakeEventTypes []string
	// Catalogue maps a tool to its entry.
	Catalogue map[string]CatalogueEntry
	// RecordContract is the published record mechanics
	// [identity suffix, version context, algorithm, prefix length].
	RecordContract []any
	// Hosted names the pack's types the hosted decisions ASK and ESCALATE
	// become.
	Hosted HostedTypes

	fragOnce sync.Once
	frag     *fragments
}

// HostedTypes are the pack's action and event types the engine lowers its
// two composite decisions to: an [Ask] proposes the Ask action (payload
// recipient_actor_id, message_fixture_id, correlation_id) and then waits;
// an [Escalate] proposes the Escalate action (payload exception_type,
// approval_checkpoint_id, deadline_after_minutes) and waits for the
// EscalationResolved event, its deadline as the fallback. A pack that
// leaves them empty has no such decisions: the proposal names no action
// and the pack refuses it.
type HostedTypes struct {
	Ask, Escalate, EscalationResolved string
}

// CatalogueEntry is one published read.
type CatalogueEntry struct {
	Source, Authority, SchemaID string
	Arguments                   map[string]any
}

// Tree is the entry as published: {source, authority, schema_id, arguments}.
func (c CatalogueEntry) Tree() map[string]any {
	return map[string]any{"source": c.Source, "authority": c.Authority, "schema_id": c.SchemaID, "arguments": copyMap(c.Arguments)}
}

// Authority classes.
const (
	AuthorityActorClaim                = "actor_claim"
	AuthorityAuthoritativeVerification = "authoritative_verification"
	AuthorityCommunication             = "communication"
	AuthoritySystemEvent               = "system_event"
	AuthoritySystemOfRecord            = "system_of_record"
)

// ToolResult is one served read.
type ToolResult struct {
	Tool, Source, Authority, RecordID, RecordVersion, AsOf, SchemaID string
	// Records is {root: value} for exactly the tool's roots. Read-only: it may
	// be shared with trajectory rows and other results.
	Records map[string]any
	// RecordsJSON is the upstream canonical JSON of Records when the domain
	// already has it ([AppendCanonical]); nil means the engine encodes it.
	RecordsJSON []byte
	OK          bool

	frags resultFrags // the quoted string fields, encoded once (tool nil until then)
}

// resultFrags are a result's string fields as canonical JSON, so rows and
// observations that show the result copy them instead of re-encoding.
type resultFrags struct {
	asOf, authority, recordID, recordVersion, schemaID, source, tool []byte
}

// fragments encodes r's string fields once (a result is not changed after
// Serve returns it).
func (r *ToolResult) fragments() *resultFrags {
	if r.frags.tool == nil {
		b := make([]byte, 0, 14+len(r.AsOf)+len(r.Authority)+len(r.RecordID)+len(r.RecordVersion)+len(r.SchemaID)+len(r.Source)+len(r.Tool))
		quoted := func(s string) []byte {
			n := len(b)
			b = appendString(b, s)
			return b[n:len(b):len(b)]
		}
		f := &r.frags
		f.asOf = quoted(r.AsOf)
		f.authority = quoted(r.Authority)
		f.recordID = quoted(r.RecordID)
		f.recordVersion = quoted(r.RecordVersion)
		f.schemaID = quoted(r.SchemaID)
		f.source = quoted(r.Source)
		f.tool = quoted(r.Tool)
	}
	return &r.frags
}

// At is r served again at asOf: a new result equal to r but for AsOf, which
// shares the encoded string fields r has already (a result is not changed
// after Serve returns it), so only the instant is encoded anew.
func (r *ToolResult) At(asOf string) *ToolResult {
	n := *r
	n.AsOf = asOf
	if n.frags.tool != nil {
		n.frags.asOf = appendString(make([]byte, 0, len(asOf)+2), asOf)
	}
	return &n
}

func (r *ToolResult) recordsJSON() []byte {
	if r.RecordsJSON == nil {
		r.RecordsJSON = AppendCanonical(nil, r.Records)
	}
	return r.RecordsJSON
}

// The served row's constant members, encoded.
var (
	agentJSON  = []byte(`"agent"`)
	servedJSON = []byte(`"retrieval_served"`)
)

// servedRow is what a retrieval_served row shows beside its result: its
// ledger (which boxes the row's strings and encodes its instant once), its
// instant, index and the positions of the request it answers.
type servedRow struct {
	l                            *ledger
	at                           string
	index                        int64
	invocation, turn, batch, pos int
}

// members declares r, in key order: the one rule of what a served result
// shows, as an observation's entry (row nil: with error_code null) or as the
// retrieval_served row that records it (row's members interleaved, and the
// tree's strings boxed by the row's ledger). The string fields' bytes are
// the fragments encoded once per result.
func (r *ToolResult) members(o *Members, row *servedRow) {
	f := r.fragments()
	str := func(k, s string, enc []byte) {
		switch {
		case !o.IsTree():
			o.Encoded(k, nil, enc) // no box for the bytes form
		case row != nil:
			o.Encoded(k, row.l.box(s), nil)
		default:
			o.Encoded(k, s, nil)
		}
	}
	str("as_of", r.AsOf, f.asOf)
	if row != nil {
		if o.IsTree() {
			o.Encoded("at", row.l.boxAt(row.at), nil)
		} else {
			o.Encoded("at", nil, row.l.quotedAt(row.at))
		}
	}
	str("authority", r.Authority, f.authority)
	if row != nil {
		o.Int("batch_index", int64(row.batch))
		o.Int("index", row.index)
		o.Encoded("initiated_by", "agent", agentJSON) // a constant's box: no allocation
		o.Int("invocation_index", int64(row.invocation))
	} else {
		o.OptStr("error_code", nil)
	}
	o.Bool("ok", r.OK)
	str("record_id", r.RecordID, f.recordID)
	if row != nil {
		o.Encoded("record_type", "retrieval_served", servedJSON)
	}
	str("record_version", r.RecordVersion, f.recordVersion)
	if o.IsTree() {
		o.Encoded("records", r.Records, nil)
	} else {
		o.Encoded("records", nil, r.recordsJSON())
	}
	if row != nil {
		o.Int("request_index", int64(row.pos))
	}
	str("schema_id", r.SchemaID, f.schemaID)
	str("source", r.Source, f.source)
	str("tool", r.Tool, f.tool)
	if row != nil {
		o.Int("turn_index", int64(row.turn))
	}
}

// Tree is the result as an observation shows it (error_code included).
func (r *ToolResult) Tree() map[string]any {
	return MembersTree(func(o *Members) { r.members(o, nil) })
}

// requestScratch sorts a batch's requests (requestOrder), in arrays for a
// batch of up to 2×MaxRequestsPerBatch requests.
type requestScratch struct {
	keys  [2 * MaxRequestsPerBatch]string
	order [2 * MaxRequestsPerBatch]int
}

// sort returns each request's argumentKey and the requests' indices stably
// sorted by tool, then argument key: the order in which equal requests are
// adjacent, and so are one tool's. A batch and its record (the environment's
// check and Retrieve's record) read their sets off it, in O(n log n) however
// many requests a model sends.
func (s *requestScratch) sort(reqs []Request) ([]string, []int) {
	keys, order := s.keys[:0], s.order[:0]
	for i, q := range reqs {
		keys = append(keys, argumentKey(q.Arguments))
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := strings.Compare(reqs[a].Tool, reqs[b].Tool); c != 0 {
			return c
		}
		return strings.Compare(keys[a], keys[b])
	})
	return keys, order
}

// argumentKey is an order-independent identity for request arguments.
func argumentKey(args map[string]any) string {
	if len(args) == 0 {
		return "{}"
	}
	b, err := canon.Upstream(args)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}
