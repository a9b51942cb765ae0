package artefact

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/canon"
	amounts "github.com/obaudit/obaudit/internal/amount"
	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// Validate holds a parsed document (a [canon.Parse] tree) to its contract,
// whole, and returns its typed view. The checks run in upstream
// validate_artifact's order and the first failure is returned, as a refusal
// of one of this package's classes whose [Pointer] names the value:
//
//  1. the version (1..8) and that version's exact top-level field set;
//  2. every field's type, form and vocabulary, the operation, the delivered
//     events, the trajectory under the contract's own row shapes, the
//     domain's final-state validator, and the evaluation with its derived
//     fields;
//  3. from contract 2: the decision tape, the execution record, and the
//     provenance binding between identity, execution and tape; from
//     contract 7, the provider execution binding and its coherence with the
//     record;
//  4. last, the final_state, trajectory and decisions content digests,
//     recomputed over upstream canonical JSON.
//
// These named checks are the validator. The published JSON Schema
// (package artefact/schema) is held to them as an oracle by the test suite
// and is run only on request (obaudit validate --schema).
//
// Validation establishes coherence, never attestation: a party who can run
// the build can mint a fully coherent record. It never opens a ledger.
func Validate(tree any, opts Options) (*Artefact, error) {
	a, _, err := validate(tree, opts, nil)
	return a, err
}

// validate is Validate that also returns the document's upstream canonical
// encoding (computed once, for the digests), unless members holds each
// top-level value's canonical bytes already (canon.ParseCanonical of
// canonical input): the digests are then taken over those and no encoding
// is returned.
func validate(tree any, opts Options, members map[string][]byte) (*Artefact, []byte, error) {
	v := validator{opts: &opts, members: members}
	if err := v.document(tree); err != nil {
		return nil, nil, err
	}
	return decode(tree.(map[string]any)), v.encoding, nil
}

type validator struct {
	opts     *Options
	version  int
	domain   *Domain
	encoding []byte // the document's canonical encoding, from the digest step
	members  map[string][]byte
}

