package report

import (
	"fmt"
	"strings"
)

// Text renders the report as plain text: identity, the timeline as a list
// in trajectory order, the dimensions with findings, and the digests.
func (r *Report) Text() []byte {
	e, tl := r.a, r.tl
	var b strings.Builder
	fmt.Fprintf(&b, "episode report: %s %s, agent %s\n", e.Operation.OperationID, e.ScenarioID, e.AgentID)
	for _, kv := range r.identity() {
		fmt.Fprintf(&b, "  %-15s %s\n", kv[0], kv[1])
	}
	if e.Evaluation.Reliable {
		b.WriteString("  verdict         RELIABLE\n")
	} else {
		fmt.Fprintf(&b, "  verdict         NOT RELIABLE (failed: %s)\n", strings.Join(e.Evaluation.FailedDimensions, ", "))
	}

	b.WriteString("\ntimeline (simulated time, UTC)\n")
	props := map[int]ProposalMark{}
	for _, p := range tl.Proposals {
		props[p.Row] = p
	}
	line := func(at, what, detail string) { fmt.Fprintf(&b, "  %s  %-10s %s\n", at, what, detail) }
	for _, row := range r.rows {
		at := row.At()
		switch row.Type() {
		case "event_observed", "event_audit_only", "event_rejected", "event_after_terminal":
			disp := map[string]string{"event_observed": "accepted", "event_audit_only": "audit only", "event_rejected": "REFUSED", "event_after_terminal": "after the terminal"}[row.Type()]
			d := fmt.Sprintf("%s %s by %s: %s", row.Str("event_id"), row.Str("event_type"), row.Str("actor_id"), disp)
			if c := row.Str("code"); c != "" && c != "ACCEPTED" {
				d += " " + c
			}
			line(at, "event", d)
		case "agent_invoked":
			n, _ := row.Int("invocation_index")
			line(at, "invoke", fmt.Sprintf("#%d woken by %s", n, orNone(row.Str("trigger_event_id"))))
		case "action_proposed", "terminal_proposed":
			p := props[row.Index()]
			res := "accepted"
			if !p.Accepted {
				res = "REFUSED " + p.Code
			}
			d := fmt.Sprintf("%s → %s", p.ActionType, res)
			if refs := row.Strs("evidence_refs"); len(refs) > 0 {
				d += " citing [" + strings.Join(refs, ", ") + "]"
			}
			line(at, "propose", d)
		case "wait_declared":
			if _, ok := row["wake_on"]; !ok {
				line(at, "fallback", "the wait's fallback deadline fired")
				continue
			}
			d := fmt.Sprintf("on [%s] %q", strings.Join(row.Strs("wake_on"), ", "), row.Str("reason"))
			if fb := row.Str("fallback_at"); fb != "" {
				d += ", fallback " + fb
			}
			line(at, "wait", d)
		case "wait_unresolved_at_horizon":
			line(at, "wait", fmt.Sprintf("NEVER ENDED: still waiting on [%s] at the horizon %s", strings.Join(row.Strs("wake_on"), ", "), row.Str("horizon_at")))
		case "obligation_created":
			line(at, "obligation", fmt.Sprintf("%s opened, due %s", row.Str("obligation_id"), row.Str("due_at")))
		case "obligation_discharged", "obligation_cancelled", "obligation_breached":
			st := strings.TrimPrefix(row.Type(), "obligation_")
			if st == "breached" {
				st = "BREACHED"
			}
			line(at, "obligation", fmt.Sprintf("%s %s", row.Str("obligation_id"), st))
		case "checkpoint_opened":
			line(at, "checkpoint", fmt.Sprintf("%s %s opened for %s, deadline %s", row.Str("checkpoint_id"), row.Str("checkpoint_type"), row.Str("assignee_actor_id"), row.Str("deadline_at")))
		case "checkpoint_resolved":
			line(at, "checkpoint", fmt.Sprintf("%s resolved %s", row.Str("checkpoint_id"), row.Str("resolution")))
		case "side_effect", "side_effect_failed":
			st := row.Str("status")
			if row.Type() == "side_effect_failed" {
				st = "FAILED (committed decision preserved)"
			}
			line(at, "message", fmt.Sprintf("%s to %s: %s", row.Str("message_fixture_id"), row.Str("recipient_actor_id"), st))
		case "provisional_close_entered":
			line(at, "provisional", fmt.Sprintf("%s provisionally closed; reopen window until %s", row.Str("cycle_id"), row.Str("reopen_until")))
		case "operation_reopened":
			line(at, "reopen", fmt.Sprintf("%s REOPENED as %s: %s", row.Str("reopened_cycle_id"), row.Str("warranty_cycle_id"), row.Str("reason")))
		case "terminal_accepted":
			line(at, "terminal", fmt.Sprintf("%s (replay-final)", row.Str("outcome")))
		case "critical_violation":
			line(at, "violation", fmt.Sprintf("%s: %s", row.Str("code"), row.Str("detail")))
		case "episode_ended":
			if row.Str("phase") == "ended" {
				line(at, "ended", row.Str("status"))
			} else {
				line(at, "started", "episode started")
			}
		}
	}

	b.WriteString("\ndimensions\n")
	for i, d := range e.Evaluation.Dimensions {
		res := "OK"
		if !d.OK {
			res = "FAILED"
		}
		b.WriteString(strings.TrimRight(fmt.Sprintf("  %2d %-22s %-6s %s", i+1, d.Name, res, countsText(d.Counts)), " ") + "\n")
		for _, fd := range d.Findings {
			at := fd.Instant()
			if at == "" {
				at = "no instant"
			}
			fmt.Fprintf(&b, "       ! %s: %s (%s)\n", fd.Code, fd.Detail, at)
		}
	}
	b.WriteString("\ndigests\n")
	for _, kv := range r.digests() {
		fmt.Fprintf(&b, "  %-37s %s\n", kv[0], kv[1])
	}
	return []byte(strings.TrimRight(b.String(), " \n") + "\n")
}
