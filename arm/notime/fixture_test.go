package notime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// The protocol's §11 fixture matrix, hand-authored in testdata/fixtures.json
// (never generated from this package): each cell is a Full plan over a
// minimal fixture operation, a scripted subject, and the expected No-Time
// trace, halt, finality relations and refusal.

type fxEvent struct {
	ID      string         `json:"id"`
	Type    string         `json:"type"`
	Seq     int64          `json:"seq"`
	Agent   bool           `json:"agent"`
	At      string         `json:"at"`
	On      *fxCause       `json:"on"`
	Delay   int64          `json:"delay"`
	Payload map[string]any `json:"payload"`
}

type fxCause struct {
	Kind  string  `json:"kind"`
	Type  string  `json:"type"`
	Cycle *string `json:"cycle"`
}

type fxDecision struct {
	Kind     string         `json:"kind"`
	Type     string         `json:"type"`
	Payload  map[string]any `json:"payload"`
	Wake     []string       `json:"wake"`
	Fallback int64          `json:"fallback"`
	Deadline int64          `json:"deadline"`
}

type fxExpect struct {
	Refusal    string            `json:"refusal"`
	RunRefusal string            `json:"run_refusal"`
	Trace      []string          `json:"trace"`
	Halt       string            `json:"halt"`
	HaltCode   string            `json:"halt_code"`
	Relations  map[string]string `json:"relations"`
	Terminal   any               `json:"terminal"`
}

type fxCell struct {
	Family         string       `json:"family"`
	Cell           string       `json:"cell"`
	Finalization   int64        `json:"finalization_minutes"`
	Events         []fxEvent    `json:"events"`
	Agent          []fxDecision `json:"agent"`
	MaxInvocations int          `json:"max_invocations"`
	MaxTurns       int          `json:"max_turns"`
	MaxTransitions int64        `json:"max_transitions"`
	CompleteNeeds  string       `json:"complete_needs"`
	RefuseActions  []string     `json:"refuse_actions"`
	// DuplicateAfterCompile appends a second copy of this event to the
	// compiled plan (a runtime duplicate the compiler would have refused).
	DuplicateAfterCompile string   `json:"duplicate_after_compile"`
	Expect                fxExpect `json:"expect"`
}

const fxStart = "2031-01-01T00:00:00Z"

func loadCells(t testing.TB) []fxCell {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fixtures.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cells []fxCell `json:"cells"`
	}
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cells
}

func ints(v any) any {
	switch x := v.(type) {
	case json.Number:
		n, err := x.Int64()
		if err != nil {
			panic(err)
		}
		return n
	case map[string]any:
		for k, e := range x {
			x[k] = ints(e)
		}
	case []any:
		for i, e := range x {
			x[i] = ints(e)
		}
	}
	return v
}

// fxDomain is the fixture operation: events are accepted unless their
// payload says reject (or repeat a dedupe_key); "reopen" reopens a
// provisional close; COMPLETE enters provisional close (after the event type
// complete_needs, if set) and arms the finalization timer.
type fxDomain struct {
	c    *fxCell
	plan *engine.Plan
}

func (d *fxDomain) Plan() *engine.Plan { return d.plan }
func (d *fxDomain) Static() *engine.Static {
	return &engine.Static{OperationID: "fixture.op", Policy: map[string]any{"provisional_close_minutes": d.c.Finalization,
		"approval_deadline_after_minutes": int64(60), "note": "fixture"},
		Actors: map[string]any{}, ActionSchemas: map[string]map[string]any{}, WakeEventTypes: []string{"ping", "reply", "resolved"},
		Catalogue: map[string]engine.CatalogueEntry{}, RecordContract: []any{}}
}
func (d *fxDomain) NewState() engine.State {
	return &fxState{c: d.c, phase: "ACTIVE", cycle: "c1", seen: map[string]bool{}}
}
func (d *fxDomain) EventAuthority(string, string) string { return engine.AuthoritySystemEvent }
func (d *fxDomain) RequiredReads(string) []string        { return nil }

