package evaluator

import (
	"reflect"
	"strings"
	"unsafe"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/python"
)

// ledgerRecordTypes is every record type the 0.9.0 runtime writes, in the
// ledger's own order. A row of any other type is a structural finding.
var ledgerRecordTypes = []string{
	"event_observed", "event_audit_only", "event_rejected", "event_after_terminal",
	"agent_invoked", "agent_outcome", "outcome_rejected",
	"wait_declared", "wait_rejected", "wait_unresolved_at_horizon",
	"action_proposed", "action_rejected", "effect_accepted", "side_effect", "side_effect_failed",
	"checkpoint_opened", "checkpoint_resolved", "checkpoint_rejected",
	"obligation_created", "obligation_discharged", "obligation_cancelled", "obligation_breached",
	"timer_scheduled", "timer_cancelled",
	"terminal_proposed", "terminal_rejected", "provisional_close_entered", "operation_reopened",
	"terminal_accepted", "episode_ended",
	"critical_violation",
	"retrieval_served", "retrieval_refused", "derived_context_invalidated",
}

var (
	recordTypeSet = stringSet(ledgerRecordTypes...)
	// The closed core vocabularies a served row is held to.
	retrievalAuthorities = []any{"actor_claim", "authoritative_verification", "communication", "system_event", "system_of_record"}
	retrievalInitiators  = []any{"agent"}
	invalidationCauses   = []any{"effect_accepted", "wake"}

	callRecordTypes        = stringSet("retrieval_served", "retrieval_refused", "agent_outcome", "outcome_rejected")
	invocationBoundTypes   = stringSet("retrieval_served", "retrieval_refused", "derived_context_invalidated")
	eventRecordDisposition = map[string]string{
		"event_observed":       "accepted",
		"event_audit_only":     "audit",
		"event_rejected":       "rejected",
		"event_after_terminal": "post_terminal",
	}
	mutatingDispositions = stringSet("accepted", "audit")
)

// verdictAfterReplayFinal is the canonical verdict of a post-terminal
// delivery (its ledger row carries no code).
const verdictAfterReplayFinal = "AFTER_REPLAY_FINAL"

// retrievalGrammarCodes are the structural codes that do not make causal
// order unreadable.
var retrievalGrammarCodes = stringSet(
	"RETRIEVAL_AS_OF_NOT_ONE_INSTANT",
	"RETRIEVAL_BATCH_NOT_CANONICAL",
	"RETRIEVAL_BATCH_ORDER_BROKEN",
	"RETRIEVAL_INITIATOR_UNKNOWN",
	"RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE",
	"RETRIEVAL_INVALIDATION_ORDER_BROKEN",
	"RETRIEVAL_INVOCATION_BINDING_BROKEN",
	"RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
	"RETRIEVAL_RECORD_IDENTITY_UNKNOWN",
	"RETRIEVAL_RECORD_VERSION_MISMATCH",
	"RETRIEVAL_RESULT_VOCABULARY_UNKNOWN",
	"RETRIEVAL_SERVED_WITHOUT_A_BATCH",
	"RETRIEVAL_TURN_BINDING_BROKEN",
	"RETRIEVAL_TURN_ORDER_BROKEN",
)