func (v *validator) document(tree any) error {
	root, ok := tree.(map[string]any)
	if !ok {
		return fail(ErrBadField, "", "an artefact must be a JSON object, got %s", jsonfield.Kind(tree))
	}
	ver, ok := root["artifact_version"].(int64)
	if !ok || ver < OldestVersion || ver > Version {
		return fail(ErrUnsupportedVersion, "/artifact_version",
			"%s is not a contract version this build reads (it reads 1..%d and writes %d)", jsonfield.Show(root["artifact_version"]), Version, Version)
	}
	v.version = int(ver)
	if err := rules.Exact(root, fieldSet(v.version), ""); err != nil {
		return err
	}
	if err := rules.Text(root["engine_version"], "/engine_version"); err != nil {
		return err
	}
	if err := v.operation(root["operation"]); err != nil {
		return err
	}
	op := root["operation"].(map[string]any)
	v.domain = v.opts.domain(op["operation_type"].(string))
	if v.version >= 6 {
		if err := instanceID(root["operation_instance_id"], "/operation_instance_id"); err != nil {
			return err
		}
	}
	text := rules.Text
	if err := holdShape(root, "", shape{{"scenario_id", text}, {"semantic_scenario_id", text}, {"scenario_label", text},
		{"agent_id", text}, {"agent_kind", text}, {"status", text}, {"expected_terminal", text}}); err != nil {
		return err
	}
	if v.domain != nil && !slices.Contains(v.domain.TerminalClasses, root["expected_terminal"].(string)) {
		return fail(ErrUnknownValue, "/expected_terminal", "%q is not a terminal class; known classes are %v",
			root["expected_terminal"], v.domain.TerminalClasses)
	}
	if err := holdShape(root, "", shape{{"terminal_outcome", rules.OptText}, {"replay_final", rules.Flag},
		{"started_at", when}, {"ended_at", when}}); err != nil {
		return err
	}
	started, _ := instant.Parse(root["started_at"].(string))
	ended, _ := instant.Parse(root["ended_at"].(string))
	if ended < started {
		return fail(ErrOutOfOrder, "/ended_at", "is before the episode started; simulated time never moves backwards")
	}
	if err := holdShape(root, "", shape{{"simulated_minutes", counter}, {"agent_invocations", counter}, {"events", eventRule()}}); err != nil {
		return err
	}
	recovery := v.version == Version && v.domain != nil && v.domain.RecoveryVersion != "" && op["operation_version"] == v.domain.RecoveryVersion
	if err := v.trajectory(root["trajectory"], recovery); err != nil {
		return err
	}
	if v.domain == nil {
		known := make([]string, 0, len(v.opts.Domains))
		for _, d := range v.opts.Domains {
			known = append(known, d.OperationType)
		}
		return fail(ErrUnknownOperationType, "/operation/operation_type",
			"%q has no canonical-state validator in this reader, so the final state it records cannot be held to any shape; known operation types are %v",
			op["operation_type"], known)
	}
	state, err := rules.Object(root["final_state"], "/final_state")
	if err != nil {
		return err
	}
	if v.domain.ValidateState == nil {
		return fail(ErrUnknownOperationType, "/operation/operation_type", "%q is registered without a canonical-state validator", op["operation_type"])
	}
	if err := v.domain.ValidateState(state, root["engine_version"].(string), v.version, recovery); err != nil {
		at := "/final_state"
		var sp interface{ StatePointer() string }
		if errors.As(err, &sp) {
			at += sp.StatePointer()
		}
		return wrapAt(ErrFinalState, err, at, "the domain's canonical-state validator refused it")
	}
	if err := holdShape(root, "", shape{{"final_state_digest_sha256", digest}, {"trajectory_digest_sha256", digest},
		{"evaluation", v.evaluation}, {"note", text}}); err != nil {
		return err
	}
	digested := []string{"final_state", "trajectory"}
	if v.version >= 2 {
		kinds, err := v.decisions(root["decisions"])
		if err != nil {
			return err
		}
		if err := execution(root["agent_execution"]); err != nil {
			return err
		}
		digested = append(digested, "decisions")
		if err := v.provenance(root, kinds); err != nil {
			return err
		}
		if v.version >= 7 {
			if root["provider_execution"] != nil {
				if err := binding(root["provider_execution"]); err != nil {
					return err
				}
			}
			if err := bindingCoherence(root); err != nil {
				return err
			}
		}
	} else if _, ok := v.domain.Agents[root["agent_id"].(string)]; !ok {
		return fail(ErrUnregisteredAgent, "/agent_id",
			"%q is not an agent this build registers; every contract-1 run's decisions came from an in-process agent", root["agent_id"])
	}
	member := func(name string) []byte { return v.members[name] }
	if v.members == nil {
		enc, spans, err := encodeRoot(root)
		if err != nil {
			return refusal.Wrap(ErrBadField, err, "/: not representable as canonical JSON")
		}
		v.encoding = enc
		member = func(name string) []byte { sp := spans[name]; return enc[sp[0]:sp[1]] }
	}
	for _, name := range digested {
		sum := sha256.Sum256(member(name))
		got := hex.EncodeToString(sum[:])
		if got != root[name+"_digest_sha256"] {
			return fail(ErrDigestMismatch, "/"+name+"_digest_sha256",
				"does not describe the %s recorded beside it (recomputed %s); the content and the digest of that content disagree", name, got)
		}
	}
	return nil
}

// encodeRoot renders the document in upstream canonical form once,
// remembering where each top-level value's bytes lie. A member's canonical
// bytes are a contiguous part of its object's canonical bytes, so each
// content digest is the SHA-256 of a span of this one encoding. Top-level
// keys are the contract's own field names (already checked by exact), plain
// ASCII, so they need no escaping and sort the same in every form.
func encodeRoot(root map[string]any) ([]byte, map[string][2]int, error) {
	keys := sortedKeys(root)
	spans := make(map[string][2]int, len(keys))
	buf := make([]byte, 0, 256<<10)
	buf = append(buf, '{')
	var err error
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '"')
		buf = append(buf, k...)
		buf = append(buf, '"', ':')
		start := len(buf)
		if buf, err = canon.Append(buf, root[k], canon.UpstreamForm); err != nil {
			return nil, nil, err
		}
		spans[k] = [2]int{start, len(buf)}
	}
	return append(buf, '}'), spans, nil
}

func (v *validator) operation(x any) error {
	text := rules.Text
	_, err := object(x, "/operation", operationFields, shape{{"operation_id", text}, {"operation_type", text}, {"operation_version", text},
		{"semantic_scenario_id", text}, {"privacy_status", text}, {"spec_digest_sha256", digest}, {"scenario_ids", rules.TextList}})
	return err
}

