package maintenance

import (
	"slices"

	"github.com/obaudit/obaudit/engine"
)

// Direct canonical encoders: each writes exactly the upstream canonical JSON
// of the tree its counterpart in state.go builds (root, tree), straight from
// the state, without building the tree. Keys are written in sorted order.
// TestRootEncodersMatchTrees holds every root equal to
// engine.AppendCanonical(root(name)) over every state the reference and the
// negative agents reach, and over a state with every optional field set.

func (c *cycle) appendJSON(b []byte) []byte {
	b = append(b, `{"completion_notice_sent":`...)
	b = engine.AppendBool(b, c.completionNoticeSent)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendString(b, c.id)
	b = append(b, `,"kind":`...)
	b = engine.AppendString(b, c.kind)
	b = append(b, `,"parent_cycle_id":`...)
	b = engine.AppendOptString(b, c.parent)
	b = append(b, `,"reported_outcome":`...)
	b = engine.AppendOptString(b, c.reportedOutcome)
	b = append(b, `,"requires_payment":`...)
	b = engine.AppendBool(b, c.requiresPayment)
	b = append(b, `,"scope_digest":`...)
	b = engine.AppendOptString(b, c.scope)
	b = append(b, `,"visit_id":`...)
	b = engine.AppendOptString(b, c.visitID)
	b = append(b, `,"visit_status":`...)
	b = engine.AppendString(b, c.visitStatus)
	b = append(b, `,"work_evidence_id":`...)
	b = engine.AppendOptString(b, c.workEvidenceID)
	return append(b, '}')
}

func (q *quote) appendJSON(b []byte) []byte {
	b = append(b, `{"amount_minor":`...)
	b = engine.AppendInt(b, q.amount)
	b = append(b, `,"currency":`...)
	b = engine.AppendString(b, q.currency)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendString(b, q.cycleID)
	b = append(b, `,"quote_id":`...)
	b = engine.AppendString(b, q.quoteID)
	b = append(b, `,"scope_digest":`...)
	b = engine.AppendString(b, q.scope)
	b = append(b, `,"status":`...)
	b = engine.AppendString(b, q.status)
	b = append(b, `,"valid_until":`...)
	b = engine.AppendOptString(b, q.validUntil)
	b = append(b, `,"version":`...)
	b = engine.AppendInt(b, q.version)
	return append(b, '}')
}

func (a *approval) appendJSON(b []byte) []byte {
	b = append(b, `{"amount_minor":`...)
	b = engine.AppendInt(b, a.amount)
	b = append(b, `,"checkpoint_id":`...)
	b = engine.AppendString(b, a.checkpointID)
	b = append(b, `,"currency":`...)
	b = engine.AppendString(b, a.currency)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendString(b, a.cycleID)
	b = append(b, `,"deadline_at":`...)
	b = engine.AppendString(b, a.deadlineAt)
	b = append(b, `,"opened_at":`...)
	b = engine.AppendString(b, a.openedAt)
	b = append(b, `,"quote_id":`...)
	b = engine.AppendString(b, a.quoteID)
	b = append(b, `,"quote_version":`...)
	b = engine.AppendInt(b, a.quoteVersion)
	b = append(b, `,"reminder_fired":`...)
	b = engine.AppendBool(b, a.reminderFired)
	b = append(b, `,"resolved_at":`...)
	b = engine.AppendOptString(b, a.resolvedAt)
	b = append(b, `,"scope_digest":`...)
	b = engine.AppendString(b, a.scope)
	b = append(b, `,"status":`...)
	b = engine.AppendString(b, a.status)
	return append(b, '}')
}

func (e *exception) appendJSON(b []byte) []byte {
	b = append(b, `{"checkpoint_id":`...)
	b = engine.AppendString(b, e.checkpointID)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendOptString(b, e.cycleID)
	b = append(b, `,"deadline_at":`...)
	b = engine.AppendString(b, e.deadlineAt)
	b = append(b, `,"evidence_refs":[`...)
	for i, r := range e.evidenceRefs {
		if i > 0 {
			b = append(b, ',')
		}
		b = engine.AppendString(b, r)
	}
	b = append(b, `],"exception_type":`...)
	b = engine.AppendString(b, e.exceptionType)
	b = append(b, `,"opened_at":`...)
	b = engine.AppendString(b, e.openedAt)
	b = append(b, `,"resolution":`...)
	b = engine.AppendOptString(b, e.resolution)
	b = append(b, `,"resolved_at":`...)
	b = engine.AppendOptString(b, e.resolvedAt)
	b = append(b, `,"status":`...)
	b = engine.AppendString(b, e.status)
	return append(b, '}')
}

func (i *invoice) appendJSON(b []byte) []byte {
	b = append(b, `{"amount_minor":`...)
	b = engine.AppendInt(b, i.amount)
	b = append(b, `,"currency":`...)
	b = engine.AppendString(b, i.currency)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendString(b, i.cycleID)
	b = append(b, `,"invoice_id":`...)
	b = engine.AppendString(b, i.invoiceID)
	b = append(b, `,"quote_id":`...)
	b = engine.AppendString(b, i.quoteID)
	b = append(b, `,"quote_version":`...)
	b = engine.AppendInt(b, i.quoteVersion)
	b = append(b, `,"status":`...)
	b = engine.AppendString(b, i.status)
	b = append(b, `,"validation_id":`...)
	b = engine.AppendOptString(b, i.validationID)
	return append(b, '}')
}

