package evaluator

import (
	"slices"
	"strings"

	"github.com/obaudit/obaudit/internal/python"
)

// proposalBinding says which proposal each accepted or refused effect
// answers.
type proposalBinding struct {
	findings []Finding
	// linked maps the ledger index of an outcome row to the proposal row it
	// answers.
	linked map[int64]map[string]any
}

func (g *grader) proposalBinding() *proposalBinding {
	b := &proposalBinding{linked: map[int64]map[string]any{}}
	proposals := map[string]map[string]any{}
	for i, row := range g.rows {
		if g.types[i] != "action_proposed" {
			continue
		}
		identity := row["proposal_id"]
		id, ok := identity.(string)
		if !ok || id == "" {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("the proposal at ledger index %s carries no proposal identity, so nothing can say which effect answered it", python.Repr(row["index"])), row["at"]))
			continue
		}
		if _, dup := proposals[id]; dup {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("proposal %s is proposed twice; a proposal identity is assigned once so two proposals cannot share one authority", python.Quote(id)), row["at"]))
			continue
		}
		proposals[id] = row
	}
	answered := map[string]int64{}
	for i, row := range g.rows {
		if !g.typeIn(i, proposalOutcomeTypes) {
			continue
		}
		identity := row["proposal_id"]
		position := pyInt(idx(row, "index"))
		var proposal map[string]any
		id, isStr := identity.(string)
		if isStr {
			proposal = proposals[id]
		}
		if proposal == nil {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("row %d answers proposal %s, which this record does not contain", position, python.Repr(identity)), row["at"]))
			continue
		}
		if earlier, dup := answered[id]; dup {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("proposal %s is answered by row %d and again by row %d; one proposal has one outcome", python.Quote(id), earlier, position), row["at"]))
			continue
		}
		answered[id] = position
		if pyInt(idx(proposal, "index")) >= position {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("row %d answers proposal %s, which the record places at index %s; an outcome cannot precede the proposal it answers",
					position, python.Quote(id), python.Str(proposal["index"])), row["at"]))
			continue
		}
		if !pyEq(proposal["action_type"], row["action_type"]) {
			b.findings = append(b.findings, findingAt("CRITICAL_PROPOSAL_BINDING_MISMATCH",
				sprintf("row %d records a %s outcome against proposal %s, which proposed %s",
					position, python.Repr(row["action_type"]), python.Quote(id), python.Repr(proposal["action_type"])), row["at"]))
			continue
		}
		b.linked[position] = proposal
	}
	if unanswered := unmatched(proposals, answered); len(unanswered) > 0 {
		b.findings = append(b.findings, finding("CRITICAL_PROPOSAL_BINDING_MISMATCH",
			sprintf("proposal(s) %s were made and never refused or accepted; every proposal this engine records is decided",
				python.StrList(unanswered))))
	}
	return b
}

var (
	proposalOutcomeTypes = stringSet("action_rejected", "effect_accepted")
	validatedStatus      = stringSet("VALIDATED")
	mutatingRecordTypes  = stringSet("effect_accepted", "event_observed")
)

// effectBindings says what each accepted effect established.
type effectBindings struct {
	findings    []Finding
	established map[int64]map[string]any
}

func (g *grader) effectBindings() *effectBindings {
	e := &effectBindings{established: map[int64]map[string]any{}}
	for _, row := range g.rowsOf("effect_accepted") {
		position := pyInt(idx(row, "index"))
		bindings, ok := row["bindings"].(map[string]any)
		if !ok {
			e.findings = append(e.findings, findingAt("CRITICAL_EFFECT_BINDINGS_UNREADABLE",
				sprintf("the accepted effect at ledger index %d records %s where the identities it established belong; an effect that does not state what it established leaves the final state as the only authority for it",
					position, python.TypeName(row["bindings"])), row["at"]))
			continue
		}
		var malformed []string
		for name, value := range bindings {
			if _, isStr := value.(string); !isStr {
				malformed = append(malformed, python.Quote(name))
			}
		}
		if len(malformed) > 0 {
			e.findings = append(e.findings, findingAt("CRITICAL_EFFECT_BINDINGS_UNREADABLE",
				sprintf("the accepted effect at ledger index %d binds %s to something that is not a canonical identity; a binding is a name and a string identity, and anything else cannot be compared with the proposal that committed it",
					position, python.StrList(sortedStrings(malformed))), row["at"]))
			continue
		}
		e.established[position] = bindings
	}
	return e
}