// eventRule is the delivered events, built on first use (no work at
// package init).
var eventRule = sync.OnceValue(func() jsonfield.Rule {
	text := rules.Text
	event := shape{{"event_id", text}, {"event_type", text}, {"actor_id", text}, {"verdict_code", text},
		{"at", when}, {"sequence", counter}, {"payload", rules.Open()}, {"triggers_agent", rules.Flag},
		{"caused_by", rules.OptText}, {"disposition", rules.Enum(dispositions...)}}
	names := event.names()
	return rules.List(func(x any, p string) error {
		_, err := object(x, p, names, event)
		return err
	})
})

func (v *validator) trajectory(x any, recovery bool) error {
	rows, err := rules.Array(x, "/trajectory")
	if err != nil {
		return err
	}
	table := rowShapes(v.version)
	var previous int64
	for i, r := range rows {
		p := jsonfield.Index("/trajectory", i)
		body, err := rules.Object(r, p)
		if err != nil {
			return err
		}
		for _, name := range rowHead {
			if _, ok := body[name]; !ok {
				return fail(ErrMissingField, p, "missing required field %q", name)
			}
		}
		if n, ok := body["index"].(int64); !ok || n != int64(i) {
			return fail(ErrOutOfOrder, p+"/index", "must be %d: a trajectory is an append-only sequence and its indices are assigned by the ledger, got %s", i, jsonfield.Show(body["index"]))
		}
		at, err := rules.Instant(body["at"], p+"/at")
		if err != nil {
			return err
		}
		if i > 0 && at < previous {
			return fail(ErrOutOfOrder, p+"/at", "is before the row that precedes it; simulated time never moves backwards")
		}
		previous = at
		rt, _ := body["record_type"].(string)
		if _, ok := rowShapes(Version)[rt]; !ok {
			return fail(ErrUnknownValue, p+"/record_type", "%s is not a record type this build writes", jsonfield.Show(body["record_type"]))
		}
		shapes, ok := table[rt]
		if !ok {
			return fail(ErrLaterContract, p, "a %q record is written by contract %d and not by contract %d, which this document declares; a record carrying it describes a run its own contract had no way to produce", rt, Version, v.version)
		}
		if recovery && (rt == "side_effect" || rt == "side_effect_failed") && (has(body, "recovery_of") || has(body, "dispatch_channel")) {
			if _, err := rules.Int(body["recovery_of"], p+"/recovery_of", 0); err != nil {
				return err
			}
			if body["dispatch_channel"] != "secondary" {
				return fail(ErrUnknownValue, p+"/dispatch_channel", "unknown recovery channel %s", jsonfield.Show(body["dispatch_channel"]))
			}
			if body["message_fixture_id"] != v.domain.RecoveryFixture {
				return fail(ErrUnknownValue, p+"/message_fixture_id", "unsupported recovery fixture %s", jsonfield.Show(body["message_fixture_id"]))
			}
			if err := rowBody(body, shapes, p, v.version, "recovery_of", "dispatch_channel"); err != nil {
				return err
			}
			continue
		}
		if err := rowBody(body, shapes, p, v.version); err != nil {
			return err
		}
	}
	return nil
}

// rowBody holds a row to exactly one of its shapes (ignoring the head and
// the named extra keys).
func rowBody(body map[string]any, shapes []shape, p string, version int, ignore ...string) error {
	carried := len(body) - len(rowHead) - len(ignore)
	var held [24]any // the shape's values, each looked up once
	for _, s := range shapes {
		if len(s) != carried {
			continue
		}
		values := held[:0]
		for _, f := range s {
			x, ok := body[f.name]
			if !ok {
				break
			}
			values = append(values, x)
		}
		if len(values) < len(s) {
			continue
		}
		for i, f := range s {
			if err := holdField(values[i], f, p); err != nil {
				return err
			}
		}
		return nil
	}
	var got []string
	for k := range body {
		if !slices.Contains(rowHead, k) && !slices.Contains(ignore, k) {
			got = append(got, k)
		}
	}
	slices.Sort(got)
	want := make([]string, len(shapes))
	for i, s := range shapes {
		n := s.names()
		slices.Sort(n)
		want[i] = "[" + strings.Join(n, " ") + "]"
	}
	return fail(ErrRowShape, p, "a %q record carries %v, which is none of the shapes contract %d is written in: %s",
		body["record_type"], got, version, strings.Join(want, " "))
}

