package engine

// appendDecision writes the upstream canonical JSON of d.Record() without
// building the record, for the decision kinds the engine defines; anything
// else (a nil pointer, a Retrieve carrying arguments, a Decision type from
// outside the engine) is encoded from its Record(). TestDecisionEncoding
// holds every branch to canon.Upstream(d.Record()).
func appendDecision(b []byte, d Decision) []byte {
	switch o := d.(type) {
	case *Act:
		if o == nil {
			break
		}
		b = append(b, `{"action_type":`...)
		b = appendString(b, o.ActionType)
		b = append(b, `,"evidence_refs":`...)
		b = appendStrings(b, o.EvidenceRefs)
		b = append(b, `,"kind":"ACT","payload":`...)
		b = appendObject(b, o.Payload, "", nil)
		b = append(b, `,"rationale":`...)
		b = appendString(b, o.Rationale)
		return append(b, '}')
	case *Wait:
		if o == nil {
			break
		}
		return appendWait(b, o)
	case *Ask:
		if o == nil {
			break
		}
		b = append(b, `{"correlation_id":`...)
		b = AppendOptString(b, o.CorrelationID)
		b = append(b, `,"kind":"ASK","message_fixture_id":`...)
		b = appendString(b, o.MessageFixtureID)
		b = append(b, `,"recipient_actor_id":`...)
		b = appendString(b, o.RecipientActorID)
		b = append(b, `,"wait":`...)
		if o.Wait == nil {
			b = append(b, "null"...)
		} else {
			b = appendWait(b, o.Wait)
		}
		return append(b, '}')
	case *Escalate:
		if o == nil {
			break
		}
		b = append(b, `{"checkpoint_id":`...)
		b = appendString(b, o.CheckpointID)
		b = append(b, `,"deadline_after_minutes":`...)
		b = appendSafeInt(b, o.DeadlineAfterMinutes)
		b = append(b, `,"evidence_refs":`...)
		b = appendStrings(b, o.EvidenceRefs)
		b = append(b, `,"exception_type":`...)
		b = appendString(b, o.ExceptionType)
		b = append(b, `,"kind":"ESCALATE","rationale":`...)
		b = appendString(b, o.Rationale)
		return append(b, '}')
	case *Complete:
		if o == nil {
			break
		}
		b = append(b, `{"evidence_refs":`...)
		b = appendStrings(b, o.EvidenceRefs)
		b = append(b, `,"kind":"COMPLETE","reason":`...)
		b = appendString(b, o.Reason)
		return append(b, '}')
	case *Retrieve:
		if o == nil || !argumentless(o) {
			break
		}
		// Without arguments no two requests conflict: the record is the
		// sorted, de-duplicated tools, each with empty arguments.
		var stack [16]string
		tools := o.distinctTools(stack[:0])
		b = append(b, `{"kind":"RETRIEVE","requests":[`...)
		for i, t := range tools {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"arguments":{},"tool":`...)
			b = appendString(b, t)
			b = append(b, '}')
		}
		return append(b, "]}"...)
	case *Malformed:
		if o == nil {
			break
		}
		b = append(b, `{"code":`...)
		b = appendString(b, o.Code)
		return append(b, `,"kind":"MALFORMED"}`...)
	}
	return AppendCanonical(b, d.Record())
}

func appendWait(b []byte, w *Wait) []byte {
	b = append(b, `{"fallback_after_minutes":`...)
	b = appendOptInt(b, w.FallbackAfterMinutes)
	b = append(b, `,"kind":"WAIT","reason":`...)
	b = appendString(b, w.Reason)
	b = append(b, `,"wake_on":`...)
	b = appendStrings(b, w.WakeOn)
	return append(b, '}')
}

func appendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

func argumentless(r *Retrieve) bool {
	for _, q := range r.Requests {
		if len(q.Arguments) > 0 {
			return false
		}
	}
	return true
}

// distinctTools appends to dst the request tools, de-duplicated and sorted:
// an argumentless retrieve's record (no two of its requests conflict).
func (r *Retrieve) distinctTools(dst []string) []string {
	for _, q := range r.Requests {
		if !containsString(dst, q.Tool) {
			dst = append(dst, q.Tool)
		}
	}
	sortStrings(dst)
	return dst
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// sortStrings is an insertion sort (the lists here are short).
func sortStrings(xs []string) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}