type fxState struct {
	c          *fxCell
	phase      string
	final      bool
	terminal   any
	cycle      string
	mutations  int64
	seen       map[string]bool
	haveNeeded bool
}

func (s *fxState) Phase() string                               { return s.phase }
func (s *fxState) ReplayFinal() bool                           { return s.final }
func (s *fxState) TerminalOutcome() any                        { return s.terminal }
func (s *fxState) Serve([]string, string) []*engine.ToolResult { return nil }
func (s *fxState) Canonical() map[string]any {
	return map[string]any{"phase": s.phase, "final": s.final, "terminal": s.terminal, "cycle": s.cycle, "mutations": s.mutations}
}

func cycleOf(p map[string]any) any {
	if c, ok := p["cycle_id"].(string); ok {
		return c
	}
	return nil
}

func (s *fxState) ReduceEvent(ctx *engine.Context, ev *engine.Event) engine.Verdict {
	if ev.EventType == "provisional_close_expired" {
		if s.phase != "PROVISIONALLY_CLOSED" {
			return engine.Refuse("NOT_PROVISIONALLY_CLOSED", "")
		}
		s.phase, s.final, s.terminal = "FINALIZED", true, "done"
		ctx.Record("terminal_accepted", map[string]any{"outcome": "done", "replay_final": true, "cycle_id": s.cycle})
		return engine.Accept("FINALIZED", s.cycle, nil)
	}
	if ev.Payload["reject"] == true {
		return engine.Refuse("REJECTED_BY_DOMAIN", "")
	}
	if k, ok := ev.Payload["dedupe_key"].(string); ok {
		if s.seen[k] {
			return engine.Refuse("DUPLICATE", "")
		}
		s.seen[k] = true
	}
	s.mutations++
	if ev.EventType == s.c.CompleteNeeds {
		s.haveNeeded = true
	}
	if ev.EventType == "reopen" && s.phase == "PROVISIONALLY_CLOSED" {
		ctx.CancelTimer("timer_provisional_close:" + s.cycle)
		s.phase = "ACTIVE"
		if c, ok := ev.Payload["new_cycle"].(string); ok {
			s.cycle = c
		}
		ctx.Record("operation_reopened", map[string]any{"warranty_cycle_id": s.cycle})
		return engine.Accept("REOPENED", s.cycle, nil)
	}
	return engine.Accept("", cycleOf(ev.Payload), nil)
}

func (s *fxState) ApplyAction(ctx *engine.Context, t string, p map[string]any, _ []string) engine.Verdict {
	if s.final {
		return engine.Refuse("OPERATION_IS_REPLAY_FINAL", "")
	}
	if p["reject"] == true || slices.Contains(s.c.RefuseActions, t) {
		return engine.Refuse("ACTION_REFUSED", "")
	}
	if t == "request_approval" && p["deadline_after_minutes"] != int64(60) {
		return engine.Refuse("DEADLINE_OUTSIDE_POLICY", "")
	}
	s.mutations++
	if t == "timer_action" {
		ctx.ScheduleTimer("timer_x", "reminder_due", "scheduler", 30, map[string]any{}, true)
	}
	return engine.Accept("", cycleOf(p), nil)
}

func (s *fxState) ApplyTerminal(ctx *engine.Context, _ []string) engine.Verdict {
	if s.phase != "ACTIVE" || s.final {
		return engine.Refuse("NOT_ACTIVE", "")
	}
	if s.c.CompleteNeeds != "" && !s.haveNeeded {
		return engine.Refuse("WORK_NOT_VERIFIED", "")
	}
	s.phase = "PROVISIONALLY_CLOSED"
	ctx.Record("provisional_close_entered", map[string]any{"cycle_id": s.cycle, "replay_final": false})
	ctx.ScheduleTimer("timer_provisional_close:"+s.cycle, "provisional_close_expired", "scheduler", s.c.Finalization, map[string]any{"cycle_id": s.cycle}, true)
	return engine.Accept("PROVISIONALLY_CLOSED", s.cycle, nil)
}