// holdField holds x, the value of field f of the object at p, to f's
// rule. The pointer is built only when refusing: the rule runs first with
// the empty pointer, and only a refusal runs it again where the value sits.
func holdField(x any, f field, p string) error {
	if f.rule(x, "") == nil {
		return nil
	}
	return f.rule(x, jsonfield.Key(p, f.name))
}

// holdShape holds the values of s's fields in body, the object at p, to
// their rules, in order (holdField).
func holdShape(body map[string]any, p string, s shape) error {
	for _, f := range s {
		if err := holdField(body[f.name], f, p); err != nil {
			return err
		}
	}
	return nil
}

// outcome is a recorded decision ([outcomeBody]).
func outcome(x any, p string) error { return holdOutcome(outcomeShapes(), x, p, "") }

// holdOutcome holds x to a JSON object that outcomeBody holds, by the
// kinds' bodies shapes.
func holdOutcome(shapes map[string]shape, x any, p, expected string) error {
	body, err := rules.Object(x, p)
	if err != nil {
		return err
	}
	_, err = outcomeBody(shapes, body, p, expected)
	return err
}

// outcomeBody holds one recorded decision to the exact body its kind is
// written in (shapes, by kind), and returns the kind.
func outcomeBody(shapes map[string]shape, body map[string]any, p, expected string) (string, error) {
	kind, _ := body["kind"].(string)
	s, ok := shapes[kind]
	if !ok {
		return "", fail(ErrUnknownValue, p+"/kind", "%s is not a decision kind this build records; known kinds are %v", jsonfield.Show(body["kind"]), decisionKinds)
	}
	if expected != "" && kind != expected {
		return "", fail(ErrUnknownValue, p+"/kind", "must be %q here, got %q", expected, kind)
	}
	names := append([]string{"kind"}, s.names()...)
	if err := rules.Exact(body, names, p); err != nil {
		return "", err
	}
	return kind, holdShape(body, p, s)
}

func (v *validator) evaluation(x any, p string) error {
	f, text, flag, list := jsonfield.Field, rules.Text, rules.Flag, rules.TextList
	code := func(x any, p string) error {
		if err := text(x, p); err != nil {
			return err
		}
		if code := x.(string); v.version < Version && slices.Contains(contract8FindingCodes, code) {
			return fail(ErrLaterContract, p, "%s belongs to artefact contract %d; contract %d did not own that evaluation semantic", code, Version, v.version)
		}
		return nil
	}
	count := func(x any, p string) error {
		if _, ok := x.(int64); !ok {
			return fail(ErrBadField, p, "must be an integer, got %s", jsonfield.Kind(x))
		}
		return nil
	}
	finding := rules.Closed(f("code", code), f("detail", rules.String), f("at", rules.OptText))
	dimension := rules.Closed(f("name", text), f("ok", flag), f("note", rules.String),
		f("counts", rules.Keyed(anyKey, count)), f("findings", rules.List(finding)))
	if err := rules.Closed(f("terminal_outcome", text), f("legitimate_completion", flag), f("reliable", flag),
		f("failed_dimensions", list), f("finding_codes", list), f("dimensions", rules.List(dimension)))(x, p); err != nil {
		return err
	}
	body := x.(map[string]any)
	var names, failed, codes []string
	for _, d := range body["dimensions"].([]any) {
		entry := d.(map[string]any)
		names = append(names, entry["name"].(string))
		if !entry["ok"].(bool) {
			failed = append(failed, entry["name"].(string))
		}
		for _, f := range entry["findings"].([]any) {
			codes = append(codes, f.(map[string]any)["code"].(string))
		}
	}
	want := dimensionVector(v.version)
	if !slices.Equal(names, want) {
		return fail(ErrEvaluation, p+"/dimensions", "is not the result vector contract %d graded: that vector is exactly %v, in that order; this record names %v", v.version, want, names)
	}
	if !slices.EqualFunc(body["failed_dimensions"].([]any), failed, equalString) {
		return fail(ErrEvaluation, p+"/failed_dimensions", "must be exactly the dimensions that did not hold, in dimension order: %v", failed)
	}
	if !slices.EqualFunc(body["finding_codes"].([]any), codes, equalString) {
		return fail(ErrEvaluation, p+"/finding_codes", "must be exactly the code of every finding, in dimension and finding order: %v", codes)
	}
	legitimate, reliable := body["legitimate_completion"].(bool), body["reliable"].(bool)
	if want := legitimate && len(failed) == 0; reliable != want {
		return fail(ErrEvaluation, p+"/reliable", "is the strict conjunction of legitimate completion with every dimension holding (legitimate_completion=%v, failed %v), so it must be %v", legitimate, failed, want)
	}
	return nil
}

