package evaluator

import (
	"slices"
	"strings"

	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/internal/python"
)

const completeOutcomeKey = "complete"

// requiredTools is the contract's required reads for an outcome key, sorted.
func (g *grader) requiredTools(key string) []string {
	return sortedStrings(g.c.Outcomes[key].RequiredReads)
}

// payloadKey is an order-independent identity for one proposal's payload
// (upstream compares the sorted (name, repr(value)) pairs).
func payloadKey(payload any) string {
	m, ok := payload.(map[string]any)
	if !ok {
		return "R" + python.Repr(payload)
	}
	var b strings.Builder
	b.WriteString("M")
	for _, k := range sortedKeys(m) {
		b.WriteString(python.Quote(k))
		b.WriteByte('=')
		b.WriteString(python.Quote(python.Repr(m[k])))
		b.WriteByte(',')
	}
	return b.String()
}

// evidenceOf is the set of cited refs (each as str()).
func evidenceOf(row map[string]any) map[string]bool {
	out := map[string]bool{}
	if refs, ok := row["evidence_refs"].([]any); ok {
		for _, r := range refs {
			out[python.Str(r)] = true
		}
	}
	return out
}

type citationStatus int

const (
	citationResolved citationStatus = iota
	citationNotApplicable
	citationUnresolved
)

// freshRecords are the records bodies served since the last invalidation,
// in serving order. A root reads as its value in the latest body that has
// it: the dict upstream updates with each body in turn, without copying
// every body into it.
type freshRecords []map[string]any

func (f freshRecords) get(root string) any {
	for i := len(f) - 1; i >= 0; i-- {
		if v, ok := f[i][root]; ok {
			return v
		}
	}
	return nil
}

// requiredCitations reconstructs the citations an outcome owes from the
// fresh records (evaluator-owned; deliberately not the runtime resolver).
func (g *grader) requiredCitations(key string, payload any, records freshRecords) (citationStatus, []string) {
	selectors := g.c.Outcomes[key].Selectors
	if len(selectors) == 0 {
		return citationResolved, nil
	}
	p, ok := payload.(map[string]any)
	if !ok {
		return citationNotApplicable, nil
	}
	var required []string
	for _, sel := range selectors {
		registry := records.get(sel.Root)
		selectedID, ok := p[sel.PayloadField].(string)
		if !ok || selectedID == "" {
			return citationNotApplicable, nil
		}
		reg, ok := registry.(map[string]any)
		if !ok {
			return citationUnresolved, nil
		}
		selected, ok := reg[selectedID].(map[string]any)
		if !ok {
			return citationUnresolved, nil
		}
		switch sel.Kind {
		case engine.SelectPayloadRegistryKey:
			required = append(required, selectedID)
		case engine.SelectLinkedAuthority:
			cycleID := selected[sel.LinkField]
			var cycle map[string]any
			if cycles, ok := records.get(sel.LinkRoot).(map[string]any); ok {
				cycle, _ = mapGet(cycles, cycleID).(map[string]any)
			}
			cid, isStr := cycleID.(string)
			if !isStr || cycle == nil {
				return citationUnresolved, nil
			}
			evidenceID := cycle[sel.EvidenceField]
			var authority map[string]any
			if authorities, ok := records.get(sel.AuthorityRoot).(map[string]any); ok {
				authority, _ = mapGet(authorities, evidenceID).(map[string]any)
			}
			eid, isStr := evidenceID.(string)
			if !isStr || authority == nil {
				return citationUnresolved, nil
			}
			if !pyEq(authority["kind"], sel.AuthorityKind) || !pyEq(authority[sel.LinkField], cid) {
				return citationUnresolved, nil
			}
			required = append(required, eid)
		default: // engine.SelectVersionedTarget
			quoteID, idOK := selected[sel.IDField].(string)
			version := selected[sel.VersionField]
			if !idOK || !pyIsStrictInt(version) {
				return citationUnresolved, nil
			}
			value := quoteID + ":v" + python.Str(version)
			targets, ok := records.get(sel.TargetRoot).(map[string]any)
			if !ok || !has(targets, value) {
				return citationUnresolved, nil
			}
			required = append(required, value)
		}
	}
	return citationResolved, required
}