// fxAgent plays a script; past its end it yields (WAIT with a fallback).
type fxAgent struct {
	script []fxDecision
	i      int
	seen   []*engine.Observation
}

func (a *fxAgent) BeginEpisode(engine.AgentIdentity) {}
func (a *fxAgent) Decide(o *engine.Observation) (engine.Decision, error) {
	a.seen = append(a.seen, o)
	if a.i >= len(a.script) {
		return &engine.Wait{Reason: "idle", FallbackAfterMinutes: engine.Minutes(60)}, nil
	}
	d := a.script[a.i]
	a.i++
	switch d.Kind {
	case "WAIT":
		w := &engine.Wait{Reason: "wait", WakeOn: d.Wake}
		if d.Fallback > 0 || len(d.Wake) == 0 {
			w.FallbackAfterMinutes = engine.Minutes(max(d.Fallback, 1))
		}
		return w, nil
	case "ACT":
		p := map[string]any{}
		for k, v := range d.Payload {
			p[k] = ints(v)
		}
		return &engine.Act{ActionType: d.Type, Payload: p}, nil
	case "ASK":
		return &engine.Ask{RecipientActorID: "someone", MessageFixtureID: "msg", Wait: &engine.Wait{Reason: "asked", WakeOn: []string{"reply"}, FallbackAfterMinutes: engine.Minutes(max(d.Fallback, 1))}}, nil
	case "ESCALATE":
		return &engine.Escalate{ExceptionType: "X", CheckpointID: "cp", DeadlineAfterMinutes: max(d.Deadline, 1)}, nil
	case "COMPLETE":
		return &engine.Complete{Reason: "done"}, nil
	case "MALFORMED":
		return &engine.Malformed{Code: "garbage"}, nil
	}
	return nil, fmt.Errorf("fixture decision kind %q", d.Kind)
}

func (c *fxCell) domain() *fxDomain { return c.domainAt(fxStart) }

func (c *fxCell) domainAt(start string) *fxDomain {
	p := &engine.Plan{StartsAt: start, HorizonMinutes: 100000, MaxTurnsPerInvocation: 3, MaxRetrievalBatchesPerInvocation: 0, MaxInvocations: 20,
		Meta: engine.ScenarioMeta{OperationID: "fixture.op", ScenarioID: c.Cell, SemanticScenarioID: c.Family}}
	if c.MaxInvocations > 0 {
		p.MaxInvocations = c.MaxInvocations
	}
	if c.MaxTurns > 0 {
		p.MaxTurnsPerInvocation = c.MaxTurns
	}
	for _, e := range c.Events {
		pe := engine.PlannedEvent{EventID: e.ID, EventType: e.Type, ActorID: "actor", Sequence: e.Seq, TriggersAgent: e.Agent, DelayMinutes: e.Delay, Payload: map[string]any{}}
		for k, v := range e.Payload {
			pe.Payload[k] = ints(v)
		}
		switch {
		case e.On != nil:
			pe.Trigger = &engine.Trigger{Kind: e.On.Kind, Type: e.On.Type, CycleID: e.On.Cycle}
		case e.At == "" || e.At == "start":
			pe.At = start
		default:
			pe.At = e.At
		}
		p.Events = append(p.Events, pe)
	}
	return &fxDomain{c: c, plan: p}
}

func fxProfile(d *fxDomain) Profile {
	return Profile{CompleteKey: engine.CompleteOutcomeKey, FinalizationEventType: "provisional_close_expired", FinalizationMinutes: d.c.Finalization,
		TimerEventTypes: []string{"provisional_close_expired", "reminder_due"}, DurationFields: map[string]int64{"request_approval.deadline_after_minutes": 60}}
}