// priorDelivery is the ledger index of the first matching event that
// reached the state before `before`, or -1.
func (g *grader) priorDelivery(in *integrity, before int64, eventType string, matches func(map[string]any) bool) int64 {
	best := int64(-1)
	for _, ev := range g.r.Events {
		em, ok := ev.(map[string]any)
		if !ok || !pyEq(em["event_type"], eventType) {
			continue
		}
		pos, reached := in.mutatingIndex[python.Str(em["event_id"])]
		if !reached {
			continue
		}
		payload, ok := em["payload"].(map[string]any)
		if !ok || !matches(payload) {
			continue
		}
		if pos < before && (best < 0 || pos < best) {
			best = pos
		}
	}
	return best
}

// linkedPayload returns the proposal and payload behind an accepted effect,
// or why there is none.
func linkedPayload(b *proposalBinding, position int64) (map[string]any, map[string]any, string) {
	proposal := b.linked[position]
	if proposal == nil {
		return nil, nil, sprintf("the accepted effect at ledger index %d has no proposal in this record that it validly answers", position)
	}
	payload, ok := proposal["payload"].(map[string]any)
	if !ok {
		return proposal, nil, sprintf("the proposal %s behind ledger index %d carries no readable payload", python.Repr(proposal["proposal_id"]), position)
	}
	return proposal, payload, ""
}

// mapGet is mapping.get(key) where key may be any value: an unhashable key
// fails as in Python, any non-string key finds nothing.
func mapGet(m any, key any) any {
	mm, ok := m.(map[string]any)
	if !ok {
		fail("'%s' object has no attribute 'get'", python.TypeName(m))
	}
	hashable(key)
	s, ok := key.(string)
	if !ok {
		return nil
	}
	return mm[s]
}