func stringSet(ss ...string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

func finding(code, detail string) Finding { return Finding{Code: code, Detail: detail} }

func findingAt(code, detail string, at any) Finding {
	return Finding{Code: code, Detail: detail, At: strp(python.Str(at))}
}

// integrity is what survives when the trajectory and the delivered events
// are distrusted: structural findings, binding findings, and the ledger
// index of each delivery that reached the state.
type integrity struct {
	structural    []Finding
	binding       []Finding
	mutatingIndex map[string]int64
}

func (i *integrity) sound() bool { return len(i.structural) == 0 && len(i.binding) == 0 }

// rows are the mapping rows of the trajectory (upstream's safe trajectory);
// positions in findings count within it.
func (g *grader) recordIntegrity() *integrity {
	rows := g.rows
	in := &integrity{mutatingIndex: map[string]int64{}}

	indicesOK := true
	for i, row := range rows {
		if !pyEq(row["index"], int64(i)) {
			indicesOK = false
			break
		}
	}
	if !indicesOK {
		shown := make([]any, 0, 8)
		for _, row := range rows[:min(len(rows), 8)] {
			shown = append(shown, row["index"])
		}
		more := ""
		if len(rows) > 8 {
			more = "..."
		}
		in.structural = append(in.structural, finding("TRAJECTORY_INDICES_NOT_CONTIGUOUS",
			sprintf("a trajectory is an append-only sequence indexed 0..%d; this one is indexed %s%s",
				len(rows)-1, python.Repr(shown), more)))
	}

	var previous int64 // the instant of the last readable row
	stamped := false
	for pos, row := range rows {
		moment, ok := g.instant(row["at"])
		if !ok {
			_, why, _ := parseTimestamp(row["at"], sprintf("trajectory row %d", pos))
			in.structural = append(in.structural, finding("TRAJECTORY_TIMESTAMP_NOT_CANONICAL", why))
			continue
		}
		if stamped && moment < previous {
			in.structural = append(in.structural, finding("TRAJECTORY_TIMESTAMPS_NOT_MONOTONIC",
				sprintf("row %d is stamped %s, which is before the row that precedes it; simulated time never moves backwards",
					pos, python.Repr(row["at"]))))
		}
		previous, stamped = moment, true
		if !recordTypeSet[g.types[pos]] {
			in.structural = append(in.structural, finding("TRAJECTORY_UNKNOWN_RECORD_TYPE",
				sprintf("row %d claims record type %s, which this build does not write", pos, python.Repr(row["record_type"]))))
		}
	}

	in.structural = append(in.structural, g.retrievalGrammar()...)

	delivered := map[string]map[string]any{}
	for pos, ev := range g.r.Events {
		var id any
		em, isMap := ev.(map[string]any)
		if isMap {
			id = em["event_id"]
		}
		sid, isStr := id.(string)
		if !isStr {
			in.binding = append(in.binding, finding("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
				sprintf("delivered event %d carries no event identity", pos)))
			continue
		}
		if _, dup := delivered[sid]; dup {
			in.binding = append(in.binding, finding("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
				sprintf("event %s is delivered twice; an event identity is used once so a duplicate cannot mutate twice", python.Quote(sid))))
			continue
		}
		delivered[sid] = em
	}

	recorded := map[string]bool{}
	for pos, row := range rows {
		rt := g.types[pos]
		expected, isEvent := eventRecordDisposition[rt]
		if !isEvent {
			continue
		}
		eventID := row["event_id"]
		sid := python.Str(eventID)
		dev, ok := delivered[sid]
		if !ok {
			in.binding = append(in.binding, findingAt("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
				sprintf("row %d records event %s, which no delivery in this run reports", pos, python.Repr(eventID)), row["at"]))
			continue
		}
		if recorded[sid] {
			in.binding = append(in.binding, findingAt("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
				sprintf("event %s is recorded by more than one ledger row", python.Repr(eventID)), row["at"]))
			continue
		}
		recorded[sid] = true
		var disagreements []string
		for _, name := range []string{"event_type", "actor_id", "at"} {
			if !pyEq(row[name], dev[name]) {
				disagreements = append(disagreements, name)
			}
		}
		if !pyEq(dev["disposition"], expected) {
			disagreements = append(disagreements, "disposition")
		}
		var expectedCode any = verdictAfterReplayFinal
		if rt != "event_after_terminal" {
			expectedCode = row["code"]
		}
		deliveredCode := dev["verdict_code"]
		verdicts := ""
		if !pyEq(deliveredCode, expectedCode) || !isVerdictCode(expectedCode) {
			disagreements = append(disagreements, "verdict_code")
			verdicts = sprintf(" (the row says %s, the delivery says %s)", python.Repr(expectedCode), python.Repr(deliveredCode))
		}
		if len(disagreements) > 0 {
			disagreements = sortedStrings(disagreements)
			in.binding = append(in.binding, findingAt("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
				sprintf("the ledger row for event %s and its delivery disagree about %s%s",
					python.Repr(eventID), python.StrList(disagreements), verdicts), row["at"]))
			continue
		}
		if mutatingDispositions[expected] {
			in.mutatingIndex[sid] = int64(pos)
		}
	}

	if unrecorded := unmatched(delivered, recorded); len(unrecorded) > 0 {
		in.binding = append(in.binding, finding("CRITICAL_EVENT_LEDGER_BINDING_MISMATCH",
			sprintf("delivered event(s) %s have no ledger record; a delivery the trajectory does not carry is not part of this run",
				python.StrList(unrecorded))))
	}
	return in
}

func isVerdictCode(v any) bool {
	s, ok := v.(string)
	return ok && s != ""
}

// retrievalGrammar holds the retrieval rows to the grammar the runtime
// writes them under.
func (g *grader) retrievalGrammar() []Finding {
	rows := g.rows
	findings := g.invalidationBinding()
	findings = append(findings, g.invocationAndTurn()...)

	var invocation int64
	var batchesSeen any = int64(-1)
	var current []map[string]any
	invalidated := false

	closeBatch := func() {
		if len(current) == 0 {
			return
		}
		// The canonical, duplicate-free request order is strictly
		// increasing tool names.
		canonical := true
		previous := python.Str(current[0]["tool"])
		for _, row := range current[1:] {
			tool := python.Str(row["tool"])
			if tool <= previous {
				canonical = false
			}
			previous = tool
		}
		if !canonical {
			findings = append(findings, finding("RETRIEVAL_BATCH_NOT_CANONICAL",
				sprintf("batch %s of invocation %s served %d result(s) that are not the canonical, duplicate-free request order; a batch that was not canonicalised cannot be compared with the tape row that describes it",
					python.Repr(current[0]["batch_index"]), python.Repr(current[0]["invocation_index"]), len(current))))
		}
		contiguous := true
		for i, row := range current {
			if !pyEq(row["request_index"], int64(i)) {
				contiguous = false
			}
		}
		if !contiguous {
			positions := make([]any, len(current))
			for i, row := range current {
				positions[i] = row["request_index"]
			}
			findings = append(findings, finding("RETRIEVAL_BATCH_ORDER_BROKEN",
				sprintf("a batch's results are indexed %s, not contiguously from zero; a result nobody can place in its batch is a result nothing binds to a request",
					python.Repr(positions))))
		}
		if n := distinctInstants(current); n != 1 {
			findings = append(findings, finding("RETRIEVAL_AS_OF_NOT_ONE_INSTANT",
				sprintf("a batch's results state %d different instants; a batch is served atomically, so its results cannot disagree about when they were true",
					n)))
		}
		current = current[:0]
	}

	for pos, row := range rows {
		rt := g.types[pos]
		switch rt {
		case "agent_invoked":
			closeBatch()
			invocation = 0
			if v := row["invocation_index"]; pyIsStrictInt(v) {
				invocation = pyInt(v)
			}
			batchesSeen = int64(-1)
			invalidated = false
			continue
		case "derived_context_invalidated":
			closeBatch()
			if !pyIn(row["cause"], invalidationCauses) {
				findings = append(findings, finding("RETRIEVAL_INVALIDATION_ORDER_BROKEN",
					sprintf("row %d invalidates derived context for a reason this build does not have; the causes are %s",
						pos, python.Repr(invalidationCauses))))
			}
			invalidated = true
			continue
		case "agent_outcome":
			if invalidated {
				invalidated = false
				continue
			}
		}
		if rt != "retrieval_served" {
			continue
		}
		if invocation == 0 {
			findings = append(findings, finding("RETRIEVAL_SERVED_WITHOUT_A_BATCH",
				sprintf("row %d serves a result outside any invocation; a read is answered to an agent that was asked something", pos)))
		}
		if !pyIn(row["initiated_by"], retrievalInitiators) {
			findings = append(findings, finding("RETRIEVAL_INITIATOR_UNKNOWN",
				sprintf("row %d attributes a read to an initiator this build has no path to produce; it produces %s",
					pos, python.Repr(retrievalInitiators))))
		}
		findings = append(findings, g.servedRowProblems(pos, row)...)
		batchIndex := row["batch_index"]
		if len(current) > 0 && pyEq(batchIndex, current[0]["batch_index"]) {
			current = append(current, row)
		} else {
			closeBatch()
			due := pyInt(batchesSeen) + 1
			if !pyIsInt(batchIndex) || !pyEq(batchIndex, due) {
				findings = append(findings, finding("RETRIEVAL_TURN_ORDER_BROKEN",
					sprintf("row %d opens batch %s where %d was due; batches are numbered from zero within an invocation and a gap is a batch nobody recorded",
						pos, python.Repr(batchIndex), due)))
			}
			if pyIsInt(batchIndex) {
				batchesSeen = batchIndex
			}
			current = append(current, row)
		}
		invalidated = false
	}
	closeBatch()
	return findings
}

// distinctInstants is how many different as_of values (Python set
// members) a batch's rows state.
func distinctInstants(batch []map[string]any) int {
	first, same := batch[0]["as_of"].(string)
	for _, row := range batch[1:] {
		if !same {
			break
		}
		s, text := row["as_of"].(string)
		same = text && s == first
	}
	if same {
		return 1
	}
	instants := map[any]bool{}
	for _, row := range batch {
		instants[pyHashKey(row["as_of"])] = true
	}
	return len(instants)
}

// invalidationBinding binds every invalidation to the row that caused it,
// in both directions.
func (g *grader) invalidationBinding() []Finding {
	rows := g.rows
	var findings []Finding
	at := func(p int) (map[string]any, string) {
		if p >= 0 && p < len(rows) {
			return rows[p], g.types[p]
		}
		return nil, ""
	}
	for pos, row := range rows {
		following, followingType := at(pos + 1)
		preceding, precedingType := at(pos - 1)
		switch g.types[pos] {
		case "agent_invoked":
			if !(following != nil && followingType == "derived_context_invalidated" &&
				pyEq(following["cause"], "wake") && pyEq(following["invocation_index"], row["invocation_index"])) {
				findings = append(findings, finding("RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE",
					sprintf("the invocation opened at row %d is not immediately followed by the wake invalidation that drops what the agent read before it; a wake stales every derived fact, and an invocation with no such row describes an agent still holding a view of a document the world has moved", pos)))
			}
		case "effect_accepted":
			if !(following != nil && followingType == "derived_context_invalidated" &&
				pyEq(following["cause"], "effect_accepted") && pyEq(following["action_type"], row["action_type"])) {
				findings = append(findings, finding("RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE",
					sprintf("the effect accepted at row %d for %s is not immediately followed by the invalidation that drops the reads it moved; the record it was looking at changed because of what it just did",
						pos, python.Repr(row["action_type"]))))
			}
		case "derived_context_invalidated":
			cause := row["cause"]
			if pyEq(cause, "wake") && !(preceding != nil && precedingType == "agent_invoked" &&
				pyEq(preceding["invocation_index"], row["invocation_index"])) {
				findings = append(findings, finding("RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE",
					sprintf("row %d invalidates derived context for a wake that did not immediately precede it; a wake invalidation belongs to the invocation it opens, and one standing anywhere else is a wake no agent_invoked row records", pos)))
			} else if pyEq(cause, "effect_accepted") && !(preceding != nil && precedingType == "effect_accepted" &&
				pyEq(preceding["action_type"], row["action_type"])) {
				findings = append(findings, finding("RETRIEVAL_INVALIDATION_NOT_BOUND_TO_ITS_CAUSE",
					sprintf("row %d invalidates derived context for an accepted %s effect that does not immediately precede it; an invalidation cannot come before the effect it describes, and one naming another action describes an effect this position did not commit",
						pos, python.Repr(row["action_type"]))))
			}
		}
	}
	return findings
}

// invocationAndTurn binds every retrieval row to the call and the
// invocation it was part of.
func (g *grader) invocationAndTurn() []Finding {
	var findings []Finding
	var invocation any // nil: no invocation open (Python None)
	var expectedTurn int64
	var currentTurn any // nil: None
	var openBatch any   // nil: None

	callTurn := func(pos int, row map[string]any) {
		if !pyEq(counterValue(row["turn_index"]), expectedTurn) {
			findings = append(findings, finding("RETRIEVAL_TURN_BINDING_BROKEN",
				sprintf("row %d attributes a %s to turn %s of invocation %s, where turn %d was the call being answered; turns are the consecutive calls the engine made, so a turn index moved to another turn this invocation really had still names a call that produced something else",
					pos, python.Repr(row["record_type"]), python.Repr(row["turn_index"]), python.Repr(invocation), expectedTurn)))
		}
		currentTurn = expectedTurn
		expectedTurn++
	}

	for pos, row := range g.rows {
		rt := g.types[pos]
		if rt == "agent_invoked" {
			invocation = row["invocation_index"]
			expectedTurn = 0
			currentTurn = nil
			openBatch = nil
			continue
		}
		if g.typeIn(pos, invocationBoundTypes) && (invocation == nil || !pyEq(row["invocation_index"], invocation)) {
			findings = append(findings, finding("RETRIEVAL_INVOCATION_BINDING_BROKEN",
				sprintf("row %d attributes a %s to invocation %s while invocation %s is the one open at that position; a read is answered to the agent that was asked, and an invocation index that names another real invocation is a read moved to a turn it was never served in",
					pos, python.Repr(rt), python.Repr(row["invocation_index"]), python.Repr(invocation))))
		}
		if rt == "retrieval_served" {
			batchIndex := row["batch_index"]
			if openBatch != nil && pyEq(batchIndex, openBatch) {
				continue
			}
			openBatch = batchIndex
			callTurn(pos, row)
			continue
		}
		openBatch = nil
		if g.typeIn(pos, callRecordTypes) {
			callTurn(pos, row)
		} else if rt == "derived_context_invalidated" {
			cause := row["cause"]
			stated := counterValue(row["turn_index"])
			var due any
			switch {
			case pyEq(cause, "wake"):
				due = int64(0)
			case pyEq(cause, "effect_accepted"):
				due = currentTurn
			default:
				continue
			}
			if !pyEq(stated, due) {
				findings = append(findings, finding("RETRIEVAL_TURN_BINDING_BROKEN",
					sprintf("row %d invalidates derived context at turn %s where turn %s is the call it belongs to; a wake invalidation precedes the first call of its invocation and an effect invalidation is written inside the call whose outcome committed the effect",
						pos, python.Repr(row["turn_index"]), python.Repr(due))))
			}
		}
	}
	return findings
}

// servedRowProblems holds one served row to the catalogue, and its version
// to its own records.
func (g *grader) servedRowProblems(pos int, row map[string]any) []Finding {
	var findings []Finding
	tool := python.Str(row["tool"])
	spec, known := g.c.Tools[tool]
	if !known || !pyIn(row["authority"], retrievalAuthorities) || !pyEq(row["authority"], spec.Authority) ||
		!pyEq(row["schema_id"], spec.SchemaID) || !pyEq(row["source"], spec.Source) {
		findings = append(findings, finding("RETRIEVAL_RESULT_VOCABULARY_UNKNOWN",
			sprintf("row %d states a source, authority or schema identity that is not the one the published catalogue gives this read; a result whose provenance is not the catalogue's is not a retrieval this operation performed", pos)))
	}
	if !known {
		return findings
	}
	if !pyEq(row["record_id"], spec.RecordID) {
		findings = append(findings, finding("RETRIEVAL_RECORD_IDENTITY_UNKNOWN",
			sprintf("row %d says the %s read is about record %s; the identity a read of %s is about is derived from the service the catalogue publishes for the tool, and a record identity borrowed from another published read attributes this answer to a record it did not come from",
				pos, python.Quote(tool), python.Repr(row["record_id"]), python.Quote(spec.Source))))
	}
	records := row["records"]
	tp := g.toolProjection(tool)
	rm, isMap := records.(map[string]any)
	if isMap && tp.holds(rm) {
		return g.versionProblems(findings, pos, row, tool, tp, rm)
	}
	var problems []string
	if !isMap {
		problems = append(problems, "a served row carries the records it returned as an object, got "+python.TypeName(records))
	} else {
		var missing []string
		for _, root := range spec.Roots {
			if !has(rm, root) {
				missing = append(missing, root)
			}
		}
		if extra := unmatched(rm, tp.roots); len(missing) > 0 || len(extra) > 0 {
			problems = append(problems, sprintf("the %s read projects exactly %s; this row omits %s and adds %s",
				python.Quote(tool), python.StrList(tp.sorted), python.StrList(sortedStrings(missing)), python.StrList(extra)))
		}
		for _, root := range tp.sorted {
			if v, ok := rm[root]; ok {
				if p := g.rootShapeProblem(root, v); p != "" {
					problems = append(problems, p)
				}
			}
		}
	}
	if len(problems) > 0 {
		findings = append(findings, finding("RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
			sprintf("row %d carries a records body that is not the projection the catalogue publishes for %s: %s. A body of arbitrary roots would make its own version a digest of itself and nothing else",
				pos, python.Quote(tool), strings.Join(problems, "; "))))
		return findings
	}
	return g.versionProblems(findings, pos, row, tool, tp, rm)
}

// versionProblems holds a served row's version to its records body (one the
// catalogue's projection holds).
func (g *grader) versionProblems(findings []Finding, pos int, row map[string]any, tool string, tp *projection, rm map[string]any) []Finding {
	recomputed, err := g.recordVersion(tp, rm)
	if err != nil {
		findings = append(findings, finding("RETRIEVAL_RECORDS_NOT_THE_PUBLISHED_PROJECTION",
			sprintf("row %d carries a records body canonical JSON cannot carry, so no version can be computed over it — %v", pos, err)))
		return findings
	}
	if !pyEq(row["record_version"], recomputed) {
		findings = append(findings, finding("RETRIEVAL_RECORD_VERSION_MISMATCH",
			sprintf("row %d states version %s for the %s read and the records it carries digest to %s; the version is recomputed from the row's own body through the helper the broker answered through, so a version the row was handed is a value to check rather than a value to believe",
				pos, python.Repr(row["record_version"]), python.Quote(tool), python.Quote(recomputed))))
	}
	return findings
}

// recordVersion recomputes the version of a served records body of tool tp:
// the first RecordVersionLength hex characters of the SHA-256 of its
// upstream canonical JSON. A body object served in several rows (a runtime
// may hand out one read-only tree while the record has not moved) is encoded
// once per evaluation; a body whose encoding is byte for byte the tool's
// previous one (an artefact's rows are separate trees of a record that has
// not moved) is not digested again. Every other encoding is digested.
func (g *grader) recordVersion(tp *projection, rm map[string]any) (string, error) {
	key := reflect.ValueOf(rm).UnsafePointer()
	if v, ok := g.versions[key]; ok {
		return v, nil
	}
	// canon's bytes, or its own error where it refuses the body.
	b, err := canon.Append(g.scratch[:0], rm, canon.UpstreamForm)
	g.scratch = b
	if err != nil {
		return "", err
	}
	if tp.lastVersion == "" || string(b) != string(tp.lastBody) {
		tp.lastBody = append(tp.lastBody[:0], b...)
		tp.lastVersion = canon.SHA256Hex(b)[:g.c.RecordVersionLength]
	}
	if g.versions == nil {
		g.versions = map[unsafe.Pointer]string{}
	}
	g.versions[key] = tp.lastVersion
	return tp.lastVersion, nil
}

// projection is a tool's root set, precomputed once per evaluation.
type projection struct {
	roots  map[string]bool
	sorted []string
	// shapes[i] is the published shape of root sorted[i]; nil when the
	// roots repeat or one has no published shape (holds then answers
	// false, and the row takes the long way).
	shapes []engine.RootShape
	// lastBody is the tool's last encoded records body and lastVersion its
	// version ("" until one is digested).
	lastBody    []byte
	lastVersion string
}

func (g *grader) toolProjection(tool string) *projection {
	if p, ok := g.projections[tool]; ok {
		return p
	}
	if g.projections == nil {
		g.projections = map[string]*projection{}
	}
	roots := g.c.Tools[tool].Roots
	p := &projection{roots: stringSet(roots...), sorted: sortedStrings(roots)}
	if len(p.roots) == len(p.sorted) {
		p.shapes = make([]engine.RootShape, len(p.sorted))
		for i, root := range p.sorted {
			shape, ok := g.c.RootShapes[root]
			if !ok {
				p.shapes = nil
				break
			}
			p.shapes[i] = shape
		}
	}
	g.projections[tool] = p
	return p
}

// holds reports whether rm is exactly the tool's projection: every root,
// no other key, each value of its published shape (what servedRowProblems
// finds no problem with).
func (p *projection) holds(rm map[string]any) bool {
	if p.shapes == nil || len(rm) != len(p.sorted) {
		return false
	}
	for i, root := range p.sorted {
		v, ok := rm[root]
		if !ok || !shapeHolds(p.shapes[i], v) {
			return false
		}
	}
	return true
}

func (g *grader) rootShapeProblem(root string, v any) string {
	shape, ok := g.c.RootShapes[root]
	if !ok {
		return python.Quote(root) + " is not a root any published read projects"
	}
	if shapeHolds(shape, v) {
		return ""
	}
	return sprintf("%s is published as %s, and this row carries a %s", python.Quote(root), string(shape), python.TypeName(v))
}

// shapeHolds reports whether v is of the published shape.
func shapeHolds(shape engine.RootShape, v any) bool {
	switch shape {
	case engine.ShapeText:
		_, good := v.(string)
		return good
	case engine.ShapeOptionalText:
		_, s := v.(string)
		return v == nil || s
	case engine.ShapeObject:
		_, good := v.(map[string]any)
		return good
	case engine.ShapeOptionalObject:
		_, m := v.(map[string]any)
		return v == nil || m
	case engine.ShapeList:
		_, good := v.([]any)
		return good
	case engine.ShapeFlag:
		_, good := v.(bool)
		return good
	}
	return pyIsStrictInt(v) && pyInt(v) >= 0
}
