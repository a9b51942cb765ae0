package engine

import (
	"slices"
)

// fragments are the pre-encoded static parts of every observation
// projection, built once per Static.
type fragments struct {
	actionKeys    []string
	schemaFull    map[string][]byte   // {evidence_refs, optional, required[, reads: optional]}
	requiredReads map[string][]string // sorted
	optionalReads map[string][]string // sorted
	actors        []byte
	fixtures      []byte
	policy        []byte
	wake          []byte
	catalogue     []byte
	contract      []byte
}

func (s *Static) fragments() *fragments {
	s.fragOnce.Do(func() {
		f := &fragments{schemaFull: map[string][]byte{}, requiredReads: map[string][]string{}, optionalReads: map[string][]string{}}
		for k, sch := range s.ActionSchemas {
			f.actionKeys = append(f.actionKeys, k)
			reads, _ := sch["reads"].(map[string]any)
			opt := map[string]any{}
			for t, strength := range reads {
				if strength == "optional" {
					f.optionalReads[k] = append(f.optionalReads[k], t)
					opt[t] = strength
				} else {
					f.requiredReads[k] = append(f.requiredReads[k], t)
				}
			}
			slices.Sort(f.requiredReads[k])
			slices.Sort(f.optionalReads[k])
			f.schemaFull[k] = AppendCanonical(nil, fullSchema(sch, opt))
		}
		slices.Sort(f.actionKeys)
		f.actors = AppendCanonical(nil, s.Actors)
		f.fixtures = AppendCanonical(nil, s.MessageFixtureIDs)
		f.policy = AppendCanonical(nil, s.Policy)
		f.wake = AppendCanonical(nil, s.WakeEventTypes)
		cat := make(map[string]any, len(s.Catalogue))
		for t, e := range s.Catalogue {
			cat[t] = e.Tree()
		}
		f.catalogue = AppendCanonical(nil, cat)
		f.contract = AppendCanonical(nil, s.RecordContract)
		s.frag = f
	})
	return s.frag
}

// appendProjection writes the canonical JSON of o.Projection() without
// building the tree: static parts are pre-encoded, served results carry
// their own encoding.
func (o *Observation) appendProjection(b []byte) []byte {
	return o.appendSuffix(o.appendPrefix(b))
}

// appendPrefix writes the projection up to and including `"event":`: the
// action schemas and the actors, which depend only on the static vocabulary
// and on which tools are served ok (see servedKey).
func (o *Observation) appendPrefix(b []byte) []byte {
	f := o.static.fragments()
	b = append(b, `{"action_schemas":{`...)
	for i, k := range f.actionKeys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, k)
		b = append(b, ':')
		unmet := false
		for _, t := range f.requiredReads[k] {
			if r, ok := o.Served[t]; !ok || !r.OK {
				unmet = true
				break
			}
		}
		if !unmet {
			b = append(b, f.schemaFull[k]...)
			continue
		}
		// {"reads": unmet required ∪ optional}, sorted by tool.
		var stack [16]string
		tools := stack[:0]
		for _, t := range f.requiredReads[k] {
			if r, ok := o.Served[t]; !ok || !r.OK {
				tools = append(tools, t)
			}
		}
		tools = append(tools, f.optionalReads[k]...)
		slices.Sort(tools)
		b = append(b, `{"reads":{`...)
		for j, t := range tools {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
			if slices.Contains(f.optionalReads[k], t) {
				b = append(b, `:"optional"`...)
			} else {
				b = append(b, `:"required"`...)
			}
		}
		b = append(b, "}}"...)
	}
	b = append(b, `},"actors":`...)
	b = append(b, f.actors...)
	return append(b, `,"event":`...)
}

// servedKey identifies what appendPrefix depends on besides the static
// vocabulary: the sorted names of the tools served ok.
func (o *Observation) servedKey(b []byte) []byte {
	var stack [16]string
	tools := stack[:0]
	for t, r := range o.Served {
		if r.OK {
			tools = append(tools, t)
		}
	}
	sortStrings(tools)
	for _, t := range tools {
		b = append(b, t...)
		b = append(b, 0)
	}
	return b
}

// appendSuffix writes the projection after `"event":` to its end.
func (o *Observation) appendSuffix(b []byte) []byte {
	f := o.static.fragments()
	if o.Event == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, o.Event.json()...)
	}
	b = append(b, `,"invocation_index":`...)
	b = appendSafeInt(b, int64(o.InvocationIndex))
	b = append(b, `,"last_rejection":`...)
	if o.LastRejection == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"action_type":`...)
		b = appendString(b, o.LastRejection.ActionType)
		b = append(b, `,"code":`...)
		b = appendString(b, o.LastRejection.Code)
		b = append(b, `,"detail":`...)
		b = appendString(b, o.LastRejection.Detail)
		b = append(b, '}')
	}
	b = append(b, `,"message_fixture_ids":`...)
	b = append(b, f.fixtures...)
	b = append(b, `,"now":`...)
	b = appendString(b, o.Now)
	b = append(b, `,"operation_id":`...)
	b = appendString(b, o.OperationID)
	b = append(b, `,"operation_instance_id":`...)
	b = appendString(b, o.OperationInstanceID)
	b = append(b, `,"phase":`...)
	b = appendString(b, o.Phase)
	b = append(b, `,"policy":`...)
	b = append(b, f.policy...)
	b = append(b, `,"retrieval":{"batch_budget_remaining":`...)
	b = appendSafeInt(b, int64(o.BatchBudgetRemaining))
	b = append(b, `,"catalogue":`...)
	b = append(b, f.catalogue...)
	b = append(b, `,"max_requests_per_batch":`...)
	b = appendSafeInt(b, MaxRequestsPerBatch)
	b = append(b, `,"record_contract":`...)
	b = append(b, f.contract...)
	b = append(b, `,"served":{`...)
	var stack [16]string
	tools := stack[:0]
	for t := range o.Served {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	for i, t := range tools {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t)
		b = append(b, ':')
		b = o.Served[t].appendEntry(b)
	}
	b = append(b, `}},"turn_index":`...)
	b = appendSafeInt(b, int64(o.TurnIndex))
	b = append(b, `,"wake_event_types":`...)
	b = append(b, f.wake...)
	return append(b, '}')
}