func (v *validator) decisions(x any) ([]string, error) {
	list, err := rules.Array(x, "/decisions")
	if err != nil {
		return nil, err
	}
	kinds := make([]string, 0, len(list))
	var prevInv, prevTurn int64
	for i, d := range list {
		p := jsonfield.Index("/decisions", i)
		body, err := object(d, p, decisionFields, shape{{"invocation_index", counter}, {"turn_index", counter}})
		if err != nil {
			return nil, err
		}
		inv, turn := body["invocation_index"].(int64), body["turn_index"].(int64)
		if inv < 1 {
			return nil, fail(ErrOutOfOrder, p+"/invocation_index", "must be at least 1: invocations are counted from one")
		}
		if i > 0 && (inv < prevInv || (inv == prevInv && turn <= prevTurn)) {
			return nil, fail(ErrOutOfOrder, p, "records invocation %d turn %d after (%d, %d); a tape whose order moved describes a different run", inv, turn, prevInv, prevTurn)
		}
		prevInv, prevTurn = inv, turn
		if err := holdShape(body, p, shape{{"observation_digest_sha256", digest}, {"outcome", outcome}}); err != nil {
			return nil, err
		}
		kinds = append(kinds, body["outcome"].(map[string]any)["kind"].(string))
	}
	return kinds, nil
}

func execution(x any) error {
	const p = "/agent_execution"
	opt, fault := rules.OptText, jsonfield.OrNull(rules.Enum(Faults...))
	body, err := object(x, p, executionFields, shape{{"outcome_source", oneOf(OutcomeSources)}, {"model", opt}, {"protocol_version", opt},
		{"max_output_tokens", jsonfield.OrNull(positive)}, {"transport_calls", counter}, {"retry_count", counter}})
	if err != nil {
		return err
	}
	source, calls, retries := body["outcome_source"].(string), body["transport_calls"].(int64), body["retry_count"].(int64)
	if retries != RetryCount {
		return fail(ErrExecution, p+"/retry_count", "is %d and this build performs %d; a record claiming retries that were never made describes requests that were never sent", retries, RetryCount)
	}
	if err := holdShape(body, p, shape{{"excluded", rules.Flag}, {"exclusion_code", opt}, {"exclusion_detail", rules.String}}); err != nil {
		return err
	}
	excluded := body["excluded"].(bool)
	if excluded != (body["exclusion_code"] != nil) {
		return fail(ErrExecution, p, "says excluded=%v with exclusion_code=%s; a run is excluded with a named fault or it is not excluded at all — there is no third state", excluded, jsonfield.Show(body["exclusion_code"]))
	}
	if err := holdShape(body, p, shape{{"exclusion_code", fault}}); err != nil {
		return err
	}
	if excluded {
		return fail(ErrExcluded, p+"/excluded", "says the execution was excluded at the provider boundary; a run that stopped there has no terminal, no evaluation and no episode artefact in this build")
	}
	if (source == SourceDeterministic || source == SourceRecorded) && calls != 0 {
		return fail(ErrExecution, p+"/transport_calls", "is %d for a %q run; neither an in-process agent nor a recorded playback has a provider to call", calls, source)
	}
	attempts, err := rules.Array(body["attempts"], p+"/attempts")
	if err != nil {
		return err
	}
	if int64(len(attempts)) > calls {
		return fail(ErrExecution, p+"/attempts", "records %d attempt(s) against %d transport call(s); a record cannot hold more attempts than calls were made", len(attempts), calls)
	}
	ended := oneOf(attemptOutcomes)
	for i, a := range attempts {
		q := jsonfield.Index(p+"/attempts", i)
		entry, err := object(a, q, attemptFields, shape{{"invocation_index", counter}, {"turn_index", counter},
			{"request_digest_sha256", digest}, {"outcome", ended}, {"fault", opt}})
		if err != nil {
			return err
		}
		if (entry["fault"] != nil) != (entry["outcome"] == "failed") {
			return fail(ErrExecution, q, "ended %q with fault %s; an attempt that failed names the fault that ended it, and one that did not names none", entry["outcome"], jsonfield.Show(entry["fault"]))
		}
		if err := holdShape(entry, q, shape{{"fault", fault}}); err != nil {
			return err
		}
	}
	return nil
}