// traceForms are each record type's line in a trace: a format and the
// fields it takes (event_id as a string, "" when absent; others as %v).
var traceForms = map[string]struct {
	format string
	fields []string
}{
	"event_observed":                {"observed %s", []string{"event_id"}},
	"event_audit_only":              {"audit %s", []string{"event_id"}},
	"event_rejected":                {"rejected %s", []string{"event_id"}},
	"event_after_terminal":          {"post_terminal %s", []string{"event_id"}},
	"agent_invoked":                 {"invoke %v", []string{"trigger_event_id"}},
	"effect_accepted":               {"effect %v", []string{"action_type"}},
	"action_rejected":               {"refused %v %v", []string{"action_type", "code"}},
	"outcome_rejected":              {"malformed", nil},
	"wait_removed":                  {"wait_removed", nil},
	"wait_rejected":                 {"wait_rejected %v", []string{"code"}},
	"deadline_removed":              {"deadline_removed", nil},
	"timer_obligation_removed":      {"timer_removed %v", []string{"event_type"}},
	"terminal_rejected":             {"terminal_rejected %v", []string{"code"}},
	"finality_activation":           {"activate", nil},
	"finality_activation_cancelled": {"cancel", nil},
	"finality_cut":                  {"cut finalized=%v", []string{"finalized"}},
	"conditional_closed":            {"closed %s", []string{"event_id"}},
	"deadlock":                      {"deadlock", nil},
	"critical_violation":            {"critical %v", []string{"code"}},
	"integrity_finding":             {"integrity %v", []string{"code"}},
}

// trace is the compact, hand-checkable form of a No-Time trajectory.
func trace(rows []map[string]any) []string {
	var out []string
	for _, r := range rows {
		rt, _ := r["record_type"].(string)
		form, ok := traceForms[rt]
		if !ok {
			continue
		}
		args := make([]any, len(form.fields))
		for i, f := range form.fields {
			args[i] = r[f]
			if f == "event_id" {
				args[i], _ = r[f].(string)
			}
		}
		out = append(out, fmt.Sprintf(form.format, args...))
	}
	return out
}

// stage judges one stage's error against the refusal class the cell
// expects of it (want, "" for none): stop is true when the cell ends here,
// with diff what differs ("" when the refusal is exactly the one wanted).
func stage(name string, err error, want string) (diff string, stop bool) {
	if want != "" {
		if cl, _ := refusal.ClassOf(err); string(cl) != want {
			return fmt.Sprintf("%s: %v, want refusal %s", name, err, want), true
		}
		return "", true
	}
	if err != nil {
		return fmt.Sprintf("%s: %v", name, err), true
	}
	return "", false
}

// runCell compiles and runs one cell; it returns what differs from the
// cell's expectation ("" when nothing does).
func runCell(c fxCell) (string, *notimewire.RunV1, *fxAgent) {
	d := c.domain()
	plan, err := Compile(d, fxProfile(d))
	if diff, stop := stage("compile", err, c.Expect.Refusal); stop {
		return diff, nil, nil
	}
	for id, want := range c.Expect.Relations {
		var got []string
		for _, e := range plan.Events {
			if e.EventID == id {
				for _, side := range e.FinalityRelations {
					got = append(got, side)
				}
			}
		}
		slices.Sort(got)
		if want == "none" && len(got) != 0 || want != "none" && (len(got) == 0 || slices.Compact(got)[0] != want || len(slices.Compact(got)) != 1) {
			return fmt.Sprintf("relation of %s: %v, want %s", id, got, want), nil, nil
		}
	}
	if c.MaxTransitions != 0 {
		plan.MaxTransitions = c.MaxTransitions
	}
	if c.DuplicateAfterCompile != "" {
		for _, e := range plan.Events {
			if e.EventID == c.DuplicateAfterCompile {
				plan.Events = append(plan.Events, e)
				break
			}
		}
	}
	ag := &fxAgent{script: c.Agent}
	rec, err := Run(Config{Domain: d, Profile: fxProfile(d), Plan: plan, Agent: ag, AgentID: "fx", AgentKind: "fixture", OperationInstanceID: "opinst_00000000000000000000000000000000"})
	if diff, stop := stage("run", err, c.Expect.RunRefusal); stop {
		return diff, nil, nil
	}
	got := trace(rec.Trajectory)
	if !slices.Equal(got, c.Expect.Trace) {
		return fmt.Sprintf("trace\n got %q\nwant %q", got, c.Expect.Trace), rec, ag
	}
	if rec.Halt != c.Expect.Halt || rec.HaltCode != c.Expect.HaltCode {
		return fmt.Sprintf("halt %s/%s, want %s/%s", rec.Halt, rec.HaltCode, c.Expect.Halt, c.Expect.HaltCode), rec, ag
	}
	if fmt.Sprint(rec.TerminalOutcome) != fmt.Sprint(c.Expect.Terminal) {
		return fmt.Sprintf("terminal %v, want %v", rec.TerminalOutcome, c.Expect.Terminal), rec, ag
	}
	return "", rec, ag
}