func workAuthorisationProblems(payload, proposal map[string]any, position int64, cycleID any,
	approvals, quotes any, openedAt, approvedAt map[string]int64) []string {
	checkpointID := payload["approval_checkpoint_id"]
	var approval map[string]any
	if cp, ok := checkpointID.(string); ok {
		approval, _ = mapGet(approvals, cp).(map[string]any)
	}
	if approval == nil {
		return []string{sprintf("the proposal names approval checkpoint %s, which this operation never held", python.Repr(checkpointID))}
	}
	cp := checkpointID.(string)
	var problems []string
	if !pyEq(approval["status"], "RESOLVED_APPROVED") {
		problems = append(problems, sprintf("checkpoint %s is %s, not granted", python.Quote(cp), python.Repr(approval["status"])))
	}
	opened, okOpened := openedAt[cp]
	approved, okApproved := approvedAt[cp]
	if !okOpened || !okApproved {
		problems = append(problems, sprintf("checkpoint %s was not both opened and granted in this record", python.Quote(cp)))
	} else if !(opened < approved && approved < position) {
		problems = append(problems, sprintf("checkpoint %s was opened at index %d and granted at index %d, which is not before the authorisation at index %d",
			python.Quote(cp), opened, approved, position))
	}
	if !pyEq(approval["cycle_id"], cycleID) {
		problems = append(problems, sprintf("checkpoint %s authorised cycle %s, not %s", python.Quote(cp), python.Repr(approval["cycle_id"]), python.Repr(cycleID)))
	}
	for _, name := range []string{"quote_id", "quote_version"} {
		expected := approval[name]
		if !pyEq(payload[name], expected) {
			problems = append(problems, sprintf("the proposal names %s=%s but checkpoint %s granted %s",
				name, python.Repr(payload[name]), python.Quote(cp), python.Repr(expected)))
		}
	}
	if v, ok := payload["cycle_id"]; ok && !pyEq(v, cycleID) {
		problems = append(problems, sprintf("the proposal names cycle %s but the effect committed against %s", python.Repr(v), python.Repr(cycleID)))
	}
	quote, ok := mapGet(quotes, python.Str(approval["quote_id"])+":v"+python.Str(approval["quote_version"])).(map[string]any)
	if !ok {
		problems = append(problems, "the granted quote version is not in the final record")
	} else {
		if !pyEq(quote["status"], "APPROVED") {
			problems = append(problems, sprintf("the granted quote is %s", python.Repr(quote["status"])))
		}
		if !pyEq(quote["cycle_id"], cycleID) {
			problems = append(problems, sprintf("the granted quote belongs to cycle %s, not %s", python.Repr(quote["cycle_id"]), python.Repr(cycleID)))
		}
		for _, name := range []string{"amount_minor", "currency", "scope_digest"} {
			if !pyEq(quote[name], approval[name]) {
				problems = append(problems, sprintf("the granted quote states %s=%s but the checkpoint bound %s",
					name, python.Repr(quote[name]), python.Repr(approval[name])))
			}
		}
	}
	evidence, ok := proposal["evidence_refs"].([]any)
	if !ok || !pyIn(cp, evidence) {
		problems = append(problems, sprintf("the proposal does not cite checkpoint %s as the authority the authorisation rests on", python.Quote(cp)))
	}
	return problems
}

func paymentProposalProblems(payload, proposal, payment map[string]any, invoice, cycle any) []string {
	var problems []string
	expected := []namedValue{{"invoice_id", payment["invoice_id"]}}
	if inv, ok := invoice.(map[string]any); ok {
		expected = append(expected, namedValue{"amount_minor", inv["amount_minor"]}, namedValue{"currency", inv["currency"]})
	}
	for _, e := range expected {
		if !pyEq(payload[e.name], e.value) {
			problems = append(problems, sprintf("the payment proposal names %s=%s but the operation committed %s",
				e.name, python.Repr(payload[e.name]), python.Repr(e.value)))
		}
	}
	evidence, ok := proposal["evidence_refs"].([]any)
	if !ok {
		return append(problems, "the payment proposal cites no evidence")
	}
	required := []any{payment["invoice_id"]}
	if c, ok := cycle.(map[string]any); ok {
		required = append(required, c["work_evidence_id"])
	}
	var missing []string
	for _, ref := range required {
		if !pyIn(ref, evidence) {
			missing = append(missing, python.Str(ref))
		}
	}
	if len(missing) > 0 {
		problems = append(problems, sprintf("the payment proposal does not cite %s", python.StrList(sortedStrings(missing))))
	}
	return problems
}

