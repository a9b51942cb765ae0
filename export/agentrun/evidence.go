package agentrun

import (
	"fmt"
	"strings"

	"github.com/obaudit/obaudit/artefact"
)

// evidence is what the trajectory says about one finding: the agent
// invocation it happened in (0 when none) and a quotation.
type evidence struct {
	step int64
	text string
}

// refusalRows are row types that carry a refusal detail the evaluator quotes
// inside its finding detail.
var refusalRows = map[string]bool{
	"action_rejected":    true,
	"terminal_rejected":  true,
	"outcome_rejected":   true,
	"wait_rejected":      true,
	"critical_violation": true,
	"event_rejected":     true,
	"retrieval_refused":  true,
}

// identityField is, for a row type a finding names by its identity, the
// field that holds the identity.
var identityField = map[string]string{
	"obligation_breached":  "obligation_id",
	"operation_reopened":   "warranty_cycle_id",
	"event_rejected":       "event_id",
	"event_after_terminal": "event_id",
}

// locate finds the trajectory row a finding is about and quotes it together
// with the agent's own words (the outcome it returned just before). used
// holds rows already claimed by earlier findings of the same dimension, so
// repeated findings at one instant quote successive rows.
func locate(rows []artefact.Row, dim string, f artefact.Finding, used map[int]bool) evidence {
	row := -1
	if f.At != nil {
		row = culprit(rows, f, used)
	}
	if row < 0 {
		return unplaced(rows, dim, f)
	}
	used[row] = true
	r := rows[row]
	var parts []string
	if o, ok := outcomeBefore(rows, row); ok {
		parts = append(parts, quoteOutcome(o))
	}
	parts = append(parts, quoteRow(r))
	return evidence{step: invocationAt(rows, row), text: strings.Join(parts, " | ")}
}

// culprit returns the index of the row a finding with an instant is about,
// or -1.
func culprit(rows []artefact.Row, f artefact.Finding, used map[int]bool) int {
	var same []artefact.Row
	for _, r := range rows {
		if r.At() == *f.At && !used[r.Index()] {
			same = append(same, r)
		}
	}
	// 1. A refusal row whose own detail the finding quotes, or whose code is
	//    the finding's code.
	for _, r := range same {
		if !refusalRows[r.Type()] {
			continue
		}
		if d := r.Str("detail"); d != "" && strings.Contains(f.Detail, d) {
			return r.Index()
		}
	}
	for _, r := range same {
		if refusalRows[r.Type()] && r.Str("code") == f.Code {
			return r.Index()
		}
	}
	// 2. A row the finding names by its identity.
	for _, r := range same {
		if key, ok := identityField[r.Type()]; ok {
			if id := r.Str(key); id != "" && strings.Contains(f.Detail, id) {
				return r.Index()
			}
		} else if r.Type() == "wait_unresolved_at_horizon" && strings.HasPrefix(f.Code, "WAIT_") {
			return r.Index()
		}
	}
	// 3. A proposal the finding is about: retrieval-discipline details start
	//    with the proposal's key (its action type, or "complete").
	for _, r := range same {
		switch r.Type() {
		case "action_proposed":
			if at := r.Str("action_type"); at != "" && strings.HasPrefix(f.Detail, at+" ") {
				return r.Index()
			}
		case "terminal_proposed":
			if strings.HasPrefix(f.Detail, "complete ") {
				return r.Index()
			}
		}
	}
	return -1
}

// unplaced quotes the evidence for a finding with no row of its own: the
// evaluator's detail, and for terminal findings the episode's end and the
// agent's last words.
func unplaced(rows []artefact.Row, dim string, f artefact.Finding) evidence {
	parts := []string{fmt.Sprintf("evaluator: %q", f.Detail)}
	var step int64
	if dim == dimTerminal && len(rows) > 0 {
		last := len(rows) - 1
		if o, ok := outcomeBefore(rows, last+1); ok {
			parts = append(parts, "last "+quoteOutcome(o))
			step = invocationAt(rows, o.Index())
		}
		parts = append(parts, quoteRow(rows[last]))
	}
	return evidence{step: step, text: strings.Join(parts, " | ")}
}

// outcomeBefore returns the last agent_outcome row before index i.
func outcomeBefore(rows []artefact.Row, i int) (artefact.Row, bool) {
	for j := min(i, len(rows)) - 1; j >= 0; j-- {
		r := rows[j]
		if r.Type() == "agent_outcome" {
			return r, true
		}
		// Never quote an earlier invocation's words for a row of a later
		// invocation in which the agent had not spoken yet.
		if r.Type() == "agent_invoked" {
			return nil, false
		}
	}
	return nil, false
}

// invocationAt returns the invocation index in force at row i (0 if none).
func invocationAt(rows []artefact.Row, i int) int64 {
	for j := i; j >= 0; j-- {
		if rows[j].Type() == "agent_invoked" {
			n, _ := rows[j].Int("invocation_index")
			return n
		}
	}
	return 0
}

// quoteOutcome renders an agent_outcome row in the agent's own words.
func quoteOutcome(r artefact.Row) string {
	inv, _ := r.Int("invocation_index")
	turn, _ := r.Int("turn_index")
	o := r.Map("outcome")
	kind, _ := o["kind"].(string)
	head := fmt.Sprintf("agent said (trajectory[%d], invocation %d turn %d): %s", r.Index(), inv, turn, kind)
	if at, _ := o["action_type"].(string); at != "" {
		head += " " + at
	}
	if refs := artefact.Strings(o["evidence_refs"]); len(refs) > 0 {
		head += " citing [" + strings.Join(refs, ", ") + "]"
	}
	if w := artefact.Strings(o["wake_on"]); len(w) > 0 {
		head += " on [" + strings.Join(w, ", ") + "]"
	}
	for _, k := range []string{"rationale", "reason"} {
		if s, _ := o[k].(string); s != "" {
			head += fmt.Sprintf(", %s %q", k, s)
		}
	}
	return head
}

// quoteRow renders the environment's record of a row.
func quoteRow(r artefact.Row) string {
	s := fmt.Sprintf("trajectory[%d] %s", r.Index(), r.Type())
	for _, k := range []string{"action_type", "event_id", "obligation_id", "warranty_cycle_id", "status", "code"} {
		if v := r.Str(k); v != "" {
			s += " " + v
		}
	}
	if d := r.Str("detail"); d != "" {
		s += fmt.Sprintf(": %q", d)
	}
	if reason := r.Str("reason"); reason != "" && r.Type() != "agent_outcome" {
		s += fmt.Sprintf(", reason %q", reason)
	}
	if refs := r.Strs("evidence_refs"); len(refs) > 0 {
		s += " citing [" + strings.Join(refs, ", ") + "]"
	}
	return s + " at " + r.At()
}