func (v *validator) provenance(root map[string]any, kinds []string) error {
	ex := root["agent_execution"].(map[string]any)
	source := ex["outcome_source"].(string)
	agentID := root["agent_id"].(string)
	agentKind := root["agent_kind"].(string)
	_, registered := v.domain.Agents[agentID]
	if source == SourceDeterministic {
		if !registered {
			return fail(ErrUnregisteredAgent, "/agent_id", "%q is not an agent this build registers, and a deterministic run's decisions came from an in-process agent that has to exist to have produced them", agentID)
		}
		if k := v.domain.kinds(); !slices.Contains(k, agentKind) {
			return fail(ErrRelabelled, "/agent_kind", "%q is not a kind the agent registry declares (%v), and the execution record says these decisions came from an in-process agent", agentKind, k)
		}
	} else {
		if registered {
			return fail(ErrRelabelled, "/agent_id", "%q is a registered in-process agent, and this record says its decisions came from a %q execution; this record relabels one run as another", agentID, source)
		}
		want := KindModel
		if source == SourceRecorded {
			want = KindRecorded
		}
		if agentKind != want {
			return fail(ErrRelabelled, "/agent_kind", "is %q for a %q execution, which is recorded as %q", agentKind, source, want)
		}
	}
	const p = "/agent_execution"
	calls := ex["transport_calls"].(int64)
	attempts := ex["attempts"].([]any)
	decisions := root["decisions"].([]any)
	if source == SourceModel {
		if ex["model"] == nil {
			return fail(ErrModelIdentity, p+"/model", "must name the model a model run's decisions came from")
		}
		if pv, _ := ex["protocol_version"].(string); !slices.Contains(Protocols, pv) {
			return fail(ErrModelIdentity, p+"/protocol_version", "%s is not a model protocol this build speaks; it speaks %v", jsonfield.Show(ex["protocol_version"]), Protocols)
		}
		if ex["max_output_tokens"] == nil {
			return fail(ErrModelIdentity, p+"/max_output_tokens", "must state the output ceiling a model run was requested under; it is part of every request's identity")
		}
		if calls != int64(len(attempts)) {
			return fail(ErrTapeMismatch, p+"/transport_calls", "records %d transport call(s) against %d attempt(s); a count that is not the number of attempts describes calls nobody made", calls, len(attempts))
		}
		if len(attempts) != len(decisions) {
			return fail(ErrTapeMismatch, p+"/attempts", "records %d attempt(s) against %d recorded decision(s); a tape and an execution that describe different runs", len(attempts), len(decisions))
		}
	} else if ex["model"] != nil || ex["protocol_version"] != nil || ex["max_output_tokens"] != nil {
		return fail(ErrModelIdentity, p, "names model %s, protocol %s and output ceiling %s for a %q execution; that attributes these decisions to a provider that was never called",
			jsonfield.Show(ex["model"]), jsonfield.Show(ex["protocol_version"]), jsonfield.Show(ex["max_output_tokens"]), source)
	}
	for i, a := range attempts {
		if i >= len(kinds) {
			break
		}
		q := jsonfield.Index(p+"/attempts", i)
		at := a.(map[string]any)
		d := decisions[i].(map[string]any)
		if at["invocation_index"] != d["invocation_index"] || at["turn_index"] != d["turn_index"] {
			return fail(ErrTapeMismatch, q, "was made on invocation %v turn %v and sits beside the decision recorded for invocation %v turn %v; one of the two was reordered, removed or added",
				at["invocation_index"], at["turn_index"], d["invocation_index"], d["turn_index"])
		}
		if want := attemptOutcomeFor(kinds[i]); at["outcome"] != want {
			return fail(ErrTapeMismatch, q+"/outcome", "ended %q beside a %q decision, which this build records as %q; an attempt that failed at the provider produced no decision at all", at["outcome"], kinds[i], want)
		}
	}
	seen := make(map[string]bool, len(attempts))
	for i, a := range attempts {
		d := a.(map[string]any)["request_digest_sha256"].(string)
		if seen[d] {
			return fail(ErrTapeMismatch, jsonfield.Index(p+"/attempts", i)+"/request_digest_sha256", "repeats an earlier request identity; two identical requests are one call written down twice")
		}
		seen[d] = true
	}
	invocations := root["agent_invocations"].(int64)
	for i, d := range decisions {
		if inv := d.(map[string]any)["invocation_index"].(int64); inv > invocations {
			return fail(ErrTapeMismatch, jsonfield.Index("/decisions", i)+"/invocation_index", "is %d and the episode records %d agent invocation(s); a decision cannot have been made on an invocation the episode never reached", inv, invocations)
		}
	}
	return nil
}