func (g *grader) invoiceValidationProblems(in *integrity, position int64, cycleID any, established map[string]any,
	proposal, payload map[string]any, unreadableWhy string) []string {
	var problems []string
	accepted, isStr := established["invoice_id"].(string)
	if !isStr {
		problems = append(problems, "the accepted effect establishes no invoice identity, so nothing in the record says which invoice this validation was about")
	}
	var acceptedAny any
	if isStr {
		acceptedAny = accepted
	}
	if unreadableWhy != "" {
		problems = append(problems, unreadableWhy)
	} else if payload != nil {
		claimed := payload["invoice_id"]
		if !pyEq(claimed, acceptedAny) {
			problems = append(problems, sprintf("the proposal that committed names invoice %s but the effect established %s", python.Repr(claimed), python.Repr(acceptedAny)))
		}
	}
	if !isStr {
		return problems
	}
	fs := g.r.FinalState
	invoice, ok := mapGet(idx(fs, "invoices"), accepted).(map[string]any)
	if !ok {
		problems = append(problems, sprintf("invoice %s is not in the final record", python.Quote(accepted)))
	} else if !pyEq(invoice["cycle_id"], cycleID) {
		problems = append(problems, sprintf("invoice %s belongs to cycle %s, not to cycle %s, which this validation committed against",
			python.Quote(accepted), python.Repr(invoice["cycle_id"]), python.Repr(cycleID)))
	}
	if g.priorDelivery(in, position, g.c.Types.InvoiceReceived, func(body map[string]any) bool {
		return pyEq(body["invoice_id"], accepted)
	}) < 0 {
		problems = append(problems, sprintf("no authoritative record of invoice %s reached this operation before its validation was requested", python.Quote(accepted)))
	}
	if g.priorDelivery(in, position, g.c.Types.WorkVerified, func(body map[string]any) bool {
		return pyEq(body["cycle_id"], cycleID)
	}) < 0 {
		problems = append(problems, sprintf("no authoritative work evidence for cycle %s reached this operation before the invoice was sent for validation", python.Repr(cycleID)))
	}
	cycle := mapGet(idx(fs, "cycles"), cycleID)
	var evidenceID any
	if c, ok := cycle.(map[string]any); ok {
		evidenceID = c["work_evidence_id"]
	}
	var cited []any
	citedOK := false
	if proposal != nil {
		cited, citedOK = proposal["evidence_refs"].([]any)
	}
	if !citedOK || evidenceID == nil || !pyIn(evidenceID, cited) {
		problems = append(problems, sprintf("the proposal does not cite the authoritative work evidence %s that the validation of invoice %s rests on",
			python.Repr(evidenceID), python.Quote(accepted)))
	}
	return problems
}

