package notimerecord

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// The named checks: the v1 record's shape, one rule per field, over the
// tree canon.Parse returns. They state what schemas/notime/v1.json states
// (TestSchemaOracle holds the two to one verdict) and refuse with
// [ErrSchema] at the RFC 6901 pointer of the offending value. They are
// stricter in one way only: an integer is an integer literal, never a float
// (14.0), which canonical JSON would not keep anyway.

// rule holds the value x at pointer p to one rule.
type rule func(x any, p string) error

// fields holds a value to the field rules (internal/jsonfield) with this
// package's class.
var fields = &jsonfield.Reader{Bad: ErrSchema, Unknown: ErrSchema, UnknownField: ErrSchema, MissingField: ErrSchema, At: refuseAt}

// pointerErr carries the pointer of the value a refusal is about.
type pointerErr struct{ pointer string }

func (e *pointerErr) Error() string { return "at " + e.pointer }

// refuseAt is a refusal of class about the value at pointer: the detail
// leads with the pointer ("/" for the whole record).
func refuseAt(class *refusal.Refusal, pointer, format string, args ...any) error {
	shown := pointer
	if shown == "" {
		shown = "/"
	}
	r := refusal.New(class, shown+" "+format, args...)
	r.Err = &pointerErr{pointer}
	return r
}

// pointer is the JSON pointer of the value a refusal of the named checks is
// about.
func pointer(err error) (string, bool) {
	var p *pointerErr
	if errors.As(err, &p) {
		return p.pointer, true
	}
	return "", false
}

func text(x any, p string) error   { return fields.Text(x, p) }
func str(x any, p string) error    { return fields.String(x, p) }
func flag(x any, p string) error   { return fields.Flag(x, p) }
func object(x any, p string) error { _, err := fields.Object(x, p); return err }

func null(x any, p string) error {
	if x != nil {
		return refuseAt(ErrSchema, p, "must be null, got %s", jsonfield.Show(x))
	}
	return nil
}

// integer is an integer literal of at least minimum.
func integer(minimum int64) rule {
	return func(x any, p string) error { _, err := fields.Int(x, p, minimum); return err }
}

// oneOf is one of the strings set (a const is a set of one).
func oneOf(set ...string) rule {
	return func(x any, p string) error { return fields.Member(x, set, p) }
}

// hex is a string of prefix followed by n lowercase hex digits (a digest:
// no prefix, 64 digits).
func hex(prefix string, n int) rule {
	return func(x any, p string) error {
		s, ok := x.(string)
		rest, found := strings.CutPrefix(s, prefix)
		if !ok || !found || len(rest) != n || strings.Trim(rest, "0123456789abcdef") != "" {
			want := fmt.Sprintf("%d lowercase hex digits", n)
			if prefix != "" {
				want = fmt.Sprintf("%q followed by %s", prefix, want)
			}
			return refuseAt(ErrSchema, p, "must be %s, got %s", want, jsonfield.Show(x))
		}
		return nil
	}
}

// orNull is null or r.
func orNull(r rule) rule {
	return func(x any, p string) error {
		if x == nil {
			return nil
		}
		return r(x, p)
	}
}

// list is an array of items each held to item.
func list(item rule) rule {
	return func(x any, p string) error {
		a, err := fields.Array(x, p)
		if err != nil {
			return err
		}
		for i, e := range a {
			if err := item(e, jsonfield.Index(p, i)); err != nil {
				return err
			}
		}
		return nil
	}
}

// distinct is an array of strings each held to item, no two equal.
func distinct(item rule) rule {
	each := list(item)
	return func(x any, p string) error {
		if err := each(x, p); err != nil {
			return err
		}
		seen := map[any]int{}
		for i, e := range x.([]any) {
			if j, dup := seen[e]; dup {
				return refuseAt(ErrSchema, jsonfield.Index(p, i), "repeats item %d, %s", j, jsonfield.Show(e))
			}
			seen[e] = i
		}
		return nil
	}
}

// keyed is an object each of whose keys is held to key and each value to
// value, in key order.
func keyed(key, value rule) rule {
	return func(x any, p string) error {
		m, err := fields.Object(x, p)
		if err != nil {
			return err
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			kp := jsonfield.Key(p, k)
			if err := key(k, kp); err != nil {
				return err
			}
			if err := value(m[k], kp); err != nil {
				return err
			}
		}
		return nil
	}
}

// member is one field of an object and its rule.
type member struct {
	name string
	rule rule
}

