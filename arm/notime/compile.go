// Package notime is obaudit's compiler and runtime for the
// stateful_time_removed arm (protocol operatebench.arm.stateful_time_removed.v1):
// Compile turns a valid Full episode plan into a NoTimePlanV1 and Run
// executes it under the protocol's total transition relation with the
// unchanged domain reducers and unchanged agents.
//
// Nothing here is imported by the independent verifier (arm/notimeverify),
// and nothing here imports it (repo_test.go TestDependencyRules).
package notime

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/refusal"
)

// Refusals of a plan the protocol calls ineligible, and of bad runs.
var (
	// ErrCutUnclassifiable is returned when a finality partition would depend
	// on runtime or model choice (FINALITY_CUT_UNCLASSIFIABLE).
	ErrCutUnclassifiable = refusal.Sentinel("notime/finality-cut-unclassifiable")
	// ErrCutAmbiguous is returned when an authored event's Full comparator
	// key equals the finalization transition's (FINALITY_CUT_AMBIGUOUS).
	ErrCutAmbiguous = refusal.Sentinel("notime/finality-cut-ambiguous")
	// ErrCausalOrder is returned when removing time would change the Full
	// arm's authored causal order (a fan-out whose Full order differs from
	// its No-Time key order, a cycle, or a cause that is a removed timer).
	ErrCausalOrder = refusal.Sentinel("notime/causal-order-mismatch")
	// ErrPlan is returned for a malformed Full plan (duplicate event id,
	// unknown cause kind, bad bound).
	ErrPlan = refusal.Sentinel("notime/invalid-plan")
)

// Profile is what the compiler needs to know of an operation's lifecycle
// mechanics: which outcome key is the provisional door, which scheduled
// event type finalizes it and after how many Full minutes, and which event
// types are timer-only (removed in this arm).
type Profile struct {
	CompleteKey           string
	FinalizationEventType string
	FinalizationMinutes   int64
	TimerEventTypes       []string
	// DurationFields maps "<action type>.<payload field>" to the Full
	// policy value the unchanged domain guard holds that duration to. A
	// positive proposed value is canonicalised to 1 in the record and handed
	// to the domain as this value: its duration semantics are removed.
	DurationFields map[string]int64
}

// MaintenanceProfile is the lettings maintenance operation's profile, read
// from its published policy view.
func MaintenanceProfile(st *engine.Static) (Profile, error) {
	m, ok := st.Policy["provisional_close_minutes"].(int64)
	if !ok || m <= 0 {
		return Profile{}, refusal.New(ErrPlan, "the policy view carries no positive provisional_close_minutes")
	}
	dl, ok := st.Policy["approval_deadline_after_minutes"].(int64)
	if !ok || dl <= 0 {
		return Profile{}, refusal.New(ErrPlan, "the policy view carries no positive approval_deadline_after_minutes")
	}
	return Profile{
		CompleteKey: engine.CompleteOutcomeKey, FinalizationEventType: "provisional_close_expired",
		FinalizationMinutes: m,
		TimerEventTypes:     []string{"approval_deadline_due", "approval_reminder_due", "provisional_close_expired", "visit_followup_due"},
		DurationFields:      map[string]int64{"request_approval.deadline_after_minutes": dl},
	}, nil
}

func digestOf(domain string, v map[string]any) string {
	t := map[string]any{"domain": domain}
	maps.Copy(t, v)
	d, err := canon.Digest(t)
	if err != nil {
		panic("notime: digest of a tree this package built: " + err.Error())
	}
	return d
}

func optS(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// CauseKey is the semantic identity of a conditional's cause.
func causeKey(kind, typ string, cycle *string) string {
	return digestOf(notimewire.DomainCauseKey, map[string]any{"kind": kind, "type": typ, "cycle_id": optS(cycle)})
}

// semanticPayload drops the allowlisted time fields (keys ending _at or
// _minutes) from a payload.
func semanticPayload(p map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		if strings.HasSuffix(k, "_at") || strings.HasSuffix(k, "_minutes") {
			continue
		}
		out[k] = v
	}
	return out
}