// causal asks whether each irreversible action could have been taken when
// the record says it was.
func (g *grader) causal(in *integrity, b *proposalBinding, e *effectBindings) []Finding {
	var findings []Finding
	fs := g.r.FinalState
	approvedAt := map[string]int64{}
	openedAt := map[string]int64{}
	for i, row := range g.rows {
		cp := python.Str(row["checkpoint_id"])
		position := pyInt(idx(row, "index"))
		if g.types[i] == "checkpoint_opened" {
			if _, ok := openedAt[cp]; !ok {
				openedAt[cp] = position
			}
		} else if g.types[i] == "checkpoint_resolved" && pyEq(row["resolution"], "RESOLVED_APPROVED") {
			if _, ok := approvedAt[cp]; !ok {
				approvedAt[cp] = position
			}
		}
	}
	approvals := idx(fs, "approvals")
	quotes := idx(fs, "quotes")
	effects := g.rowsOf("effect_accepted")
	for _, row := range effects {
		if !pyEq(row["action_type"], g.c.Types.WorkAuthorisation) {
			continue
		}
		position := pyInt(idx(row, "index"))
		cycleID := row["cycle_id"]
		proposal, payload, why := linkedPayload(b, position)
		var problems []string
		if why != "" {
			problems = []string{why}
		} else {
			problems = workAuthorisationProblems(payload, proposal, position, cycleID, approvals, quotes, openedAt, approvedAt)
		}
		if len(problems) > 0 {
			findings = append(findings, findingAt("CRITICAL_WORK_AUTHORISED_WITHOUT_PRIOR_APPROVAL",
				sprintf("work was authorised on cycle %s at ledger index %d without the authority the proposal that committed it claimed: %s",
					python.Repr(cycleID), position, strings.Join(problems, "; ")), row["at"]))
		}
	}
	for _, row := range effects {
		if !pyEq(row["action_type"], g.c.Types.InvoiceValidationRequest) {
			continue
		}
		position := pyInt(idx(row, "index"))
		established, ok := e.established[position]
		if !ok {
			continue
		}
		proposal, payload, why := linkedPayload(b, position)
		problems := g.invoiceValidationProblems(in, position, row["cycle_id"], established, proposal, payload, why)
		if len(problems) > 0 {
			findings = append(findings, findingAt("CRITICAL_INVOICE_VALIDATED_WITHOUT_PRIOR_EVIDENCE",
				sprintf("an invoice was sent for validation at ledger index %d without the authority the record claims for it: %s",
					position, strings.Join(problems, "; ")), row["at"]))
		}
	}
	payment, ok := idx(fs, "payment").(map[string]any)
	if !ok {
		fail("'%s' object has no attribute 'get'", python.TypeName(idx(fs, "payment")))
	}
	invoiceID := payment["invoice_id"]
	cycleID := payment["cycle_id"]
	invoice := mapGet(idx(fs, "invoices"), invoiceID)
	for _, row := range effects {
		if !pyEq(row["action_type"], g.c.Types.PaymentRequest) {
			continue
		}
		position := pyInt(idx(row, "index"))
		var problems []string
		if inv, ok := invoice.(map[string]any); !ok {
			problems = append(problems, sprintf("invoice %s is not in the final record", python.Repr(invoiceID)))
		} else {
			if !pyEq(inv["status"], "VALIDATED") {
				problems = append(problems, sprintf("invoice %s is %s", python.Repr(invoiceID), python.Repr(inv["status"])))
			}
			if !pyEq(inv["cycle_id"], cycleID) {
				problems = append(problems, sprintf("invoice %s belongs to cycle %s, not to the paid cycle %s",
					python.Repr(invoiceID), python.Repr(inv["cycle_id"]), python.Repr(cycleID)))
			}
		}
		if g.priorDelivery(in, position, g.c.Types.WorkVerified, func(body map[string]any) bool {
			return pyEq(body["cycle_id"], cycleID)
		}) < 0 {
			problems = append(problems, sprintf("no authoritative work evidence for cycle %s reached this operation before the payment was requested", python.Repr(cycleID)))
		}
		if g.priorDelivery(in, position, g.c.Types.InvoiceValidated, func(body map[string]any) bool {
			v, isBool := body["valid"].(bool)
			return pyEq(body["invoice_id"], invoiceID) && isBool && v
		}) < 0 {
			problems = append(problems, sprintf("no authoritative validation of invoice %s reached this operation before the payment was requested", python.Repr(invoiceID)))
		}
		proposal, payload, why := linkedPayload(b, position)
		if why != "" {
			problems = append(problems, why)
		} else {
			problems = append(problems, paymentProposalProblems(payload, proposal, payment, invoice, mapGet(idx(fs, "cycles"), cycleID))...)
		}
		if len(problems) > 0 {
			findings = append(findings, findingAt("CRITICAL_PAYMENT_WITHOUT_PRIOR_EVIDENCE", strings.Join(problems, "; "), row["at"]))
		}
	}
	return findings
}

const criticalNote = "re-derived from the trajectory and final state, not from the guards"