// requiredCells are the protocol's §11 cells this matrix must hold, per
// family (the cells' "family" and "cell" names).
var requiredCells = map[string][]string{
	"queue base":                  {"empty queue deadlock", "one absolute", "same-source sequence tie", "event-ID tie breaker"},
	"simultaneous fan-out":        {"two conditionals from one accepted action", "three conditionals from one accepted action", "two conditionals from one accepted event", "three conditionals from one accepted event", "insertion permutation"},
	"collision":                   {"absolute plus conditional plus removed timer at one Full instant", "sequence tie before the cut", "event-ID tie after the cut"},
	"rejected prerequisite":       {"rejected action, no finality: retained to deadlock", "rejected event, no finality: retained to deadlock", "rejected action under active finality closes untriggered", "rejected event under active finality closes untriggered", "consumed cause closes untriggered", "impossible cause closes untriggered", "alternate live pre-cut cause blocks then triggers", "closure delivers, mutates and invokes nothing"},
	"post-cut conditional causes": {"only post-cut cause closes at the cut", "rejected pre-cut plus post-cut cause closes", "live pre-cut plus post-cut cause blocks for the pre-cut cause", "post-terminal audit does not activate the closed conditional"},
	"conditional descendants":     {"accepted parent accepted child", "accepted parent rejected child", "child descendants retained"},
	"duplicates":                  {"duplicate ID before run", "duplicate ID after consume", "semantic duplicate distinct IDs accepted", "domain-rejected duplicate"},
	"WAIT":                        {"wake-only", "fallback-only", "both", "unknown wake refusal", "repeated yields to deadlock"},
	"ASK/ESCALATE":                {"ASK accepted then yield", "ASK refused then continue", "ESCALATE accepted then yield", "ESCALATE refused then continue", "deadline canonicalization"},
	"COMPLETE/finality":           {"premature refusal", "accepted COMPLETE creates one activation", "equal-content completion after reopen creates a new activation", "exact old activation cancelled", "partition before, equal and after the Full comparator", "same-instant sequence and ID ties", "pre-cut reopen preserved", "explicit finality cut", "post-cut late event audit-only without invocation", "ambiguous plan refused", "cyclic plan refused", "dynamic plan refused", "crossing plan refused"},
	"audit events":                {"non-triggering accepted audit", "domain audit ordering", "audit conditional fan-out"},
	"horizon":                     {"exact last allowed transition", "one over the bound", "malformed bound"},
}

func TestFixtureMatrix(t *testing.T) {
	cells := loadCells(t)
	have := map[string]map[string]bool{}
	for _, c := range cells {
		if have[c.Family] == nil {
			have[c.Family] = map[string]bool{}
		}
		if have[c.Family][c.Cell] {
			t.Errorf("cell %s/%s authored twice", c.Family, c.Cell)
		}
		have[c.Family][c.Cell] = true
		t.Run(c.Family+"/"+c.Cell, func(t *testing.T) {
			if why, _, _ := runCell(c); why != "" {
				t.Error(why)
			}
		})
	}
	for fam, list := range requiredCells {
		for _, cell := range list {
			if !have[fam][cell] {
				t.Errorf("the matrix lacks the protocol's cell %s/%s", fam, cell)
			}
		}
	}
}
