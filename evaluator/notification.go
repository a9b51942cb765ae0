package evaluator

import (
	"slices"

	"github.com/obaudit/obaudit/internal/python"
)

// The notification rule of obaudit's engine (schemas.EngineObaudit), the
// seeds' later rule laid on top of unchanged 0.9.0 grading: a required
// notification that was committed but never delivered is not a recovery. No
// delivery or retry is invented; the rule only reads what the record says
// happened at dispatch.
//
// "Delivered" is read from the side_effect rows (0.9.0 communications rows
// carry no dispatch status), never from the state flags, which 0.9.0 sets
// on acceptance.

const (
	transferNotice   = "msg_transfer_notice"
	reminderNotice   = "msg_approval_reminder"
	completionNotice = "msg_completion_notice"
	transferred      = "transferred_to_human_ownership"
)

// transferNoticeCheck is the verdict on the customer transfer notice.
type transferNoticeCheck struct {
	established bool
	why         string
	at          any // the row the failure is about, or nil
}

// transferNoticeEstablished decides whether the customer was told, by a
// delivered notice, that a human took the operation over: one reporter, an
// operator resolution taking ownership of an exception checkpoint the agent
// opened earlier, and after it a send of msg_transfer_notice to the reporter
// on the transfer cycle whose proposal→acceptance interval holds exactly one
// delivery and no failure, no rejection and no other proposal, and whose
// communications row is in the final state.
func (g *grader) transferNoticeEstablished() transferNoticeCheck {
	// 1. The reporter: the actor of the one accepted issue report.
	var reports []map[string]any
	for _, ev := range g.r.Events {
		em, ok := ev.(map[string]any)
		if ok && pyEq(em["event_type"], g.c.Types.IssueReported) && pyEq(em["disposition"], "accepted") {
			reports = append(reports, em)
		}
	}
	if len(reports) != 1 {
		return transferNoticeCheck{why: sprintf("the record holds %d accepted issue reports, so no single customer can be named as the one to tell", len(reports))}
	}
	reporter, ok := reports[0]["actor_id"].(string)
	if !ok || reporter == "" {
		return transferNoticeCheck{why: "the accepted issue report names no reporting actor"}
	}
	if !slices.ContainsFunc(g.rowsOf("event_observed"), func(row map[string]any) bool {
		return pyEq(row["event_id"], reports[0]["event_id"]) && pyEq(row["actor_id"], reporter)
	}) {
		return transferNoticeCheck{why: "the issue report's delivery has no matching event_observed row"}
	}

	// 2. The ownership resolution.
	var resolution map[string]any
	for _, row := range g.rowsOf("checkpoint_resolved") {
		if pyEq(row["checkpoint_type"], "maintenance_exception_resolution") && pyEq(row["resolution"], "TAKE_OWNERSHIP") {
			resolution = row
			break
		}
	}
	if resolution == nil {
		return transferNoticeCheck{why: "no exception checkpoint was resolved TAKE_OWNERSHIP"}
	}
	checkpoint := resolution["checkpoint_id"]
	resolvedAt := pyInt(idx(resolution, "index"))

	// 3. The exception request that opened it fixes the transfer cycle.
	var cycle string
	for _, row := range g.rowsOf("effect_accepted") {
		if pyInt(idx(row, "index")) >= resolvedAt || !pyEq(row["action_type"], g.c.Types.ExceptionRequest) {
			continue
		}
		b, ok := row["bindings"].(map[string]any)
		if !ok || !pyEq(b["checkpoint_id"], checkpoint) {
			continue
		}
		if c, ok := row["cycle_id"].(string); ok && c != "" {
			cycle = c
			break
		}
	}
	if cycle == "" {
		return transferNoticeCheck{why: sprintf("no accepted %s before the resolution opened checkpoint %s, so no transfer cycle is established", g.c.Types.ExceptionRequest, python.Repr(checkpoint))}
	}

	// 4–7. A delivered notice to the reporter on that cycle.
	result := transferNoticeCheck{why: sprintf("no %s to %s correlated to cycle %s was proposed after ownership was taken", transferNotice, python.Quote(reporter), python.Quote(cycle))}
	for start, row := range g.rows {
		if int64(start) <= resolvedAt || g.types[start] != "action_proposed" || !pyEq(row["action_type"], g.c.Types.Notification) {
			continue
		}
		payload, ok := row["payload"].(map[string]any)
		if !ok || !pyEq(payload["message_fixture_id"], transferNotice) || !pyEq(payload["recipient_actor_id"], reporter) ||
			!pyEq(payload["correlation_id"], cycle) {
			continue
		}
		check := g.transferSend(start, row, reporter, cycle)
		if check.established {
			return check
		}
		result = check
	}
	return result
}