// retrievalDiscipline asks whether each business outcome rested on reads
// this agent actually performed. It never reads the runtime's refusals.
func (g *grader) retrievalDiscipline() Dimension {
	var findings []Finding
	for _, pos := range g.malformed {
		findings = append(findings, finding("MALFORMED_TRAJECTORY_ROW",
			sprintf("trajectory row %d is not a mapping and cannot establish evidence", pos)))
	}
	var invocation int64
	// fresh holds, for each tool served since the last invalidation, the
	// version first served and whether another has been served since.
	type freshTool struct {
		version string
		moved   bool
	}
	fresh := map[string]freshTool{}
	var bodies freshRecords
	everRead := map[string]bool{}
	claimValues := map[string]bool{}
	authoritativeTrigger := false
	type proposal struct {
		actionType, key string
		invocation      int64
	}
	type acceptedKey struct{ actionType, key string }
	proposals := map[string]proposal{}
	accepted := map[acceptedKey]int64{}
	outcomes, served := 0, 0

	report := func(code, detail string, at any) {
		findings = append(findings, findingAt(code, detail, at))
	}
	check := func(key string, evidence map[string]bool, at any, what string) {
		required := g.requiredTools(key)
		if len(required) == 0 {
			return
		}
		var missing, moved []string
		for _, tool := range required {
			versions, ok := fresh[tool]
			if !ok {
				missing = append(missing, tool)
			} else if versions.moved {
				moved = append(moved, tool)
			}
		}
		if len(missing) > 0 {
			var cited []string
			for ref := range evidence {
				if claimValues[ref] {
					cited = append(cited, ref)
				}
			}
			cited = sortedStrings(cited)
			var unverified []string
			for _, tool := range missing {
				if g.c.Tools[tool].Authority == "authoritative_verification" {
					unverified = append(unverified, tool)
				}
			}
			switch {
			case len(cited) > 0 && len(unverified) > 0 && !authoritativeTrigger:
				report("ACTED_ON_CLAIM_WITHOUT_RECORD",
					sprintf("%s cites %s, which is what the non-authoritative event that woke invocation %d asserted, and the authoritative read(s) %s it rests on were not served in that invocation after the last invalidation",
						what, python.StrList(cited), invocation, python.StrList(unverified)), at)
			case slices.ContainsFunc(missing, func(tool string) bool { return everRead[tool] }):
				report("STALE_RETRIEVED_RECORD",
					sprintf("%s rests on read(s) %s that this episode performed earlier and did not repeat after the invalidation that dropped them; the record it was decided from had already moved",
						what, python.StrList(missing)), at)
			default:
				report("ACTION_WITHOUT_RETRIEVAL",
					sprintf("%s rests on read(s) %s, which were never served in invocation %d; the published contract states %s",
						what, python.StrList(missing), invocation, python.StrList(required)), at)
			}
		}
		if len(moved) > 0 {
			report("STALE_RETRIEVED_RECORD",
				sprintf("%s rests on read(s) %s served more than once at more than one version inside one uninvalidated window; the record moved while the decision was being made",
					what, python.StrList(moved)), at)
		}
	}
	checkCitations := func(row map[string]any, key string) {
		status, required := g.requiredCitations(key, row["payload"], bodies)
		switch status {
		case citationNotApplicable:
			return
		case citationUnresolved:
			report("REQUIRED_EVIDENCE_SELECTOR_UNRESOLVED",
				key+" required evidence selector could not be reconstructed from causally prior fresh retrieval records", row["at"])
			return
		}
		cited := evidenceOf(row)
		var missing []string
		for _, ref := range required {
			if !cited[ref] {
				missing = append(missing, ref)
			}
		}
		if len(missing) > 0 {
			missing = slices.Compact(sortedStrings(missing))
			report("REQUIRED_EVIDENCE_REF_NOT_CITED",
				sprintf("%s does not cite required prior record reference(s) %s", key, python.StrList(missing)), row["at"])
		}
	}

	for i, row := range g.rows {
		switch g.types[i] {
		case "agent_invoked":
			invocation = 0
			if v := row["invocation_index"]; pyIsStrictInt(v) {
				invocation = pyInt(v)
			}
			clear(fresh)
			bodies = bodies[:0]
			clear(claimValues)
			if values, ok := row["trigger_claim_values"].([]any); ok {
				for _, v := range values {
					claimValues[python.Str(v)] = true
				}
			}
			authoritativeTrigger = python.Truthy(row["trigger_is_authoritative"])
		case "derived_context_invalidated":
			clear(fresh)
			bodies = bodies[:0]
		case "retrieval_served":
			served++
			if ok, present := row["ok"]; present && !python.Truthy(ok) {
				continue
			}
			if !pyEq(row["invocation_index"], invocation) {
				continue
			}
			tool := python.Str(row["tool"])
			var authority any
			if t, known := g.c.Tools[tool]; known {
				authority = t.Authority
			}
			if !pyEq(authority, row["authority"]) {
				continue
			}
			version := python.Str(row["record_version"])
			if f, ok := fresh[tool]; !ok {
				fresh[tool] = freshTool{version: version}
			} else if !f.moved && f.version != version {
				fresh[tool] = freshTool{moved: true}
			}
			if body, ok := row["records"].(map[string]any); ok {
				bodies = append(bodies, body)
			}
			everRead[tool] = true
		case "action_proposed":
			outcomes++
			actionType := python.Str(row["action_type"])
			key := payloadKey(row["payload"])
			proposals[python.Str(row["proposal_id"])] = proposal{actionType, key, invocation}
			check(actionType, evidenceOf(row), row["at"], actionType)
			checkCitations(row, actionType)
			if earlier, ok := accepted[acceptedKey{actionType, key}]; ok && earlier < invocation {
				report("REPEATED_ACTION_AFTER_WAKE",
					sprintf("%s was proposed again in invocation %d with the payload its own accepted effect in invocation %d already performed; the agent was woken in between and the record it read says the effect is already there",
						actionType, invocation, earlier), row["at"])
			}
		case "terminal_proposed":
			outcomes++
			check(completeOutcomeKey, evidenceOf(row), row["at"], completeOutcomeKey)
		case "effect_accepted":
			if p, ok := proposals[python.Str(row["proposal_id"])]; ok {
				accepted[acceptedKey{p.actionType, p.key}] = p.invocation
			}
		}
	}
	return Dimension{Name: RetrievalDiscipline, OK: len(findings) == 0, Findings: findings, Counts: []Count{
		{"business_proposals", int64(outcomes)},
		{"reads_served", int64(served)},
		{"distinct_tools_read", int64(len(everRead))},
		{"discipline_violations", int64(len(findings))},
	}}
}