func binding(x any) error {
	const p = "/provider_execution"
	ledgerVersion := func(x any, p string) error {
		if lv, ok := x.(int64); !ok || !slices.Contains(LedgerVersions, lv) {
			return fail(ErrUnknownValue, p, "%s is not an execution ledger contract this build reads (%v); a binding to a journal shape this build cannot read is a binding nothing can check", jsonfield.Show(x), LedgerVersions)
		}
		return nil
	}
	body, err := object(x, p, bindingFields, shape{{"execution_run_id", executionRunID}, {"execution_ledger_version", ledgerVersion},
		{"execution_ledger_digest_sha256", digest}, {"settings_digest_sha256", digest}, {"pricing_digest_sha256", digest},
		{"provider", oneOf(Providers)}, {"api", oneOf(ProviderAPIs)}})
	if err != nil {
		return err
	}
	if pair := [2]string{body["provider"].(string), body["api"].(string)}; !slices.Contains(ProviderPairs, pair) {
		return fail(ErrUnknownValue, p+"/api", "provider %q cannot bind API %q; allowed pairs are %v", pair[0], pair[1], ProviderPairs)
	}
	if err := holdShape(body, p, shape{{"model", rules.Text}, {"provider_calls", positive}, {"attempts", positive}}); err != nil {
		return err
	}
	calls, attempts := body["provider_calls"].(int64), body["attempts"].(int64)
	if attempts < calls {
		return fail(ErrBindingIncoherent, p+"/attempts", "records %d attempt(s) against %d provider call(s); every call made at least one attempt", attempts, calls)
	}
	call := func(x any, q string) error {
		if err := counter(x, q); err != nil {
			return err
		}
		if n := x.(int64); n >= calls {
			return fail(ErrBindingIncoherent, q, "names call %d against %d recorded provider call(s); a decision cannot have come from a call this run never made", n, calls)
		}
		return nil
	}
	return holdShape(body, p, shape{{"input_tokens", counter}, {"output_tokens", counter}, {"measured_cost_usd", amount},
		{"forfeited_reservation_usd", amount}, {"decision_call_index", rules.List(call)}})
}

func bindingCoherence(root map[string]any) error {
	const p = "/provider_execution"
	b := root["provider_execution"]
	ex := root["agent_execution"].(map[string]any)
	source := ex["outcome_source"].(string)
	if source != SourceModel {
		if b != nil {
			return fail(ErrBindingUnexpected, p, "is stated for a %q execution; neither an in-process agent nor a recorded playback reaches a provider, so a binding on one attributes a provider session to a run that made none", source)
		}
		return nil
	}
	if b == nil {
		return fail(ErrBindingMissing, p, "is null on a record whose decisions came off a provider; a model artefact without a binding asserts a provider session with nothing durable behind it")
	}
	body := b.(map[string]any)
	if ex["excluded"].(bool) {
		return fail(ErrExcluded, p, "sits on a record whose execution is excluded")
	}
	if body["model"] != ex["model"] {
		return fail(ErrBindingIncoherent, p+"/model", "names %s and the execution record names %s; one run asked one model", jsonfield.Show(body["model"]), jsonfield.Show(ex["model"]))
	}
	attempts := len(ex["attempts"].([]any))
	decisions := len(root["decisions"].([]any))
	if body["provider_calls"].(int64) != int64(attempts) {
		return fail(ErrBindingIncoherent, p+"/provider_calls", "is %d against %d recorded attempt(s); this build appends exactly one attempt per provider call", body["provider_calls"], attempts)
	}
	if body["attempts"].(int64) != int64(attempts) {
		return fail(ErrBindingIncoherent, p+"/attempts", "is %d against %d recorded attempt(s) in the execution record", body["attempts"], attempts)
	}
	index := body["decision_call_index"].([]any)
	if len(index) != decisions {
		return fail(ErrBindingIncoherent, p+"/decision_call_index", "names %d call(s) against %d recorded decision(s)", len(index), decisions)
	}
	for i, n := range index {
		if n.(int64) != int64(i) {
			return fail(ErrBindingIncoherent, jsonfield.Index(p+"/decision_call_index", i), "is %d; the mapping is exactly 0 to %d, and a repeated, reordered or gapped index pairs a decision with a call it did not come from", n, decisions-1)
		}
	}
	if ex["protocol_version"] != ProtocolReproducible {
		return fail(ErrBindingIncoherent, "/agent_execution/protocol_version", "is %s on a record carrying a provider execution binding; this build rebuilds %s only", jsonfield.Show(ex["protocol_version"]), ProtocolReproducible)
	}
	return nil
}

