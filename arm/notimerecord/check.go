package notimerecord

import (
	"math"
	"sync"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/internal/jsonfield"
)

// The named checks: the v1 record's shape, one rule per field, over the
// tree canon.Parse returns. They state what schemas/notime/v1.json states
// (TestSchemaOracle holds the two to one verdict) and refuse with
// [ErrSchema], the detail led by the RFC 6901 pointer of the offending
// value ("/" for the whole record), which [jsonfield.PointerOf] recovers.
// They are stricter in one way only: an integer is an integer literal,
// never a float (14.0), which canonical JSON would not keep anyway.

// fields holds a record's values to the tree rules (internal/jsonfield)
// with this package's class.
var fields = &jsonfield.Reader{Bad: ErrSchema, Unknown: ErrSchema, UnknownField: ErrSchema, MissingField: ErrSchema, Whole: "/"}

// runRule is the v1 record, built on first use (nothing at init).
var runRule = sync.OnceValue(func() jsonfield.Rule {
	r, f := fields, jsonfield.Field
	digest := r.Hex("", 64)
	digests := r.Distinct(digest)
	text, object, kind := r.Text, r.Open(), r.Enum("action", "event")
	count, positive := r.Integer(0, math.MaxInt64), r.Integer(1, math.MaxInt64)
	occurrence := r.Closed(f("semantic_cause_key", digest), f("cause_kind", kind),
		f("required_disposition", r.Enum("accepted", "accepted_or_audit")), f("predecessor_semantic_keys", digests))
	cut := r.Closed(
		f("provisional_close_common_cause_key", digest),
		f("complete_common_point_key", digest),
		f("complete_cycle_id", jsonfield.OrNull(text)),
		f("reachable_pre_finality_closure", r.Closed(
			f("conditional_entries", r.List(r.Closed(f("conditional_semantic_key", digest), f("cause_occurrences", r.List(occurrence))))),
			f("authored_descendant_event_keys", digests),
			f("closure_digest_sha256", digest))))
	event := r.Closed(
		f("event_id", text), f("event_type", text), f("actor_id", text),
		f("authored_sequence", r.Integer(math.MinInt64, math.MaxInt64)), f("payload", object), f("triggers_agent", r.Flag),
		f("source_class", r.Enum("absolute", "conditional")),
		f("cause", jsonfield.OrNull(r.Closed(f("kind", kind), f("type", text), f("cycle_id", jsonfield.OrNull(text))))),
		f("finality_relations", r.Keyed(digest, r.Enum(notimewire.PreFinality, notimewire.PostFinality))))
	plan := r.Closed(
		f("protocol", r.Enum(notimewire.Protocol)),
		f("origin_plan_digest", digest),
		f("events", r.List(event)),
		f("finality_cut_specs", r.List(cut)),
		f("max_transitions", positive),
		f("max_invocations", positive),
		f("max_turns_per_invocation", positive),
		f("max_retrieval_batches_per_invocation", count))
	return r.Closed(
		f("contract", r.Enum(notimewire.RunContract)),
		f("protocol", r.Enum(notimewire.Protocol)),
		f("arm", r.Enum(notimewire.ArmNoTime)),
		f("operation_id", text),
		f("scenario_id", text),
		f("spec_digest_sha256", digest),
		f("operation_instance_id", r.Hex("opinst_", 32)),
		f("agent_id", text),
		f("agent_kind", text),
		f("plan", plan),
		f("plan_digest_sha256", digest),
		f("halt", r.Enum(notimewire.HaltTerminal, notimewire.HaltDeadlock, notimewire.HaltHorizon, notimewire.HaltError)),
		f("halt_code", r.String),
		f("terminal_outcome", jsonfield.OrNull(text)),
		f("replay_final", r.Flag),
		f("transition_count", count),
		f("invocations", count),
		f("unresolved_trigger_keys", digests),
		f("trajectory", r.List(r.Open(f("index", count), f("record_type", text), f("transition", count)))),
		f("decisions", r.List(r.Closed(f("invocation_index", positive), f("turn_index", count),
			f("observation_digest_sha256", digest), f("outcome", object)))),
		f("final_state", object),
		f("trajectory_digest_sha256", digest),
		f("final_state_digest_sha256", digest),
		f("decisions_digest_sha256", digest),
		f("elapsed_minutes", r.Null))
})

// checkShape holds a record's tree (a JSON object) to the named checks. An
// upstream contract-8 artefact is named as such: it carries
// artifact_version, which no run record does.
func checkShape(tree map[string]any) error {
	if _, ok := tree["artifact_version"]; ok {
		return fields.Refuse(ErrSchema, "/artifact_version", "is present: this is an upstream contract-8 artefact, not an %s record", notimewire.RunContract)
	}
	return runRule()(tree, "")
}