func (g *grader) critical(in *integrity) Dimension {
	findings := slices.Clone(in.binding)
	if slices.ContainsFunc(in.structural, func(f Finding) bool { return !retrievalGrammarCodes[f.Code] }) {
		findings = append(findings, finding("CRITICAL_TRAJECTORY_NOT_VERIFIABLE",
			"the trajectory is not a well-formed append-only record, so no invariant can be independently re-derived from it"))
		return Dimension{Name: CriticalInvariants, OK: false, Findings: findings,
			Counts: []Count{{"violations", int64(len(findings))}}, Note: criticalNote}
	}
	b := g.proposalBinding()
	findings = append(findings, b.findings...)
	e := g.effectBindings()
	findings = append(findings, e.findings...)
	findings = append(findings, g.causal(in, b, e)...)

	fs := g.r.FinalState
	approvals := idx(fs, "approvals")
	cycles := idx(fs, "cycles")
	invoices := idx(fs, "invoices")

	accepted := g.rowsOf("effect_accepted")
	for _, row := range accepted {
		if !pyEq(row["action_type"], g.c.Types.WorkAuthorisation) {
			continue
		}
		cycleID := row["cycle_id"]
		granted := false
		for _, a := range values(approvals) {
			if pyEq(idx(a, "cycle_id"), cycleID) && pyEq(idx(a, "status"), "RESOLVED_APPROVED") {
				granted = true
			}
		}
		if !granted {
			findings = append(findings, findingAt("CRITICAL_UNAPPROVED_WORK_AUTHORISED",
				sprintf("work was authorised on cycle %s with no granted approval in the final record", python.Repr(cycleID)), idx(row, "at")))
		}
	}
	for _, row := range accepted {
		if !pyEq(row["action_type"], g.c.Types.PaymentRequest) {
			continue
		}
		payment := idx(fs, "payment")
		invoice := mapGet(invoices, get(payment, "invoice_id"))
		cycle := mapGet(cycles, get(payment, "cycle_id"))
		if invoice == nil || !inStrings(idx(invoice, "status"), validatedStatus) {
			findings = append(findings, findingAt("CRITICAL_PAYMENT_WITHOUT_VALID_INVOICE",
				"a payment was requested without a validated invoice behind it", idx(row, "at")))
		}
		if cycle == nil || !pyEq(idx(cycle, "visit_status"), "WORK_VERIFIED") {
			findings = append(findings, findingAt("CRITICAL_PAYMENT_WITHOUT_VERIFIED_WORK",
				"a payment was requested for work with no authoritative evidence", idx(row, "at")))
		}
	}
	findings = append(findings, g.settlementBinding()...)

	assertionIDs := map[string]bool{}
	for _, a := range pyList(idx(fs, "assertions")) {
		assertionIDs[python.Str(idx(a, "assertion_id"))] = true
	}
	var leaked []string
	for _, k := range pyList(idx(fs, "authoritative_records")) {
		hashable(k)
		if s, ok := k.(string); ok && assertionIDs[s] {
			leaked = append(leaked, s)
		}
	}
	if len(leaked) > 0 {
		leaked = slices.Compact(sortedStrings(leaked))
		findings = append(findings, finding("CRITICAL_CLAIM_BECAME_FACT",
			sprintf("actor claim(s) %s appear in the authoritative record", python.StrList(leaked))))
	}

	terminals := g.rowsOf("terminal_accepted")
	if len(terminals) > 0 {
		finalIndex := pyInt(idx(terminals[0], "index"))
		for _, row := range terminals[1:] {
			finalIndex = min(finalIndex, pyInt(idx(row, "index")))
		}
		finalAt := python.Str(idx(terminals[0], "at"))
		after := 0
		for _, row := range g.rows {
			if pyInt(idx(row, "index")) > finalIndex &&
				inStrings(idx(row, "record_type"), mutatingRecordTypes) &&
				python.Str(idx(row, "at")) > finalAt {
				after++
			}
		}
		if after > 0 {
			findings = append(findings, finding("CRITICAL_MUTATION_AFTER_TERMINAL",
				sprintf("%d mutating record(s) follow the terminal transition", after)))
		}
	}

	irreversible := 0
	irreversibleActions := stringSet(g.c.Types.WorkAuthorisation, g.c.Types.PaymentRequest)
	seen := map[[2]any]bool{}
	for _, row := range accepted {
		at := row["action_type"]
		if !inStrings(at, irreversibleActions) {
			continue
		}
		irreversible++
		seen[[2]any{pyHashKey(at), pyHashKey(row["cycle_id"])}] = true
	}
	if irreversible != len(seen) {
		findings = append(findings, finding("CRITICAL_DUPLICATE_IRREVERSIBLE_ACTION",
			"an irreversible action committed twice for the same cycle"))
	}

	if g.r.Status == "completed_successfully" {
		var open []string
		for _, group := range []any{approvals, idx(fs, "exceptions"), idx(fs, "obligations")} {
			open = append(open, openKeys(group)...)
		}
		if len(open) > 0 {
			findings = append(findings, finding("CRITICAL_COMPLETION_WITH_OPEN_WORK",
				sprintf("the operation completed with %s still open", python.StrList(sortedStrings(open)))))
		}
	}
	return Dimension{Name: CriticalInvariants, OK: len(findings) == 0, Findings: findings,
		Counts: []Count{{"violations", int64(len(findings))}}, Note: criticalNote}
}