// OriginPlanDigest is the JCS digest of the Full plan's executable content
// (start, events with instants, delays and triggers, bounds).
func OriginPlanDigest(p *engine.Plan) string {
	evs := make([]any, 0, len(p.Events))
	for _, e := range p.Events {
		var trig any
		if e.Trigger != nil {
			trig = map[string]any{"kind": e.Trigger.Kind, "type": e.Trigger.Type, "cycle_id": optS(e.Trigger.CycleID)}
		}
		evs = append(evs, map[string]any{
			"event_id": e.EventID, "event_type": e.EventType, "actor_id": e.ActorID, "sequence": e.Sequence,
			"payload": e.Payload, "triggers_agent": e.TriggersAgent, "at": e.At, "trigger": trig, "delay_minutes": e.DelayMinutes,
		})
	}
	return digestOf("obaudit.full_plan.v1", map[string]any{
		"starts_at": p.StartsAt, "events": evs, "horizon_minutes": p.HorizonMinutes,
		"max_turns_per_invocation": int64(p.MaxTurnsPerInvocation), "max_invocations": int64(p.MaxInvocations),
		"max_retrieval_batches_per_invocation": int64(p.MaxRetrievalBatchesPerInvocation),
	})
}

// Compile transforms d's Full plan into a NoTimePlanV1 or refuses it as
// ineligible.
func Compile(d engine.Domain, prof Profile) (*notimewire.PlanV1, error) {
	p := d.Plan()
	if p.MaxInvocations <= 0 || p.MaxTurnsPerInvocation <= 0 || p.MaxRetrievalBatchesPerInvocation < 0 {
		return nil, refusal.New(ErrPlan, "non-positive bound (invocations %d, turns %d, batches %d)", p.MaxInvocations, p.MaxTurnsPerInvocation, p.MaxRetrievalBatchesPerInvocation)
	}
	byID := map[string]*engine.PlannedEvent{}
	for i := range p.Events {
		e := &p.Events[i]
		if _, dup := byID[e.EventID]; dup {
			return nil, refusal.New(ErrPlan, "event id %q is authored twice", e.EventID)
		}
		byID[e.EventID] = e
		if e.Trigger != nil && e.Trigger.Kind != engine.TriggerOnAction && e.Trigger.Kind != engine.TriggerOnEvent {
			return nil, refusal.New(ErrPlan, "event %q has cause kind %q", e.EventID, e.Trigger.Kind)
		}
		if e.Trigger != nil && e.Trigger.Kind == engine.TriggerOnEvent && slices.Contains(prof.TimerEventTypes, e.Trigger.Type) {
			return nil, refusal.New(ErrCausalOrder, "event %q is caused by the removed timer event type %q; removing time removes its cause", e.EventID, e.Trigger.Type)
		}
		if e.Trigger == nil && e.At != p.StartsAt {
			return nil, refusal.New(ErrCutUnclassifiable, "absolute event %q at %s is not at the plan start: its side of a runtime provisional close depends on when the subject completes", e.EventID, e.At)
		}
	}
	// parents: the authored events whose delivery can cause e (event causes).
	parents := func(e *engine.PlannedEvent) []*engine.PlannedEvent {
		var out []*engine.PlannedEvent
		if e.Trigger == nil || e.Trigger.Kind != engine.TriggerOnEvent {
			return nil
		}
		for i := range p.Events {
			q := &p.Events[i]
			if q.EventType == e.Trigger.Type && (e.Trigger.CycleID == nil || payloadCycle(q) == nil || *payloadCycle(q) == *e.Trigger.CycleID) {
				out = append(out, q)
			}
		}
		return out
	}
	// Cycle check over event causes.
	state := map[string]int{}
	var visit func(e *engine.PlannedEvent) error
	visit = func(e *engine.PlannedEvent) error {
		switch state[e.EventID] {
		case 1:
			return refusal.New(ErrCausalOrder, "the cause graph has a cycle through %q", e.EventID)
		case 2:
			return nil
		}
		state[e.EventID] = 1
		for _, q := range parents(e) {
			if err := visit(q); err != nil {
				return err
			}
		}
		state[e.EventID] = 2
		return nil
	}
	for i := range p.Events {
		if err := visit(&p.Events[i]); err != nil {
			return nil, err
		}
	}
	// Fan-out order proof: conditionals sharing one cause must sort the same
	// under the Full comparator (delay, sequence, id) and the No-Time key
	// (sequence, id).
	groups := map[string][]*engine.PlannedEvent{}
	for i := range p.Events {
		e := &p.Events[i]
		if e.Trigger != nil {
			k := causeKey(e.Trigger.Kind, e.Trigger.Type, e.Trigger.CycleID)
			groups[k] = append(groups[k], e)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		g := groups[k]
		full := slices.Clone(g)
		slices.SortFunc(full, func(a, b *engine.PlannedEvent) int {
			return cmp.Or(cmp.Compare(a.DelayMinutes, b.DelayMinutes), noTimeCmp(a, b))
		})
		nt := slices.Clone(g)
		slices.SortFunc(nt, noTimeCmp)
		for i := range full {
			if full[i] != nt[i] {
				return nil, refusal.New(ErrCausalOrder, "the fan-out of one cause orders %q before %q in Full but not by authored sequence", full[i].EventID, nt[i].EventID)
			}
		}
	}

	// Semantic event keys.
	keys := semanticKeys(d, p)

	// Cut specifications: one per cycle named by a complete-caused
	// conditional, plus the any-cycle specification.
	cycles := []*string{nil}
	seen := map[string]bool{}
	for _, e := range p.Events {
		if e.Trigger != nil && e.Trigger.Kind == engine.TriggerOnAction && e.Trigger.Type == prof.CompleteKey && e.Trigger.CycleID != nil && !seen[*e.Trigger.CycleID] {
			seen[*e.Trigger.CycleID] = true
			cycles = append(cycles, e.Trigger.CycleID)
		}
	}
	relations := map[string]map[string]string{}
	var specs []notimewire.CutSpecV1
	finID := "timer_provisional_close:"
	for _, cyc := range cycles {
		ck := causeKey(engine.TriggerOnAction, prof.CompleteKey, cyc)
		// Descendants of this activation with their Full offset from it.
		offset := map[string]int64{}
		var order []*engine.PlannedEvent
		changed := true
		for changed {
			changed = false
			for i := range p.Events {
				e := &p.Events[i]
				if _, done := offset[e.EventID]; done || e.Trigger == nil {
					continue
				}
				if e.Trigger.Kind == engine.TriggerOnAction && e.Trigger.Type == prof.CompleteKey && (e.Trigger.CycleID == nil || (cyc != nil && *e.Trigger.CycleID == *cyc)) {
					offset[e.EventID] = e.DelayMinutes
					order = append(order, e)
					changed = true
					continue
				}
				if e.Trigger.Kind == engine.TriggerOnEvent {
					for _, q := range parents(e) {
						if o, ok := offset[q.EventID]; ok {
							offset[e.EventID] = o + e.DelayMinutes
							order = append(order, e)
							changed = true
							break
						}
					}
				}
			}
		}
		slices.SortFunc(order, noTimeCmp)
		rel := map[string]string{}
		finSeq := int64(engine.TimerSequenceBase)
		fid := finID + cycleText(cyc)
		var entries []notimewire.ReachableConditionalV1
		var desc []string
		for _, e := range order {
			o := offset[e.EventID]
			var side string
			// The Full comparator (instant, sequence, event id) against the
			// finalization timer's (activation + FinalizationMinutes,
			// TimerSequenceBase + n, its id), where n ≥ 1 counts the timers
			// armed so far: an authored sequence at or below the base sorts
			// first; one above it is unclassifiable (n is a runtime count).
			switch {
			case o < prof.FinalizationMinutes:
				side = notimewire.PreFinality
			case o > prof.FinalizationMinutes:
				side = notimewire.PostFinality
			case e.EventID == fid:
				return nil, refusal.New(ErrCutAmbiguous, "event %q has the finalization transition's identity at its instant", e.EventID)
			case e.Sequence > finSeq:
				return nil, refusal.New(ErrCutUnclassifiable, "event %q shares the finalization instant with a sequence above %d, where the Full timer's position is a runtime count", e.EventID, finSeq)
			default:
				side = notimewire.PreFinality
			}
			rel[e.EventID] = side
			desc = append(desc, keys[e.EventID])
			if side == notimewire.PreFinality {
				occ := notimewire.ReachableCauseOccV1{
					SemanticCauseKey: causeKey(e.Trigger.Kind, e.Trigger.Type, e.Trigger.CycleID), CauseKind: e.Trigger.Kind,
					RequiredDisposition: "accepted", PredecessorSemanticKeys: []string{},
				}
				if e.Trigger.Kind == engine.TriggerOnEvent {
					occ.RequiredDisposition = "accepted_or_audit"
					for _, q := range parents(e) {
						if _, ok := offset[q.EventID]; ok {
							occ.PredecessorSemanticKeys = append(occ.PredecessorSemanticKeys, keys[q.EventID])
						}
					}
					slices.Sort(occ.PredecessorSemanticKeys)
					occ.PredecessorSemanticKeys = slices.Compact(occ.PredecessorSemanticKeys)
				}
				entries = append(entries, notimewire.ReachableConditionalV1{ConditionalSemanticKey: keys[e.EventID], CauseOccurrences: []notimewire.ReachableCauseOccV1{occ}})
			}
		}
		slices.SortFunc(entries, func(a, b notimewire.ReachableConditionalV1) int {
			return strings.Compare(a.ConditionalSemanticKey, b.ConditionalSemanticKey)
		})
		slices.Sort(desc)
		desc = slices.Compact(desc)
		if entries == nil {
			entries = []notimewire.ReachableConditionalV1{}
		}
		if desc == nil {
			desc = []string{}
		}
		cl := notimewire.ClosureV1{ConditionalEntries: entries, AuthoredDescendantEventKeys: desc}
		cl.ClosureDigest = closureDigest(cl)
		relations[ck] = rel
		specs = append(specs, notimewire.CutSpecV1{
			ProvisionalCloseCommonCauseKey: ck,
			CompleteCommonPointKey:         pointKey(p, "complete:"+cycleText(cyc)),
			CompleteCycleID:                cyc,
			Closure:                        cl,
		})
	}
	slices.SortFunc(specs, func(a, b notimewire.CutSpecV1) int {
		return strings.Compare(a.ProvisionalCloseCommonCauseKey, b.ProvisionalCloseCommonCauseKey)
	})

	out := &notimewire.PlanV1{
		Protocol: notimewire.Protocol, OriginPlanDigest: OriginPlanDigest(p), FinalityCutSpecs: specs,
		MaxInvocations: int64(p.MaxInvocations), MaxTurnsPerInvocation: int64(p.MaxTurnsPerInvocation),
		MaxRetrievalBatchesPerInvocation: int64(p.MaxRetrievalBatchesPerInvocation),
	}
	conds := int64(0)
	for _, e := range p.Events {
		ev := notimewire.EventV1{
			EventID: e.EventID, EventType: e.EventType, ActorID: e.ActorID, AuthoredSequence: e.Sequence,
			Payload: e.Payload, TriggersAgent: e.TriggersAgent, SourceClass: "absolute", FinalityRelations: map[string]string{},
		}
		if e.Payload == nil {
			ev.Payload = map[string]any{}
		}
		if e.Trigger != nil {
			conds++
			ev.SourceClass = "conditional"
			ev.Cause = &notimewire.CauseV1{Kind: e.Trigger.Kind, Type: e.Trigger.Type, CycleID: e.Trigger.CycleID}
		}
		for ck, rel := range relations {
			if side, ok := rel[e.EventID]; ok {
				ev.FinalityRelations[ck] = side
			}
		}
		out.Events = append(out.Events, ev)
	}
	slices.SortFunc(out.Events, func(a, b notimewire.EventV1) int {
		return cmp.Or(cmp.Compare(a.AuthoredSequence, b.AuthoredSequence), strings.Compare(a.EventID, b.EventID))
	})
	out.MaxTransitions = MaxTransitions(int64(len(p.Events)), conds, 0, out.MaxInvocations, out.MaxTurnsPerInvocation, out.MaxRetrievalBatchesPerInvocation)
	return out, nil
}

// MaxTransitions is the protocol's safety bound (§2): authored counts every
// authored event (absolute and conditional), conditionals the conditional
// ones again, audit the declared domain-generated audit budget.
func MaxTransitions(authored, conditionals, audit, invocations, turns, batches int64) int64 {
	return 1 + authored + conditionals + audit + invocations*(turns+batches+1)
}

func closureDigest(c notimewire.ClosureV1) string {
	entries := make([]any, 0, len(c.ConditionalEntries))
	for _, e := range c.ConditionalEntries {
		occ := make([]any, 0, len(e.CauseOccurrences))
		for _, o := range e.CauseOccurrences {
			occ = append(occ, map[string]any{"semantic_cause_key": o.SemanticCauseKey, "cause_kind": o.CauseKind,
				"required_disposition": o.RequiredDisposition, "predecessor_semantic_keys": o.PredecessorSemanticKeys})
		}
		entries = append(entries, map[string]any{"conditional_semantic_key": e.ConditionalSemanticKey, "cause_occurrences": occ})
	}
	return digestOf(notimewire.DomainClosure, map[string]any{"conditional_entries": entries, "authored_descendant_event_keys": c.AuthoredDescendantEventKeys})
}

func pointKey(p *engine.Plan, pointID string) string {
	return digestOf(notimewire.DomainPointKey, map[string]any{
		"semantic_scenario_digest": digestOf("obaudit.semantic_scenario.v1", map[string]any{"operation_id": p.Meta.OperationID, "semantic_scenario_id": p.Meta.SemanticScenarioID}),
		"point_id":                 pointID, "causal_predecessor_point_ids": []any{},
	})
}

func semanticKeys(d engine.Domain, p *engine.Plan) map[string]string {
	evs := make([]*engine.PlannedEvent, 0, len(p.Events))
	for i := range p.Events {
		evs = append(evs, &p.Events[i])
	}
	slices.SortFunc(evs, noTimeCmp)
	counts := map[string]int64{}
	out := map[string]string{}
	for _, e := range evs {
		var ck any
		if e.Trigger != nil {
			ck = causeKey(e.Trigger.Kind, e.Trigger.Type, e.Trigger.CycleID)
		}
		base := map[string]any{"event_type": e.EventType, "actor_authority_class": d.EventAuthority(e.ActorID, e.EventType),
			"semantic_payload": semanticPayload(e.Payload), "cause_key": ck}
		b, _ := canon.JCS(base)
		idx := counts[string(b)]
		counts[string(b)]++
		base["authored_occurrence_index_within_equal_semantics"] = idx
		out[e.EventID] = digestOf(notimewire.DomainEventKey, base)
	}
	return out
}

func payloadCycle(e *engine.PlannedEvent) *string {
	if c, ok := e.Payload["cycle_id"].(string); ok {
		return &c
	}
	return nil
}

func cycleText(c *string) string {
	if c == nil {
		return "*"
	}
	return *c
}

func noTimeCmp(a, b *engine.PlannedEvent) int {
	return cmp.Or(cmp.Compare(a.Sequence, b.Sequence), strings.Compare(a.EventID, b.EventID))
}
