package notimeverify

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/format/decision"
)

// The verifier's own constants, read from the protocol and the Full
// scheduler (not from the compiler).
const (
	completeKey = "complete"
	// fullTimerSequence is the smallest sequence a Full engine timer takes
	// at an instant (engine.TimerSequenceBase + 1): every authored sequence
	// is below it.
	fullTimerSequence = engine.TimerSequenceBase + 1
)

func h(domain string, fields map[string]any) string {
	t := map[string]any{"domain": domain}
	maps.Copy(t, fields)
	d, err := canon.Digest(t)
	if err != nil {
		return "unencodable:" + err.Error()
	}
	return d
}

func nilOr(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

func originDigest(p *engine.Plan) string {
	evs := []any{}
	for _, e := range p.Events {
		var trig any
		if e.Trigger != nil {
			trig = map[string]any{"cycle_id": nilOr(e.Trigger.CycleID), "kind": e.Trigger.Kind, "type": e.Trigger.Type}
		}
		evs = append(evs, map[string]any{"actor_id": e.ActorID, "at": e.At, "delay_minutes": e.DelayMinutes, "event_id": e.EventID,
			"event_type": e.EventType, "payload": e.Payload, "sequence": e.Sequence, "trigger": trig, "triggers_agent": e.TriggersAgent})
	}
	return h("obaudit.full_plan.v1", map[string]any{"events": evs, "horizon_minutes": p.HorizonMinutes,
		"max_invocations": int64(p.MaxInvocations), "max_retrieval_batches_per_invocation": int64(p.MaxRetrievalBatchesPerInvocation),
		"max_turns_per_invocation": int64(p.MaxTurnsPerInvocation), "starts_at": p.StartsAt})
}

func cause(kind, typ string, cyc *string) string {
	return h(notimewire.DomainCauseKey, map[string]any{"cycle_id": nilOr(cyc), "kind": kind, "type": typ})
}

// eventKeys recomputes semantic_event_key for every authored event: the
// occurrence index counts equal semantics in authored order.
func eventKeys(d engine.Domain) map[string]string {
	evs := slices.Clone(d.Plan().Events)
	slices.SortStableFunc(evs, func(x, y engine.PlannedEvent) int {
		return cmp.Or(cmp.Compare(x.Sequence, y.Sequence), strings.Compare(x.EventID, y.EventID))
	})
	occ := map[string]int64{}
	keys := map[string]string{}
	for _, e := range evs {
		sem := map[string]any{}
		for k, v := range e.Payload {
			if !strings.HasSuffix(k, "_at") && !strings.HasSuffix(k, "_minutes") {
				sem[k] = v
			}
		}
		var ck any
		if e.Trigger != nil {
			ck = cause(e.Trigger.Kind, e.Trigger.Type, e.Trigger.CycleID)
		}
		fields := map[string]any{"actor_authority_class": d.EventAuthority(e.ActorID, e.EventType), "cause_key": ck,
			"event_type": e.EventType, "semantic_payload": sem}
		b, _ := canon.JCS(fields)
		fields["authored_occurrence_index_within_equal_semantics"] = occ[string(b)]
		occ[string(b)]++
		keys[e.EventID] = h(notimewire.DomainEventKey, fields)
	}
	return keys
}

type spec struct {
	key, point, closureDigest string
	cycle                     *string
}

// partitions recomputes, for every cut specification, each authored
// descendant's side of the Full finalization transition under the Full
// comparator (instant offset, sequence, event id), and the closure digest.
func partitions(d engine.Domain) (map[string]map[string]string, []spec, error) {
	p := d.Plan()
	fin, ok := d.Static().Policy["provisional_close_minutes"].(int64)
	if !ok {
		return nil, nil, fmt.Errorf("the Full policy has no provisional_close_minutes")
	}
	keys := eventKeys(d)
	cycles := map[string]*string{"\x00any": nil}
	for _, e := range p.Events {
		if e.Trigger != nil && e.Trigger.Kind == engine.TriggerOnAction && e.Trigger.Type == completeKey && e.Trigger.CycleID != nil {
			cycles[*e.Trigger.CycleID] = e.Trigger.CycleID
		}
	}
	rel := map[string]map[string]string{}
	for _, e := range p.Events {
		rel[e.EventID] = map[string]string{}
	}
	var specs []spec
	for _, name := range slices.Sorted(maps.Keys(cycles)) {
		cyc := cycles[name]
		ck := cause(engine.TriggerOnAction, completeKey, cyc)
		// offset(e): Full minutes after the accepted COMPLETE at which e is
		// due, or -1 when e does not descend from it (memoised recursion over
		// the authored cause graph).
		memo := map[string]int64{}
		var offset func(e engine.PlannedEvent, depth int) int64
		offset = func(e engine.PlannedEvent, depth int) int64 {
			if v, ok := memo[e.EventID]; ok {
				return v
			}
			if depth > len(p.Events) || e.Trigger == nil {
				return -1
			}
			res := int64(-1)
			if e.Trigger.Kind == engine.TriggerOnAction && e.Trigger.Type == completeKey && (e.Trigger.CycleID == nil || (cyc != nil && *e.Trigger.CycleID == *cyc)) {
				res = e.DelayMinutes
			} else if e.Trigger.Kind == engine.TriggerOnEvent {
				for _, q := range p.Events {
					if q.EventType != e.Trigger.Type {
						continue
					}
					if c, ok := q.Payload["cycle_id"].(string); ok && e.Trigger.CycleID != nil && c != *e.Trigger.CycleID {
						continue
					}
					if o := offset(q, depth+1); o >= 0 {
						res = o + e.DelayMinutes
						break
					}
				}
			}
			memo[e.EventID] = res
			return res
		}
		var entries []any
		desc := []string{}
		type ent struct {
			key string
			v   any
		}
		var es []ent
		for _, e := range p.Events {
			o := offset(e, 0)
			if o < 0 {
				continue
			}
			pre := o < fin || (o == fin && e.Sequence < fullTimerSequence)
			side := notimewire.PostFinality
			if pre {
				side = notimewire.PreFinality
			}
			rel[e.EventID][ck] = side
			desc = append(desc, keys[e.EventID])
			if !pre {
				continue
			}
			disp := "accepted"
			var preds []string // a nil list is canon's [] too
			if e.Trigger.Kind == engine.TriggerOnEvent {
				disp = "accepted_or_audit"
				for _, q := range p.Events {
					if q.EventType == e.Trigger.Type && offset(q, 0) >= 0 {
						if c, ok := q.Payload["cycle_id"].(string); ok && e.Trigger.CycleID != nil && c != *e.Trigger.CycleID {
							continue
						}
						preds = append(preds, keys[q.EventID])
					}
				}
				slices.Sort(preds)
				preds = slices.Compact(preds)
			}
			es = append(es, ent{keys[e.EventID], map[string]any{"conditional_semantic_key": keys[e.EventID], "cause_occurrences": []any{
				map[string]any{"semantic_cause_key": cause(e.Trigger.Kind, e.Trigger.Type, e.Trigger.CycleID), "cause_kind": e.Trigger.Kind,
					"required_disposition": disp, "predecessor_semantic_keys": preds}}}})
		}
		sort.Slice(es, func(a, b int) bool { return es[a].key < es[b].key })
		for _, x := range es {
			entries = append(entries, x.v) // a nil list is canon's [] too
		}
		slices.Sort(desc)
		cd := h(notimewire.DomainClosure, map[string]any{"conditional_entries": entries, "authored_descendant_event_keys": slices.Compact(desc)})
		pid := "complete:*"
		if cyc != nil {
			pid = "complete:" + *cyc
		}
		point := h(notimewire.DomainPointKey, map[string]any{"causal_predecessor_point_ids": []any{}, "point_id": pid,
			"semantic_scenario_digest": h("obaudit.semantic_scenario.v1", map[string]any{"operation_id": p.Meta.OperationID, "semantic_scenario_id": p.Meta.SemanticScenarioID})})
		specs = append(specs, spec{key: ck, point: point, closureDigest: cd, cycle: cyc})
	}
	sort.Slice(specs, func(a, b int) bool { return specs[a].key < specs[b].key })
	return rel, specs, nil
}

// closureOf recomputes the digest of a recorded closure from its members.
func closureOf(c notimewire.ClosureV1) string {
	entries := []any{}
	for _, e := range c.ConditionalEntries {
		occ := []any{}
		for _, o := range e.CauseOccurrences {
			occ = append(occ, map[string]any{"semantic_cause_key": o.SemanticCauseKey, "cause_kind": o.CauseKind,
				"required_disposition": o.RequiredDisposition, "predecessor_semantic_keys": o.PredecessorSemanticKeys})
		}
		entries = append(entries, map[string]any{"conditional_semantic_key": e.ConditionalSemanticKey, "cause_occurrences": occ})
	}
	return h(notimewire.DomainClosure, map[string]any{"conditional_entries": entries, "authored_descendant_event_keys": c.AuthoredDescendantEventKeys})
}

// activations recomputes the activation id of every accepted provisional
// COMPLETE in a projection: a terminal_proposal entry followed, before the
// next proposal or event, by a provisional_close entry.
func activations(p *notimewire.ProjectionV1, specs []spec) ([]string, error) {
	out := []string{}
	digests := make([]string, len(p.Entries))
	for i, e := range p.Entries {
		digests[i] = h(notimewire.DomainEntry, map[string]any{"kind": e.Kind, "fields": e.Fields})
	}
	ordinal := map[string]int64{}
	for i, e := range p.Entries {
		if e.Kind != "terminal_proposal" {
			continue
		}
		j := i + 1
		for ; j < len(p.Entries); j++ {
			k := p.Entries[j].Kind
			if k == "provisional_close" || k == "event" || k == "proposal" || k == "terminal_proposal" || k == "terminal_rejected" {
				break
			}
		}
		if j >= len(p.Entries) || p.Entries[j].Kind != "provisional_close" {
			continue
		}
		cyc, _ := p.Entries[j].Fields["cycle_id"].(string)
		var sp *spec
		for k := range specs {
			if specs[k].cycle != nil && *specs[k].cycle == cyc {
				sp = &specs[k]
			}
		}
		if sp == nil {
			for k := range specs {
				if specs[k].cycle == nil {
					sp = &specs[k]
				}
			}
		}
		if sp == nil {
			return nil, fmt.Errorf("no cut specification for the COMPLETE on %s", cyc)
		}
		prev := digests[i] // the terminal proposal is the preceding common transition
		preState := h(notimewire.DomainEntry, map[string]any{"entries": digests[:i+1]})
		refs := e.Fields["evidence_refs"]
		if refs == nil {
			refs = []any{}
		}
		proposal := h(notimewire.DomainProposalKey, map[string]any{"common_point_key": sp.point, "evidence_refs": refs,
			"normalized_action_or_terminal_payload": map[string]any{}, "outcome_kind": decision.KindComplete})
		effect := h(notimewire.DomainEffectKey, map[string]any{"normalized_bindings": map[string]any{"cycle_id": cyc},
			"pre_effect_common_state_digest": preState, "proposal_key": proposal})
		ordinal[sp.point]++
		occ := h(notimewire.DomainCompleteOccurrence, map[string]any{"accepted_complete_ordinal_at_common_point": ordinal[sp.point],
			"accepted_effect_key": effect, "common_point_key": sp.point, "predecessor_common_transition_key": prev, "proposal_key": proposal})
		out = append(out, h(notimewire.DomainActivation, map[string]any{"accepted_effect_key": effect, "complete_occurrence_key": occ,
			"provisional_close_common_cause_key": sp.key}))
	}
	return out, nil
}
