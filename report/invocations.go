package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
)

// Invocation is one agent invocation in detail: what woke it and what it was
// shown, each turn's decision with what it read and what it had to read, and
// for a model-backed run the provider call behind each turn.
type Invocation struct {
	Index  int64
	AtText string
	// Trigger is the event that woke the agent, as the agent_invoked row
	// records it (what the agent observed at the wake).
	TriggerEventID, TriggerEventType, TriggerAuthority string
	TriggerAuthoritative                               bool
	TriggerClaims                                      []string
	// TriggerPayload is the canonical JSON of the waking event's payload.
	TriggerPayload string
	Turns          []Turn
	// Refused counts refused proposals; Findings counts evaluator findings
	// at the invocation's instant, FindingList names them (code and
	// dimension).
	Refused, Findings int
	FindingList       []string
}

// Turn is one decision of an invocation.
type Turn struct {
	Index     int64
	Kind      string // RETRIEVE, ACT, WAIT, COMPLETE (the outcome's kind)
	Action    string // the action type of an ACT
	Payload   string // canonical JSON of an ACT's payload, "" otherwise
	Evidence  []string
	Rationale string
	Requests  []string // the tools a RETRIEVE asked for
	WakeOn    []string
	Reason    string
	// Result is what the engine made of the decision: "accepted",
	// "refused", "served" (a retrieval), "declared" (a wait), or "" when no
	// answer row follows.
	Result, Code, Detail string
	// Reads are the reads served in answer to this turn.
	Reads []Read
	// Proposes is set when the decision proposed an action or the
	// completion; Fresh then lists, sorted, the tools whose reads were fresh
	// at the proposal (served in this invocation, not invalidated since).
	Proposes bool
	Fresh    []string
	// Required lists, sorted, the reads the pack requires for this outcome
	// (nil when the pack was not consulted or the turn needs none).
	Required []string
	// Call is the ledger's provider call for this turn, when a ledger is
	// given.
	Call *CallView
}

// IsFresh reports whether tool was fresh when the turn was decided.
func (t Turn) IsFresh(tool string) bool { return slices.Contains(t.Fresh, tool) }

// Missing lists the required reads that were not fresh.
func (t Turn) Missing() []string {
	var out []string
	for _, r := range t.Required {
		if !slices.Contains(t.Fresh, r) {
			out = append(out, r)
		}
	}
	return out
}

// Read is one served read.
type Read struct {
	Tool, RecordID, Version, Authority, Source string
	OK                                         bool
	Records                                    string // canonical JSON of what was served
}

// CallView is one provider call from the verified execution ledger.
type CallView struct {
	CallIndex                      int64
	InputTokens, OutputTokens      int64
	CostUSD                        string // measured, summed over attempts
	Latency                        string // the turn's latency in seconds
	Status                         string // terminal reason and stop classification
	HTTPStatus                     string
	Attempts                       int
	Model, Fault, DecisionKind, ID string
}