// record is an object of exactly members (open: at least them, any other
// key allowed), each held to its rule.
func record(open bool, members ...member) rule {
	names := make([]string, len(members))
	for i, m := range members {
		names[i] = m.name
	}
	return func(x any, p string) error {
		m, err := fields.Object(x, p)
		if err != nil {
			return err
		}
		if !open {
			if err := fields.Exact(m, names, p); err != nil {
				return err
			}
		} else if missing := jsonfield.Missing(m, names); missing != nil {
			return refuseAt(ErrSchema, p, "missing required field(s) %q", missing)
		}
		for _, f := range members {
			if err := f.rule(m[f.name], jsonfield.Key(p, f.name)); err != nil {
				return err
			}
		}
		return nil
	}
}

func closed(members ...member) rule { return record(false, members...) }

// runRule is the v1 record, built on first use (nothing at init).
var runRule = sync.OnceValue(func() rule {
	digest := hex("", 64)
	digests := distinct(digest)
	kind := oneOf("action", "event")
	occurrence := closed(member{"semantic_cause_key", digest}, member{"cause_kind", kind},
		member{"required_disposition", oneOf("accepted", "accepted_or_audit")}, member{"predecessor_semantic_keys", digests})
	cut := closed(
		member{"provisional_close_common_cause_key", digest},
		member{"complete_common_point_key", digest},
		member{"complete_cycle_id", orNull(text)},
		member{"reachable_pre_finality_closure", closed(
			member{"conditional_entries", list(closed(member{"conditional_semantic_key", digest}, member{"cause_occurrences", list(occurrence)}))},
			member{"authored_descendant_event_keys", digests},
			member{"closure_digest_sha256", digest})})
	event := closed(
		member{"event_id", text}, member{"event_type", text}, member{"actor_id", text},
		member{"authored_sequence", integer(math.MinInt64)}, member{"payload", object}, member{"triggers_agent", flag},
		member{"source_class", oneOf("absolute", "conditional")},
		member{"cause", orNull(closed(member{"kind", kind}, member{"type", text}, member{"cycle_id", orNull(text)}))},
		member{"finality_relations", keyed(digest, oneOf(notimewire.PreFinality, notimewire.PostFinality))})
	plan := closed(
		member{"protocol", oneOf(notimewire.Protocol)},
		member{"origin_plan_digest", digest},
		member{"events", list(event)},
		member{"finality_cut_specs", list(cut)},
		member{"max_transitions", integer(1)},
		member{"max_invocations", integer(1)},
		member{"max_turns_per_invocation", integer(1)},
		member{"max_retrieval_batches_per_invocation", integer(0)})
	return closed(
		member{"contract", oneOf(notimewire.RunContract)},
		member{"protocol", oneOf(notimewire.Protocol)},
		member{"arm", oneOf(notimewire.ArmNoTime)},
		member{"operation_id", text},
		member{"scenario_id", text},
		member{"spec_digest_sha256", digest},
		member{"operation_instance_id", hex("opinst_", 32)},
		member{"agent_id", text},
		member{"agent_kind", text},
		member{"plan", plan},
		member{"plan_digest_sha256", digest},
		member{"halt", oneOf(notimewire.HaltTerminal, notimewire.HaltDeadlock, notimewire.HaltHorizon, notimewire.HaltError)},
		member{"halt_code", str},
		member{"terminal_outcome", orNull(text)},
		member{"replay_final", flag},
		member{"transition_count", integer(0)},
		member{"invocations", integer(0)},
		member{"unresolved_trigger_keys", digests},
		member{"trajectory", list(record(true, member{"index", integer(0)}, member{"record_type", text}, member{"transition", integer(0)}))},
		member{"decisions", list(closed(member{"invocation_index", integer(1)}, member{"turn_index", integer(0)},
			member{"observation_digest_sha256", digest}, member{"outcome", object}))},
		member{"final_state", object},
		member{"trajectory_digest_sha256", digest},
		member{"final_state_digest_sha256", digest},
		member{"decisions_digest_sha256", digest},
		member{"elapsed_minutes", null})
})

// checkShape holds a record's tree (a JSON object) to the named checks. An
// upstream contract-8 artefact is named as such: it carries
// artifact_version, which no run record does.
func checkShape(tree map[string]any) error {
	if _, ok := tree["artifact_version"]; ok {
		return refuseAt(ErrSchema, "/artifact_version", "is present: this is an upstream contract-8 artefact, not an %s record", notimewire.RunContract)
	}
	return runRule()(tree, "")
}