// transferSend checks one candidate send (items 4–7).
func (g *grader) transferSend(start int, proposal map[string]any, reporter, cycle string) transferNoticeCheck {
	at := proposal["at"]
	delivered := 0
	for i := start + 1; i < len(g.rows); i++ {
		row := g.rows[i]
		switch g.types[i] {
		case "effect_accepted":
			if !pyEq(row["proposal_id"], proposal["proposal_id"]) {
				return transferNoticeCheck{why: "another effect was accepted before the notice's own acceptance", at: row["at"]}
			}
			if !pyEq(row["code"], "ACCEPTED") || !pyEq(row["cycle_id"], cycle) || !pyEq(row["at"], at) {
				return transferNoticeCheck{why: "the notice's acceptance is not an ACCEPTED commit on the transfer cycle at the instant it was proposed", at: row["at"]}
			}
			if delivered != 1 {
				return transferNoticeCheck{why: sprintf("the notice was accepted with %d recorded deliveries; a committed notice nobody received tells nobody", delivered), at: row["at"]}
			}
			if !g.communicationRecorded(reporter, cycle, at) {
				return transferNoticeCheck{why: "the final state's communications hold no row for the delivered notice", at: row["at"]}
			}
			return transferNoticeCheck{established: true}
		case "side_effect_failed":
			return transferNoticeCheck{
				why: sprintf("its dispatch failed (%s to %s at %s) and the record holds no delivery of it; the committed decision stands but the customer was never told",
					python.Str(row["message_fixture_id"]), python.Str(row["recipient_actor_id"]), python.Str(row["at"])),
				at: row["at"],
			}
		case "action_proposed", "terminal_proposed", "action_rejected", "terminal_rejected", "outcome_rejected":
			return transferNoticeCheck{why: "the notice's proposal was not answered before another proposal or refusal", at: row["at"]}
		case "side_effect":
			if pyEq(row["status"], "DELIVERED") && pyEq(row["message_fixture_id"], transferNotice) &&
				pyEq(row["recipient_actor_id"], reporter) && pyEq(row["at"], at) {
				delivered++
			}
		}
	}
	return transferNoticeCheck{why: "the notice's proposal was never accepted", at: at}
}

func (g *grader) communicationRecorded(recipient, correlation string, at any) bool {
	fs, ok := g.r.FinalState.(map[string]any)
	if !ok {
		return false
	}
	rows, _ := fs["communications"].([]any)
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if ok && pyEq(m["recipient_actor_id"], recipient) && pyEq(m["message_fixture_id"], transferNotice) &&
			pyEq(m["correlation_id"], correlation) && pyEq(m["at"], at) {
			return true
		}
	}
	return false
}

func (g *grader) transferCheck() transferNoticeCheck {
	if g.transfer == nil {
		c := g.transferNoticeEstablished()
		g.transfer = &c
	}
	return *g.transfer
}

// undeliveredNotifications is the recovery half of the rule.
func (g *grader) undeliveredNotifications() []Finding {
	var findings []Finding
	if owner, ok := get(g.r.FinalState, "ownership_transferred_to").(string); ok && owner != "" {
		if c := g.transferCheck(); !c.established {
			f := finding("REQUIRED_NOTIFICATION_UNDELIVERED",
				sprintf("ownership was transferred to %s, but the customer transfer notice was not established as delivered: %s", python.Quote(owner), c.why))
			if c.at != nil {
				f.At = strp(python.Str(c.at))
			}
			findings = append(findings, f)
		}
	}
	// A committed reminder or completion notice whose dispatch failed must
	// be followed by a delivered send of the same notice to the same
	// recipient on the same correlation.
	var lastCorrelation any
	for i, row := range g.rows {
		switch g.types[i] {
		case "action_proposed":
			lastCorrelation = correlationOf(row)
		case "side_effect_failed":
			fixture := row["message_fixture_id"]
			if !pyEq(fixture, reminderNotice) && !pyEq(fixture, completionNotice) {
				continue
			}
			if !g.deliveredLater(i, fixture, row["recipient_actor_id"], lastCorrelation) {
				findings = append(findings, findingAt("REQUIRED_NOTIFICATION_UNDELIVERED",
					sprintf("%s to %s (correlation %s) was committed but its dispatch failed and no later delivery of it is recorded",
						python.Str(fixture), python.Repr(row["recipient_actor_id"]), python.Repr(lastCorrelation)), row["at"]))
			}
		}
	}
	return findings
}

func (g *grader) deliveredLater(after int, fixture, recipient, correlation any) bool {
	var lastCorrelation any
	for i := after + 1; i < len(g.rows); i++ {
		row := g.rows[i]
		switch g.types[i] {
		case "action_proposed":
			lastCorrelation = correlationOf(row)
		case "side_effect":
			if pyEq(row["status"], "DELIVERED") && pyEq(row["message_fixture_id"], fixture) &&
				pyEq(row["recipient_actor_id"], recipient) && pyEq(lastCorrelation, correlation) {
				return true
			}
		}
	}
	return false
}

// transferNoticeObligation is the obligations half of the rule: a
// transferred operation owes the customer an established notice.
func (g *grader) transferNoticeObligation() []Finding {
	if g.r.Status != transferred {
		return nil
	}
	c := g.transferCheck()
	if c.established {
		return nil
	}
	return []Finding{finding("OBLIGATION_MESSAGE_NOT_ESTABLISHED",
		"the operation ended transferred_to_human_ownership, but the obligation to tell the customer it moved to a human was never established by a delivered notice: "+c.why)}
}

// correlationOf is the correlation id an action_proposed row's payload
// names, or nil.
func correlationOf(row map[string]any) any {
	p, _ := row["payload"].(map[string]any)
	return p["correlation_id"]
}