// invocations derives the per-invocation detail from the trajectory.
func (rep *Report) invocations() []Invocation {
	e, pack, led := rep.a, rep.pack, rep.ledger
	calls := map[[2]int64]*execledger.Call{}
	if led != nil {
		for i := range led.Calls {
			c := &led.Calls[i]
			calls[[2]int64{c.InvocationIndex, c.TurnIndex}] = c
		}
	}
	var out []Invocation
	var cur *Invocation
	var turn *Turn
	fresh := map[string]bool{}
	findingsAt := map[string][]string{}
	for _, d := range e.Evaluation.Dimensions {
		for _, f := range d.Findings {
			if at := f.Instant(); at != "" {
				findingsAt[at] = append(findingsAt[at], f.Code+" ("+d.Name+")")
			}
		}
	}
	payloads := map[string]string{}
	for _, ev := range rep.events {
		if b, err := canon.Upstream(ev.Payload); err == nil && ev.Payload != nil {
			payloads[ev.EventID] = string(b)
		}
	}
	for _, r := range rep.rows {
		switch r.Type() {
		case "agent_invoked":
			n, _ := r.Int("invocation_index")
			out = append(out, Invocation{Index: n, AtText: r.At(),
				TriggerEventID: r.Str("trigger_event_id"), TriggerEventType: r.Str("trigger_event_type"),
				TriggerAuthority: r.Str("trigger_event_authority"), TriggerAuthoritative: r.Bool("trigger_is_authoritative"),
				TriggerClaims: r.Strs("trigger_claim_values"), TriggerPayload: payloads[r.Str("trigger_event_id")],
				Findings: len(findingsAt[r.At()]), FindingList: findingsAt[r.At()]})
			cur, turn = &out[len(out)-1], nil
			clear(fresh)
			continue
		}
		if cur == nil {
			continue
		}
		switch r.Type() {
		case "agent_outcome":
			t := Turn{}
			t.Index, _ = r.Int("turn_index")
			o := r.Map("outcome")
			s := func(k string) string { v, _ := o[k].(string); return v }
			t.Kind, t.Action, t.Rationale, t.Reason = s("kind"), s("action_type"), s("rationale"), s("reason")
			t.Evidence, t.WakeOn = artefact.Strings(o["evidence_refs"]), artefact.Strings(o["wake_on"])
			if p, ok := o["payload"]; ok && p != nil {
				if b, err := canon.Upstream(p); err == nil {
					t.Payload = string(b)
				}
			}
			if reqs, ok := o["requests"].([]any); ok {
				for _, q := range reqs {
					if m, ok := q.(map[string]any); ok {
						tool, _ := m["tool"].(string)
						t.Requests = append(t.Requests, tool)
					}
				}
			}
			if c := calls[[2]int64{cur.Index, t.Index}]; c != nil {
				t.Call = callView(c)
			}
			cur.Turns = append(cur.Turns, t)
			turn = &cur.Turns[len(cur.Turns)-1]
		case "action_proposed", "terminal_proposed":
			// The proposal names the outcome key (an ASK or ESCALATE
			// proposes an action its decision does not name).
			if turn != nil && !turn.Proposes {
				turn.Proposes = true
				key := engine.CompleteOutcomeKey
				if r.Type() == "action_proposed" {
					key = r.Str("action_type")
					if turn.Action == "" {
						turn.Action = key
						if b, err := canon.Upstream(r["payload"]); err == nil && r["payload"] != nil {
							turn.Payload = string(b)
						}
					}
				}
				turn.Fresh = slices.Sorted(maps.Keys(fresh))
				if pack != nil && pack.RequiredReads != nil {
					turn.Required = pack.RequiredReads(key)
				}
			}
		case "retrieval_served":
			// A RETRIEVE decision has no agent_outcome row: its served
			// reads, which carry their turn, are the turn.
			fresh[r.Str("tool")] = true
			ti, _ := r.Int("turn_index")
			if turn == nil || turn.Index != ti || turn.Kind != "RETRIEVE" {
				t := Turn{Index: ti, Kind: "RETRIEVE", Result: "served"}
				if c := calls[[2]int64{cur.Index, ti}]; c != nil {
					t.Call = callView(c)
				}
				cur.Turns = append(cur.Turns, t)
				turn = &cur.Turns[len(cur.Turns)-1]
			}
			rd := Read{Tool: r.Str("tool"), RecordID: r.Str("record_id"), Version: r.Str("record_version"), Authority: r.Str("authority"), Source: r.Str("source"), OK: r.Bool("ok")}
			if b, err := canon.Upstream(r["records"]); err == nil {
				rd.Records = string(b)
			}
			turn.Reads = append(turn.Reads, rd)
			turn.Requests = append(turn.Requests, rd.Tool)
		case "derived_context_invalidated":
			for _, tool := range r.Strs("cleared_tools") {
				delete(fresh, tool)
			}
		case "effect_accepted", "provisional_close_entered", "terminal_accepted":
			if turn != nil && turn.Result == "" {
				turn.Result, turn.Code = "accepted", r.Str("code")
			}
		case "action_rejected", "terminal_rejected":
			if turn != nil && turn.Result == "" {
				turn.Result, turn.Code, turn.Detail = "refused", r.Str("code"), r.Str("detail")
				cur.Refused++
			}
		case "wait_declared":
			if turn != nil && turn.Result == "" {
				turn.Result = "declared"
			}
		}
	}
	return out
}

func callView(c *execledger.Call) *CallView {
	v := &CallView{CallIndex: c.CallIndex, Attempts: len(c.Attempts), Latency: seconds(c.TurnLatencySeconds)}
	var cost execledger.Decimal
	costs := false
	var status []string
	if c.TerminalReason != nil {
		status = append(status, *c.TerminalReason)
	}
	for _, a := range c.Attempts {
		if a.InputTokens != nil {
			v.InputTokens += *a.InputTokens
		}
		if a.OutputTokens != nil {
			v.OutputTokens += *a.OutputTokens
		}
		if a.CostMeasuredUSD != nil {
			if d, ok := execledger.ParseAmount(*a.CostMeasuredUSD); ok {
				cost, costs = cost.Add(d), true
			}
		}
		if a.HTTPStatus != nil {
			v.HTTPStatus = fmt.Sprint(*a.HTTPStatus)
		}
		if a.ResponseModel != nil {
			v.Model = *a.ResponseModel
		}
		if a.Fault != nil {
			v.Fault = *a.Fault
		}
		if a.ResponseStopClassification != nil && !slices.Contains(status, *a.ResponseStopClassification) {
			status = append(status, *a.ResponseStopClassification)
		}
	}
	if costs {
		v.CostUSD = cost.String()
	}
	v.Status = strings.Join(status, ", ")
	if c.Decision != nil {
		v.DecisionKind = c.Decision.Kind
	}
	return v
}

func seconds(v any) string {
	switch x := v.(type) {
	case int64:
		return fmt.Sprintf("%d s", x)
	case float64:
		if x < 1 {
			return fmt.Sprintf("%.1f ms", x*1000)
		}
		return fmt.Sprintf("%.2f s", x)
	}
	return ""
}