func (g *grader) settlementBinding() []Finding {
	fs := g.r.FinalState
	payment := idx(fs, "payment")
	if !pyEq(get(payment, "status"), "SETTLED") {
		return nil
	}
	settlementID := get(payment, "settlement_id")
	record, ok := mapGet(idx(fs, "authoritative_records"), settlementID).(map[string]any)
	if !ok {
		return []Finding{finding("CRITICAL_SETTLEMENT_BINDING_MISMATCH",
			sprintf("payment is SETTLED but no authoritative settlement record %s exists to say what was paid", python.Repr(settlementID)))}
	}
	invoice, ok := mapGet(idx(fs, "invoices"), get(payment, "invoice_id")).(map[string]any)
	if !ok {
		return []Finding{finding("CRITICAL_SETTLEMENT_BINDING_MISMATCH",
			sprintf("the settled payment names invoice %s, which is not in the final record", python.Repr(get(payment, "invoice_id"))))}
	}
	expected := []namedValue{
		{"payment_request_id", get(payment, "request_id")},
		{"invoice_id", idx(invoice, "invoice_id")},
		{"cycle_id", get(payment, "cycle_id")},
		{"amount_minor", idx(invoice, "amount_minor")},
		{"currency", idx(invoice, "currency")},
	}
	var findings []Finding
	for _, e := range expected {
		if !pyEq(record[e.name], e.value) {
			f := finding("CRITICAL_SETTLEMENT_BINDING_MISMATCH",
				sprintf("the recorded settlement says %s=%s, but the payment this operation made bound %s", e.name, python.Repr(record[e.name]), python.Repr(e.value)))
			if record["at"] != nil {
				f.At = strp(python.Str(record["at"]))
			}
			findings = append(findings, f)
		}
	}
	if !pyEq(idx(invoice, "cycle_id"), get(payment, "cycle_id")) {
		findings = append(findings, finding("CRITICAL_SETTLEMENT_BINDING_MISMATCH",
			sprintf("invoice %s belongs to cycle %s, not to the paid cycle %s",
				python.Repr(idx(invoice, "invoice_id")), python.Repr(idx(invoice, "cycle_id")), python.Repr(get(payment, "cycle_id")))))
	}
	return findings
}

// values iterates mapping.values() (sorted by key for determinism).
func values(m any) []any {
	mm, ok := m.(map[string]any)
	if !ok {
		fail("'%s' object has no attribute 'values'", python.TypeName(m))
	}
	out := make([]any, 0, len(mm))
	for _, k := range sortedKeys(mm) {
		out = append(out, mm[k])
	}
	return out
}

// keysOf iterates mapping.items() keys, sorted.
func keysOf(m any) []string {
	mm, ok := m.(map[string]any)
	if !ok {
		fail("'%s' object has no attribute 'items'", python.TypeName(m))
	}
	return sortedKeys(mm)
}

// openKeys is the keys, sorted, of the items of a mapping whose status is
// "OPEN".
func openKeys(group any) []string {
	var open []string
	for _, k := range keysOf(group) {
		if pyEq(idx(mapGet(group, k), "status"), "OPEN") {
			open = append(open, k)
		}
	}
	return open
}

// namedValue is one field a binding must hold, and its value.
type namedValue struct {
	name  string
	value any
}
