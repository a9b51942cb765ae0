package maintenance

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
)

// TestRootEncodersMatchTrees holds every direct root encoder, and the
// final-state encoder, to canon.Upstream of the tree root() builds, on an
// empty state and on one where every optional field is set, registries hold
// several entries inserted out of key order, and strings need escaping.
func TestRootEncodersMatchTrees(t *testing.T) {
	check := func(name string, s *opState) {
		t.Helper()
		var o engine.Members
		for _, root := range ObservableRoots {
			want, err := canon.Upstream(s.root(&o, root))
			if err != nil {
				t.Fatal(err)
			}
			if got := s.appendRoot(&o, nil, root); string(got) != string(want) {
				t.Errorf("%s: root %s\n got %s\nwant %s", name, root, got, want)
			}
		}
		want, err := canon.Upstream(s.canonical(&o))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.appendCanonical([]byte("prefix")); string(got) != "prefix"+string(want) {
			t.Errorf("%s: final state\n got %s\nwant %s", name, got, want)
		}
	}
	check("empty", newState(map[string]any{"truth": "x", "n": int64(3), "nested": map[string]any{"b": []any{true, nil}}}))

	s := newState(map[string]any{})
	odd := "quote\"back\\slash\ttab \u00e9\u2028 <&>"
	s.phase, s.customerResolution = "ACTIVE", odd
	s.issueID, s.classification, s.currentCycleID = sp("issue_1"), sp(odd), sp("work_cycle_2")
	for _, id := range []string{"work_cycle_2", "work_cycle_10", "work_cycle_1"} {
		s.cycles.put(id, &cycle{id: id, kind: cycleWarrantyRevisit, parent: sp("p"), scope: sp(odd), visitID: sp("v"),
			visitStatus: visitWorkVerified, reportedOutcome: sp("o"), workEvidenceID: sp("e"), requiresPayment: true, completionNoticeSent: true})
	}
	s.quotes.put("q:v2", &quote{quoteID: "q", version: 2, cycleID: "c", amount: 9007199254740991, currency: "GBP", scope: odd, status: quoteApproved, validUntil: sp("2031-03-03T09:00:00Z")})
	s.quotes.put("q:v1", &quote{quoteID: "q", version: 1, cycleID: "c", amount: -5, currency: "GBP", scope: "s", status: quoteExpired})
	s.approvals.put("checkpoint_2", &approval{checkpointID: "checkpoint_2", quoteID: "q", quoteVersion: 2, cycleID: "c", amount: 1, currency: "GBP",
		scope: "s", openedAt: "a", deadlineAt: "d", status: approvalApproved, resolvedAt: sp("r"), reminderFired: true})
	s.approvals.put("checkpoint_1", &approval{checkpointID: "checkpoint_1", status: approvalOpen})
	s.exceptions.put("checkpoint_3", &exception{checkpointID: "checkpoint_3", exceptionType: "APPROVAL_EXPIRED", cycleID: sp("c"), openedAt: "o",
		deadlineAt: "d", evidenceRefs: []string{"b", odd, "a"}, status: "RESOLVED", resolution: sp("TAKE_OWNERSHIP"), resolvedAt: sp("r")})
	s.exceptions.put("checkpoint_0", &exception{checkpointID: "checkpoint_0", evidenceRefs: []string{}})
	s.invoices.put("inv_2", &invoice{invoiceID: "inv_2", cycleID: "c", quoteID: "q", quoteVersion: 2, amount: 7, currency: "GBP", status: invoiceValidated, validationID: sp("val")})
	s.invoices.put("inv_1", &invoice{invoiceID: "inv_1"})
	s.obligations.put("visit_progress:c", &obligation{id: "visit_progress:c", kind: "visit_progress", cycleID: sp("c"), dueAt: "d", status: obligationBreached, closedAt: sp("x")})
	s.obligations.put("approval:c", &obligation{id: "approval:c", kind: "k", dueAt: "d", status: obligationOpen})
	s.payment.requestID, s.payment.invoiceID, s.payment.cycleID, s.payment.settlementID = sp("p"), sp("i"), sp("c"), sp("s")
	s.payment.status = paymentSettled
	s.assertions = []map[string]any{{"assertion_id": "a1", "cycle_id": nil, "at": "t"}, {"assertion_id": odd, "cycle_id": "c"}}
	s.authoritative["z"] = map[string]any{"kind": "work_evidence", "valid": false, "amount_minor": int64(12)}
	s.authoritative["attendance:v"] = map[string]any{"kind": "visit_attendance"}
	s.communications = []map[string]any{{"recipient_actor_id": "customer_1", "correlation_id": nil}, {"correlation_id": "c", "at": odd}}
	s.ownershipTransferredTo, s.transferNoticeSent = sp("operator_1"), true
	s.provisional.cycleID, s.provisional.acceptedAt, s.provisional.reopenUntil, s.provisional.timerEventID = sp("c"), sp("a"), sp("u"), sp("t")
	s.reopenCount = 3
	s.terminal = map[string]any{"outcome": "completed_successfully", "at": "t", "cycle_id": nil}
	s.replayFinal = true
	s.hidden = map[string]any{"k": odd}
	check("full", s)
}