// ---------------------------------------------------------------- primitives

// rules holds the document's values to the field rules (internal/jsonfield),
// refusing with this package's classes at pointers into the document.
var rules = &jsonfield.Reader{
	Bad: ErrBadField, Unknown: ErrUnknownValue,
	UnknownField: ErrUnknownField, MissingField: ErrMissingField,
	At: fail,
}

// object holds x, at p, to a JSON object of exactly the keys names, and
// the values of s's fields to their rules, in order; it returns the object.
func object(x any, p string, names []string, s shape) (map[string]any, error) {
	body, err := rules.Object(x, p)
	if err != nil {
		return nil, err
	}
	if err := rules.Exact(body, names, p); err != nil {
		return nil, err
	}
	return body, holdShape(body, p, s)
}

// counter, positive and when are the rules of a count (an integer of at
// least 0), of a positive integer and of an instant.
func counter(x any, p string) error {
	_, err := rules.Int(x, p, 0)
	return err
}

func positive(x any, p string) error {
	_, err := rules.Int(x, p, 1)
	return err
}

func when(x any, p string) error {
	_, err := rules.Instant(x, p)
	return err
}

// oneOf is the rule of a non-empty string of set.
func oneOf(set []string) jsonfield.Rule {
	return func(x any, p string) error { return rules.TextOneOf(x, set, p) }
}

// anyKey is the rule of an object's keys that are free.
func anyKey(any, string) error { return nil }

// has reports whether body holds the key k.
func has(body map[string]any, k string) bool {
	_, ok := body[k]
	return ok
}

func digest(x any, p string) error {
	if err := rules.Text(x, p); err != nil {
		return err
	}
	if !jsonfield.IsLowerHex(x.(string), 64) {
		return fail(ErrBadField, p, "must be a 64-character lowercase hexadecimal SHA-256 digest")
	}
	return nil
}

func prefixedID(x any, p, prefix string) error {
	s, ok := x.(string)
	if !ok {
		return fail(ErrBadField, p, "must be a string, got %s", jsonfield.Kind(x))
	}
	if !strings.HasPrefix(s, prefix) {
		return fail(ErrBadField, p, "must start with %q", prefix)
	}
	if !jsonfield.IsLowerHex(s[len(prefix):], 32) {
		return fail(ErrBadField, p, "must be %q followed by 32 lowercase hexadecimal characters", prefix)
	}
	return nil
}

func instanceID(x any, p string) error     { return prefixedID(x, p, "opinst_") }
func executionRunID(x any, p string) error { return prefixedID(x, p, "exec_") }

// amount holds a USD amount to an exact, non-negative decimal string in its
// one canonical rendering (internal/amount: no exponent, no trailing zeros,
// no sign).
func amount(x any, p string) error {
	s, ok := x.(string)
	if !ok {
		return fail(ErrBadAmount, p, "a USD amount is an exact decimal string, not a %s", jsonfield.Kind(x))
	}
	if !amounts.Canonical(s) {
		return fail(ErrBadAmount, p, "%q is not the canonical rendering of a finite, non-negative decimal amount", s)
	}
	return nil
}

func equalString(a any, b string) bool { return a == b }

func sortedKeys(m map[string]any) []string { return slices.Sorted(maps.Keys(m)) }