func (o *obligation) appendJSON(b []byte) []byte {
	b = append(b, `{"closed_at":`...)
	b = engine.AppendOptString(b, o.closedAt)
	b = append(b, `,"cycle_id":`...)
	b = engine.AppendOptString(b, o.cycleID)
	b = append(b, `,"due_at":`...)
	b = engine.AppendString(b, o.dueAt)
	b = append(b, `,"kind":`...)
	b = engine.AppendString(b, o.kind)
	b = append(b, `,"obligation_id":`...)
	b = engine.AppendString(b, o.id)
	b = append(b, `,"status":`...)
	b = engine.AppendString(b, o.status)
	return append(b, '}')
}

// appendRegistry writes a registry as an object with sorted keys.
func appendRegistry[T any](b []byte, o *ordered[T], enc func(*T, []byte) []byte) []byte {
	var stack [16]string
	keys := append(stack[:0], o.keys...)
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = engine.AppendString(b, k)
		b = append(b, ':')
		b = enc(o.m[k], b)
	}
	return append(b, '}')
}

func appendMapList(b []byte, l []map[string]any) []byte {
	b = append(b, '[')
	for i, m := range l {
		if i > 0 {
			b = append(b, ',')
		}
		b = engine.AppendCanonical(b, m)
	}
	return append(b, ']')
}

// appendRoot writes the canonical JSON of root(name).
func (s *opState) appendRoot(b []byte, name string) []byte {
	switch name {
	case "phase":
		return engine.AppendString(b, s.phase)
	case "issue_id":
		return engine.AppendOptString(b, s.issueID)
	case "classification":
		return engine.AppendOptString(b, s.classification)
	case "customer_resolution":
		return engine.AppendString(b, s.customerResolution)
	case "current_cycle_id":
		return engine.AppendOptString(b, s.currentCycleID)
	case "cycles":
		return appendRegistry(b, &s.cycles, (*cycle).appendJSON)
	case "quotes":
		return appendRegistry(b, &s.quotes, (*quote).appendJSON)
	case "approvals":
		return appendRegistry(b, &s.approvals, (*approval).appendJSON)
	case "exceptions":
		return appendRegistry(b, &s.exceptions, (*exception).appendJSON)
	case "invoices":
		return appendRegistry(b, &s.invoices, (*invoice).appendJSON)
	case "obligations":
		return appendRegistry(b, &s.obligations, (*obligation).appendJSON)
	case "payment":
		b = append(b, `{"cycle_id":`...)
		b = engine.AppendOptString(b, s.payment.cycleID)
		b = append(b, `,"invoice_id":`...)
		b = engine.AppendOptString(b, s.payment.invoiceID)
		b = append(b, `,"request_id":`...)
		b = engine.AppendOptString(b, s.payment.requestID)
		b = append(b, `,"settlement_id":`...)
		b = engine.AppendOptString(b, s.payment.settlementID)
		b = append(b, `,"status":`...)
		b = engine.AppendString(b, s.payment.status)
		return append(b, '}')
	case "assertions":
		return appendMapList(b, s.assertions)
	case "authoritative_records":
		var stack [16]string
		keys := stack[:0]
		for k := range s.authoritative {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = engine.AppendString(b, k)
			b = append(b, ':')
			b = engine.AppendCanonical(b, s.authoritative[k])
		}
		return append(b, '}')
	case "communications":
		return appendMapList(b, s.communications)
	case "ownership_transferred_to":
		return engine.AppendOptString(b, s.ownershipTransferredTo)
	case "transfer_notice_sent":
		return engine.AppendBool(b, s.transferNoticeSent)
	case "provisional_close":
		b = append(b, `{"accepted_at":`...)
		b = engine.AppendOptString(b, s.provisional.acceptedAt)
		b = append(b, `,"cycle_id":`...)
		b = engine.AppendOptString(b, s.provisional.cycleID)
		b = append(b, `,"reopen_until":`...)
		b = engine.AppendOptString(b, s.provisional.reopenUntil)
		b = append(b, `,"timer_event_id":`...)
		b = engine.AppendOptString(b, s.provisional.timerEventID)
		return append(b, '}')
	case "reopen_count":
		return engine.AppendInt(b, s.reopenCount)
	case "terminal":
		if s.terminal == nil {
			return append(b, "null"...)
		}
		return engine.AppendCanonical(b, s.terminal)
	case "replay_final":
		return engine.AppendBool(b, s.replayFinal)
	}
	panic("maintenance: no observable root " + name)
}

// canonicalRoots is ObservableRoots plus "hidden", sorted: the key order of
// the final state.
var canonicalRoots = func() []string {
	r := append(slices.Clone(ObservableRoots), "hidden")
	slices.Sort(r)
	return r
}()

// appendCanonical writes the canonical JSON of canonical() (the final state).
func (s *opState) appendCanonical(b []byte) []byte {
	b = append(b, '{')
	for i, r := range canonicalRoots {
		if i > 0 {
			b = append(b, ',')
		}
		b = engine.AppendString(b, r)
		b = append(b, ':')
		if r == "hidden" {
			b = engine.AppendCanonical(b, s.hidden)
			continue
		}
		b = s.appendRoot(b, r)
	}
	return append(b, '}')
}
