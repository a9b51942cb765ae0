package artefact_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// mutation is one named, generated mutation of a real upstream artefact:
// the spec's adversarial catalogue (provenance-layer.md §11.10–11.12,
// §11.15) case it ports, the fixture it starts from, the edit, and the
// refusal class and JSON pointer it must be refused with (class "" means it
// must be accepted).
type mutation struct {
	name    string
	fixture string
	edit    func(t testing.TB, d map[string]any)
	class   *refusal.Refusal
	pointer string
}

func isClass(err error, want *refusal.Refusal) bool {
	return err != nil && refusal.Of(err) == want.Class
}

// modelDecisionShapes are valid bodies of every decision kind.
func decisionBodies() map[string]map[string]any {
	wait := map[string]any{"kind": "WAIT", "reason": "r", "wake_on": []any{"visit_followup_due"}, "fallback_after_minutes": int64(60)}
	return map[string]map[string]any{
		"ACT":       {"kind": "ACT", "action_type": "send_message", "payload": map[string]any{}, "evidence_refs": []any{}, "rationale": "r"},
		"WAIT":      wait,
		"ASK":       {"kind": "ASK", "recipient_actor_id": "customer_1", "message_fixture_id": "msg_access_question", "correlation_id": nil, "wait": canonClone(wait)},
		"ESCALATE":  {"kind": "ESCALATE", "checkpoint_id": "checkpoint_9", "exception_type": "approval_rejected", "evidence_refs": []any{"x"}, "deadline_after_minutes": int64(1440), "rationale": "r"},
		"COMPLETE":  {"kind": "COMPLETE", "reason": "done", "evidence_refs": []any{}},
		"RETRIEVE":  {"kind": "RETRIEVE", "requests": []any{map[string]any{"tool": "get_case_record", "arguments": map[string]any{}}}},
		"MALFORMED": {"kind": "MALFORMED", "code": "MODEL_NO_TOOL_CALL"},
	}
}

func canonClone(x map[string]any) map[string]any { return artefact.Clone(x).(map[string]any) }

// setDecision0 replaces decision 0's outcome in a deterministic record (no
// attempts to keep in step) and reseals.
func setDecision0(body map[string]any) func(testing.TB, map[string]any) {
	return func(t testing.TB, d map[string]any) {
		decision(d, 0)["outcome"] = canonClone(body)
		upstreamtest.Reseal(t, d)
	}
}

// project drops what contracts after v added, as upstream's projection
// helpers do (never inventing), and relabels the document as contract v.
func project(v int) func(testing.TB, map[string]any) {
	return func(t testing.TB, d map[string]any) {
		keep := map[string]bool{}
		for _, f := range artefact.Fields(v) {
			keep[f] = true
		}
		for k := range d {
			if !keep[k] {
				delete(d, k)
			}
		}
		d["artifact_version"] = int64(v)
		for _, r := range l(d["trajectory"]) {
			row := m(r)
			if v < 3 && row["record_type"] == "effect_accepted" {
				delete(row, "bindings")
			}
			if v < 6 && row["record_type"] == "agent_invoked" {
				delete(row, "trigger_event_authority")
				delete(row, "trigger_is_authoritative")
				delete(row, "trigger_claim_values")
			}
		}
		upstreamtest.Reseal(t, d)
	}
}

// remint turns the deterministic run into a coherent model record with an
// invented binding (upstream X47): consistency is not attestation.
func remint(t testing.TB, d map[string]any) {
	d["agent_id"] = "openai-gpt-5-6-luna"
	d["agent_kind"] = "model"
	ex := execution(d)
	n := len(decisions(d))
	var as []any
	var index []any
	for i := 0; i < n; i++ {
		dec := decision(d, i)
		sum, _ := canon.UpstreamDigest(map[string]any{"reminted": int64(i)})
		as = append(as, map[string]any{"invocation_index": dec["invocation_index"], "turn_index": dec["turn_index"],
			"request_digest_sha256": sum, "outcome": "decided", "fault": nil})
		index = append(index, int64(i))
	}
	ex["outcome_source"] = "model"
	ex["model"] = "gpt-5.6-luna"
	ex["protocol_version"] = "operatebench.model.v4"
	ex["max_output_tokens"] = int64(4096)
	ex["transport_calls"] = int64(n)
	ex["attempts"] = as
	d["provider_execution"] = map[string]any{
		"execution_run_id": "exec_" + strings.Repeat("0", 32), "execution_ledger_version": int64(3),
		"execution_ledger_digest_sha256": strings.Repeat("0", 64), "provider": "openai", "api": "responses",
		"model": "gpt-5.6-luna", "settings_digest_sha256": strings.Repeat("1", 64), "pricing_digest_sha256": strings.Repeat("2", 64),
		"provider_calls": int64(n), "attempts": int64(n), "measured_cost_usd": "0", "forfeited_reservation_usd": "0",
		"input_tokens": int64(0), "output_tokens": int64(0), "decision_call_index": index,
	}
}

func mutations() []mutation {
	bodies := decisionBodies()
	set := func(path func(map[string]any) map[string]any, k string, v any) func(testing.TB, map[string]any) {
		return func(_ testing.TB, d map[string]any) { path(d)[k] = v }
	}
	del := func(path func(map[string]any) map[string]any, k string) func(testing.TB, map[string]any) {
		return func(_ testing.TB, d map[string]any) { delete(path(d), k) }
	}
	// resealed is edit followed by a reseal of the content digests, so that
	// the check reached is the one under test, not the digest check.
	resealed := func(edit func(testing.TB, map[string]any)) func(testing.TB, map[string]any) {
		return func(t testing.TB, d map[string]any) { edit(t, d); upstreamtest.Reseal(t, d) }
	}
	root := func(d map[string]any) map[string]any { return d }
	rowAt := func(i int) func(map[string]any) map[string]any {
		return func(d map[string]any) map[string]any { return row(d, i) }
	}
	rowObject := func(i int, field string) func(map[string]any) map[string]any {
		return func(d map[string]any) map[string]any { return m(row(d, i)[field]) }
	}
	decisionAt := func(i int) func(map[string]any) map[string]any {
		return func(d map[string]any) map[string]any { return decision(d, i) }
	}
	ex := execution
	pe := binding
	ms := []mutation{
		// ---- §11.10 artefact binding coherence
		{name: "P2-frozen-v1-reads", fixture: fixtureV1, edit: func(testing.TB, map[string]any) {}},
		{name: "P3-deterministic-binding-null", fixture: fixtureDet, edit: func(testing.TB, map[string]any) {}},
		{name: "P4-deterministic-given-model-binding", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			d["provider_execution"] = binding(tree(t, fixtureModel))
		}, class: artefact.ErrBindingUnexpected, pointer: "/provider_execution"},
		{name: "P8-model-binding-null", fixture: fixtureModel, edit: set(root, "provider_execution", nil),
			class: artefact.ErrBindingMissing, pointer: "/provider_execution"},
		{name: "P9-call-index-one-short", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			b := binding(d)
			b["decision_call_index"] = l(b["decision_call_index"])[:45]
		}, class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/decision_call_index"},
		{name: "P9-call-index-repeated", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			l(binding(d)["decision_call_index"])[3] = int64(2)
		}, class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/decision_call_index/3"},
		{name: "P10-provider-calls-plus-one", fixture: fixtureModel, edit: set(pe, "provider_calls", int64(47)),
			class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/attempts"},
		{name: "P11-attempts-minus-one", fixture: fixtureModel, edit: set(pe, "attempts", int64(45)),
			class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/attempts"},
		{name: "P12-binding-model-not-pinned", fixture: fixtureModel, edit: set(pe, "model", "gpt-not-the-pinned-model"),
			class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/model"},
		{name: "P13-provider-not-openai", fixture: fixtureModel, edit: set(pe, "provider", "not-openai"),
			class: artefact.ErrUnknownValue, pointer: "/provider_execution/provider"},
		{name: "P13-api-completions", fixture: fixtureModel, edit: set(pe, "api", "completions"),
			class: artefact.ErrUnknownValue, pointer: "/provider_execution/api"},
		{name: "P13-pair-not-allowed", fixture: fixtureModel, edit: set(pe, "api", "messages"),
			class: artefact.ErrUnknownValue, pointer: "/provider_execution/api"},
		{name: "P15-run-id-not-exec", fixture: fixtureModel, edit: set(pe, "execution_run_id", strings.Repeat("a", 64)),
			class: artefact.ErrBadField, pointer: "/provider_execution/execution_run_id"},
		{name: "P16-measured-cost-as-number", fixture: fixtureModel, edit: set(pe, "measured_cost_usd", 0.2964125),
			class: artefact.ErrBadAmount, pointer: "/provider_execution/measured_cost_usd"},
		{name: "P16-measured-cost-trailing-zeros", fixture: fixtureModel, edit: set(pe, "measured_cost_usd", "0.29641250"),
			class: artefact.ErrBadAmount, pointer: "/provider_execution/measured_cost_usd"},
		{name: "P16-forfeited-exponent", fixture: fixtureModel, edit: set(pe, "forfeited_reservation_usd", "5.93425E-2"),
			class: artefact.ErrBadAmount, pointer: "/provider_execution/forfeited_reservation_usd"},
		{name: "P16-forfeited-negative", fixture: fixtureModel, edit: set(pe, "forfeited_reservation_usd", "-0.01"),
			class: artefact.ErrBadAmount, pointer: "/provider_execution/forfeited_reservation_usd"},
		{name: "P17-ledger-version-4", fixture: fixtureModel, edit: set(pe, "execution_ledger_version", int64(4)),
			class: artefact.ErrUnknownValue, pointer: "/provider_execution/execution_ledger_version"},
		{name: "P18-extra-raw-ledger", fixture: fixtureModel, edit: set(pe, "raw_ledger", "{}"),
			class: artefact.ErrUnknownField, pointer: "/provider_execution/raw_ledger"},
		{name: "P18-missing-pricing-digest", fixture: fixtureModel, edit: del(pe, "pricing_digest_sha256"),
			class: artefact.ErrMissingField, pointer: "/provider_execution"},
		{name: "P19-projected-to-contract-6-validates", fixture: fixtureModel, edit: project(6)},
		{name: "P20-contract-6-carrying-binding", fixture: fixtureModel, edit: set(root, "artifact_version", int64(6)),
			class: artefact.ErrUnknownField, pointer: "/provider_execution"},
		{name: "P20-contract-8-missing-binding-key", fixture: fixtureDet, edit: del(root, "provider_execution"),
			class: artefact.ErrMissingField, pointer: ""},

		// ---- §11.11 execution record <-> tape <-> identity
		{name: "X1-genuine-model-artefact", fixture: fixtureModel, edit: func(testing.TB, map[string]any) {}},
		{name: "X2-transport-calls-0", fixture: fixtureModel, edit: set(ex, "transport_calls", int64(0)),
			class: artefact.ErrExecution, pointer: "/agent_execution/attempts"},
		{name: "X2-transport-calls-3", fixture: fixtureModel, edit: set(ex, "transport_calls", int64(3)),
			class: artefact.ErrExecution, pointer: "/agent_execution/attempts"},
		{name: "X3-transport-calls-999", fixture: fixtureModel, edit: set(ex, "transport_calls", int64(999)),
			class: artefact.ErrTapeMismatch, pointer: "/agent_execution/transport_calls"},
		{name: "X4-last-attempt-removed", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			e := execution(d)
			e["attempts"] = attempts(d)[:45]
			e["transport_calls"] = int64(45)
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts"},
		{name: "X5-extra-attempt", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			e := execution(d)
			last := canonClone(attempt(d, 45))
			last["turn_index"] = last["turn_index"].(int64) + 1
			last["request_digest_sha256"] = strings.Repeat("a", 64)
			e["attempts"] = append(attempts(d), last)
			e["transport_calls"] = int64(47)
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts"},
		{name: "X6-attempts-0-1-swapped", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			a := attempts(d)
			a[0], a[1] = a[1], a[0]
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/0"},
		{name: "X7-attempt-0-invocation-plus-5", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 0)["invocation_index"] = attempt(d, 0)["invocation_index"].(int64) + 5
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/0"},
		{name: "X8-request-digest-written-twice", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 1)["request_digest_sha256"] = attempt(d, 0)["request_digest_sha256"]
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/1/request_digest_sha256"},
		{name: "X9-classified-beside-decision", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 0)["outcome"] = "classified"
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/0/outcome"},
		{name: "X10-malformed-beside-decided", fixture: fixtureModel, edit: resealed(set(decisionAt(0), "outcome", map[string]any{"kind": "MALFORMED", "code": "MODEL_NO_TOOL_CALL"})),
			class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/0/outcome"},
		{name: "X11-failed-attempt-beside-decision", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 0)["outcome"] = "failed"
			attempt(d, 0)["fault"] = "provider_transport"
		}, class: artefact.ErrTapeMismatch, pointer: "/agent_execution/attempts/0/outcome"},
		{name: "X12-decision-on-unreached-invocation", fixture: fixtureModel, edit: func(t testing.TB, d map[string]any) {
			decision(d, 45)["invocation_index"] = int64(15)
			attempt(d, 45)["invocation_index"] = int64(15)
			upstreamtest.Reseal(t, d)
		}, class: artefact.ErrTapeMismatch, pointer: "/decisions/45/invocation_index"},
		{name: "X13-model-null", fixture: fixtureModel, edit: set(ex, "model", nil),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution/model"},
		{name: "X14-protocol-v9", fixture: fixtureModel, edit: set(ex, "protocol_version", "operatebench.model.v9"),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution/protocol_version"},
		{name: "X15-ceiling-null", fixture: fixtureModel, edit: set(ex, "max_output_tokens", nil),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution/max_output_tokens"},
		{name: "X16-deterministic-given-model", fixture: fixtureDet, edit: set(ex, "model", "gpt-5.6-luna"),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution"},
		{name: "X16-deterministic-given-protocol", fixture: fixtureDet, edit: set(ex, "protocol_version", "operatebench.model.v4"),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution"},
		{name: "X16-deterministic-given-ceiling", fixture: fixtureDet, edit: set(ex, "max_output_tokens", int64(4096)),
			class: artefact.ErrModelIdentity, pointer: "/agent_execution"},
		{name: "X17-deterministic-given-attempt", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			execution(d)["attempts"] = []any{attempt(tree(t, fixtureModel), 0)}
		}, class: artefact.ErrExecution, pointer: "/agent_execution/attempts"},
		{name: "X18-deterministic-transport-calls-1", fixture: fixtureDet, edit: set(ex, "transport_calls", int64(1)),
			class: artefact.ErrExecution, pointer: "/agent_execution/transport_calls"},
		{name: "X19-unknown-deterministic-agent", fixture: fixtureDet, edit: set(root, "agent_id", "no_such_agent"),
			class: artefact.ErrUnregisteredAgent, pointer: "/agent_id"},
		{name: "X19-unknown-agent-in-v1", fixture: fixtureV1, edit: set(root, "agent_id", "no_such_agent"),
			class: artefact.ErrUnregisteredAgent, pointer: "/agent_id"},
		{name: "X20-deterministic-relabelled-model", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			mt := tree(t, fixtureModel)
			d["agent_kind"] = "model"
			d["agent_execution"] = mt["agent_execution"]
			d["provider_execution"] = mt["provider_execution"]
		}, class: artefact.ErrRelabelled, pointer: "/agent_id"},
		{name: "X21-model-record-agent-reference", fixture: fixtureModel, edit: set(root, "agent_id", "reference"),
			class: artefact.ErrRelabelled, pointer: "/agent_id"},
		{name: "X23-deterministic-kind-model", fixture: fixtureDet, edit: set(root, "agent_kind", "model"),
			class: artefact.ErrRelabelled, pointer: "/agent_kind"},
		// X24: a reference record labelled negative is not a refusal here;
		// replay reports it as an identity difference.
		{name: "X24-reference-labelled-negative-reads", fixture: fixtureDet, edit: set(root, "agent_kind", "negative")},
		{name: "X26-model-edited-consistently-reads", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			execution(d)["model"] = "a-different-model"
			binding(d)["model"] = "a-different-model"
			execution(d)["max_output_tokens"] = int64(512)
		}},
		{name: "X27-model-edited-in-record-only", fixture: fixtureModel, edit: set(ex, "model", "a-different-model"),
			class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/model"},
		{name: "X31-excluded-without-code", fixture: fixtureDet, edit: set(ex, "excluded", true),
			class: artefact.ErrExecution, pointer: "/agent_execution"},
		{name: "X31-code-without-excluded", fixture: fixtureDet, edit: set(ex, "exclusion_code", "provider_budget"),
			class: artefact.ErrExecution, pointer: "/agent_execution"},
		{name: "X36-ask-wait-urgency", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			ask := canonClone(bodies["ASK"])
			m(ask["wait"])["urgency"] = "high"
			setDecision0(ask)(t, d)
		}, class: artefact.ErrUnknownField, pointer: "/decisions/0/outcome/wait/urgency"},
		{name: "X37-unclassified-beside-classified", fixture: fixtureModel, edit: func(t testing.TB, d map[string]any) {
			decision(d, 0)["outcome"] = map[string]any{"kind": "MALFORMED", "code": "MODEL_OUTPUT_UNCLASSIFIED"}
			attempt(d, 0)["outcome"] = "classified"
			upstreamtest.Reseal(t, d)
		}},
		{name: "X37-unknown-classification", fixture: fixtureDet,
			edit:  setDecision0(map[string]any{"kind": "MALFORMED", "code": "MODEL_OUTPUT_UNCLASSIFIED_BUT_INTERESTING"}),
			class: artefact.ErrUnknownValue, pointer: "/decisions/0/outcome/code"},
		{name: "X39-row-ask-wait-of-kind-act", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			ask := canonClone(bodies["ASK"])
			ask["wait"] = canonClone(bodies["ACT"])
			row(d, 11)["outcome"] = ask
			upstreamtest.Reseal(t, d)
		}, class: artefact.ErrUnknownValue, pointer: "/trajectory/11/outcome/wait/kind"},
		{name: "X40-row-rationale-7-digest-redone", fixture: fixtureDet, edit: resealed(set(rowObject(11, "outcome"), "rationale", int64(7))),
			class: artefact.ErrBadField, pointer: "/trajectory/11/outcome/rationale"},
		{name: "X45-verdict-code-empty", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(l(d["events"])[0])["verdict_code"] = ""
		}, class: artefact.ErrBadField, pointer: "/events/0/verdict_code"},
		{name: "X45-verdict-code-null", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(l(d["events"])[0])["verdict_code"] = nil
		}, class: artefact.ErrBadField, pointer: "/events/0/verdict_code"},
		{name: "X45-verdict-code-0", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(l(d["events"])[0])["verdict_code"] = int64(0)
		}, class: artefact.ErrBadField, pointer: "/events/0/verdict_code"},
		{name: "X46-extra-dimension", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			ev := m(d["evaluation"])
			extra := canonClone(m(l(ev["dimensions"])[0]))
			extra["name"] = "vibes"
			ev["dimensions"] = append(l(ev["dimensions"]), extra)
		}, class: artefact.ErrEvaluation, pointer: "/evaluation/dimensions"},
		{name: "X47-consistency-is-not-attestation", fixture: fixtureDet, edit: remint},

		// ---- §11.12 other artefact suites
		{name: "version-0", fixture: fixtureDet, edit: set(root, "artifact_version", int64(0)),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-9", fixture: fixtureDet, edit: set(root, "artifact_version", int64(9)),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-49", fixture: fixtureDet, edit: set(root, "artifact_version", int64(49)),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-string-8", fixture: fixtureDet, edit: set(root, "artifact_version", "8"),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-true", fixture: fixtureDet, edit: set(root, "artifact_version", true),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-null", fixture: fixtureDet, edit: set(root, "artifact_version", nil),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "version-float-8", fixture: fixtureDet, edit: set(root, "artifact_version", 8.0),
			class: artefact.ErrUnsupportedVersion, pointer: "/artifact_version"},
		{name: "v1-relabelled-8", fixture: fixtureV1, edit: set(root, "artifact_version", int64(8)),
			class: artefact.ErrMissingField, pointer: ""},
		{name: "final-state-edited-digest-kept", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(d["final_state"])["reopen_count"] = int64(7)
		}, class: artefact.ErrDigestMismatch, pointer: "/final_state_digest_sha256"},
		{name: "trajectory-edited-digest-kept", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(row(d, 11)["outcome"])["rationale"] = "edited after hashing"
		}, class: artefact.ErrDigestMismatch, pointer: "/trajectory_digest_sha256"},
		{name: "decisions-edited-digest-kept", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(decision(d, 1)["outcome"])["rationale"] = "edited after hashing"
		}, class: artefact.ErrDigestMismatch, pointer: "/decisions_digest_sha256"},
		{name: "v1-trajectory-edited-digest-kept", fixture: fixtureV1, edit: func(_ testing.TB, d map[string]any) {
			row(d, 1)["code"] = "EDITED"
		}, class: artefact.ErrDigestMismatch, pointer: "/trajectory_digest_sha256"},
		{name: "retry-count-3", fixture: fixtureDet, edit: set(ex, "retry_count", int64(3)),
			class: artefact.ErrExecution, pointer: "/agent_execution/retry_count"},
		{name: "outcome-source-vibes", fixture: fixtureDet, edit: set(ex, "outcome_source", "vibes"),
			class: artefact.ErrUnknownValue, pointer: "/agent_execution/outcome_source"},
		{name: "exclusion-code-the-weather", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			execution(d)["excluded"] = true
			execution(d)["exclusion_code"] = "the_weather"
		}, class: artefact.ErrUnknownValue, pointer: "/agent_execution/exclusion_code"},
		{name: "missing-trajectory", fixture: fixtureDet, edit: del(root, "trajectory"),
			class: artefact.ErrMissingField, pointer: ""},
		{name: "retrieval-authority-vibes", fixture: fixtureDet, edit: resealed(set(rowAt(4), "authority", "vibes")),
			class: artefact.ErrUnknownValue, pointer: "/trajectory/4/authority"},
		{name: "retrieval-records-not-a-mapping", fixture: fixtureDet, edit: resealed(set(rowAt(4), "records", []any{"x"})),
			class: artefact.ErrBadField, pointer: "/trajectory/4/records"},
		{name: "retrieval-records-missing", fixture: fixtureDet, edit: resealed(del(rowAt(4), "records")),
			class: artefact.ErrRowShape, pointer: "/trajectory/4"},

		// ---- §11.15 contract-version specifics
		{name: "C4-v1-effect-accepted-given-bindings", fixture: fixtureV1, edit: resealed(set(rowAt(7), "bindings", map[string]any{})),
			class: artefact.ErrRowShape, pointer: "/trajectory/7"},
		{name: "C4-v1-wait-declared-without-reachable", fixture: fixtureV1, edit: resealed(del(rowAt(9), "reachable")),
			class: artefact.ErrRowShape, pointer: "/trajectory/9"},
		{name: "C5-v1-with-empty-decisions", fixture: fixtureV1, edit: set(root, "decisions", []any{}),
			class: artefact.ErrUnknownField, pointer: "/decisions"},
		{name: "C7-current-relabelled-1", fixture: fixtureDet, edit: set(root, "artifact_version", int64(1)),
			class: artefact.ErrUnknownField, pointer: "/agent_execution"},
		{name: "C7-current-relabelled-2", fixture: fixtureDet, edit: set(root, "artifact_version", int64(2)),
			class: artefact.ErrUnknownField, pointer: "/operation_instance_id"},
		{name: "C7-current-relabelled-3", fixture: fixtureDet, edit: set(root, "artifact_version", int64(3)),
			class: artefact.ErrUnknownField, pointer: "/operation_instance_id"},
		{name: "C8-effect-accepted-without-bindings", fixture: fixtureDet, edit: resealed(del(rowAt(15), "bindings")),
			class: artefact.ErrRowShape, pointer: "/trajectory/15"},
		{name: "C9-bindings-value-list", fixture: fixtureDet, edit: resealed(set(rowObject(146, "bindings"), "invoice_id", []any{"invoice_1"})),
			class: artefact.ErrBadField, pointer: "/trajectory/146/bindings/invoice_id"},
		{name: "C9-bindings-value-7", fixture: fixtureDet, edit: resealed(set(rowObject(146, "bindings"), "invoice_id", int64(7))),
			class: artefact.ErrBadField, pointer: "/trajectory/146/bindings/invoice_id"},
		{name: "C9-bindings-value-null", fixture: fixtureDet, edit: resealed(set(rowObject(146, "bindings"), "invoice_id", nil)),
			class: artefact.ErrBadField, pointer: "/trajectory/146/bindings/invoice_id"},
		{name: "C9-bindings-value-nested", fixture: fixtureDet, edit: resealed(set(rowObject(146, "bindings"), "invoice_id", map[string]any{"nested": "invoice_1"})),
			class: artefact.ErrBadField, pointer: "/trajectory/146/bindings/invoice_id"},
		{name: "C9-bindings-as-list", fixture: fixtureDet, edit: resealed(set(rowAt(146), "bindings", []any{"invoice_1"})),
			class: artefact.ErrBadField, pointer: "/trajectory/146/bindings"},

		// ---- further named refusals of this reader
		{name: "final-state-shape-refused-by-domain", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			m(d["final_state"])["injected"] = true
			upstreamtest.Reseal(t, d)
		}, class: artefact.ErrFinalState, pointer: "/final_state"},
		{name: "unknown-operation-type", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(d["operation"])["operation_type"] = "lettings.unknown"
		}, class: artefact.ErrUnknownOperationType, pointer: "/operation/operation_type"},
		{name: "expected-terminal-unknown", fixture: fixtureDet, edit: set(root, "expected_terminal", "vanished"),
			class: artefact.ErrUnknownValue, pointer: "/expected_terminal"},
		{name: "ended-before-started", fixture: fixtureDet, edit: set(root, "ended_at", "2031-03-03T08:59:59Z"),
			class: artefact.ErrOutOfOrder, pointer: "/ended_at"},
		{name: "instant-february-31", fixture: fixtureDet, edit: set(root, "started_at", "2031-02-31T09:00:00Z"),
			class: artefact.ErrBadField, pointer: "/started_at"},
		{name: "instant-not-padded", fixture: fixtureDet, edit: set(root, "started_at", "2031-3-3T9:0:0Z"),
			class: artefact.ErrBadField, pointer: "/started_at"},
		{name: "trajectory-index-moved", fixture: fixtureDet, edit: resealed(set(rowAt(5), "index", int64(6))),
			class: artefact.ErrOutOfOrder, pointer: "/trajectory/5/index"},
		{name: "trajectory-time-backwards", fixture: fixtureDet, edit: resealed(set(rowAt(20), "at", "2031-03-03T08:00:00Z")),
			class: artefact.ErrOutOfOrder, pointer: "/trajectory/20/at"},
		{name: "record-type-unknown", fixture: fixtureDet, edit: resealed(set(rowAt(1), "record_type", "event_imagined")),
			class: artefact.ErrUnknownValue, pointer: "/trajectory/1/record_type"},
		{name: "tape-order-moved", fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			ds := decisions(d)
			ds[2], ds[3] = ds[3], ds[2]
			upstreamtest.Reseal(t, d)
		}, class: artefact.ErrOutOfOrder, pointer: "/decisions/3"},
		{name: "tape-invocation-zero", fixture: fixtureDet, edit: resealed(set(decisionAt(0), "invocation_index", int64(0))),
			class: artefact.ErrOutOfOrder, pointer: "/decisions/0/invocation_index"},
		{name: "evaluation-reliable-beside-failure", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			ev := m(d["evaluation"])
			m(l(ev["dimensions"])[2])["ok"] = false
		}, class: artefact.ErrEvaluation, pointer: "/evaluation/failed_dimensions"},
		{name: "evaluation-finding-codes-invented", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(d["evaluation"])["finding_codes"] = []any{"NOTHING_FOUND"}
		}, class: artefact.ErrEvaluation, pointer: "/evaluation/finding_codes"},
		{name: "evaluation-reliable-flipped", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(d["evaluation"])["reliable"] = false
		}, class: artefact.ErrEvaluation, pointer: "/evaluation/reliable"},
		{name: "contract-8-finding-code-in-contract-7", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			d["artifact_version"] = int64(7)
			ev := m(d["evaluation"])
			dim := m(l(ev["dimensions"])[4])
			dim["findings"] = []any{map[string]any{"code": "REQUIRED_EVIDENCE_REF_NOT_CITED", "detail": "", "at": nil}}
			dim["ok"] = false
		}, class: artefact.ErrLaterContract, pointer: "/evaluation/dimensions/4/findings/0/code"},
		{name: "counter-negative", fixture: fixtureDet, edit: set(root, "simulated_minutes", int64(-1)),
			class: artefact.ErrBadField, pointer: "/simulated_minutes"},
		{name: "counter-boolean", fixture: fixtureDet, edit: set(root, "agent_invocations", true),
			class: artefact.ErrBadField, pointer: "/agent_invocations"},
		{name: "counter-float", fixture: fixtureDet, edit: set(root, "agent_invocations", 14.0),
			class: artefact.ErrBadField, pointer: "/agent_invocations"},
		{name: "dimension-note-boolean", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(l(m(d["evaluation"])["dimensions"])[2])["note"] = true
		}, class: artefact.ErrBadField, pointer: "/evaluation/dimensions/2/note"},
		{name: "instance-id-uppercase", fixture: fixtureDet, edit: set(root, "operation_instance_id", "opinst_0123456789ABCDEF0123456789abcdef"),
			class: artefact.ErrBadField, pointer: "/operation_instance_id"},
		{name: "operation-unknown-field", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(d["operation"])["owner"] = "someone"
		}, class: artefact.ErrUnknownField, pointer: "/operation/owner"},
		{name: "event-disposition-unknown", fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			m(l(d["events"])[0])["disposition"] = "ignored"
		}, class: artefact.ErrUnknownValue, pointer: "/events/0/disposition"},
		{name: "attempt-fault-unknown", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 0)["outcome"] = "failed"
			attempt(d, 0)["fault"] = "provider_tantrum"
		}, class: artefact.ErrUnknownValue, pointer: "/agent_execution/attempts/0/fault"},
		{name: "attempt-fault-without-failure", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			attempt(d, 0)["fault"] = "provider_transport"
		}, class: artefact.ErrExecution, pointer: "/agent_execution/attempts/0"},
		{name: "recorded-source-with-binding", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			d["agent_kind"] = "recorded"
			e := execution(d)
			e["outcome_source"] = "recorded"
			e["model"], e["protocol_version"], e["max_output_tokens"] = nil, nil, nil
			e["transport_calls"] = int64(0)
			e["attempts"] = []any{}
		}, class: artefact.ErrBindingUnexpected, pointer: "/provider_execution"},
		{name: "recorded-playback-reads", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			d["agent_kind"] = "recorded"
			e := execution(d)
			e["outcome_source"] = "recorded"
			e["model"], e["protocol_version"], e["max_output_tokens"] = nil, nil, nil
			e["transport_calls"] = int64(0)
			e["attempts"] = []any{}
			d["provider_execution"] = nil
		}},
		{name: "binding-protocol-not-reproducible", fixture: fixtureModel, edit: set(ex, "protocol_version", "operatebench.model.v3"),
			class: artefact.ErrBindingIncoherent, pointer: "/agent_execution/protocol_version"},
		{name: "binding-call-index-beyond-calls", fixture: fixtureModel, edit: func(_ testing.TB, d map[string]any) {
			l(binding(d)["decision_call_index"])[45] = int64(46)
		}, class: artefact.ErrBindingIncoherent, pointer: "/provider_execution/decision_call_index/45"},
		{name: "binding-zero-calls", fixture: fixtureModel, edit: set(pe, "provider_calls", int64(0)),
			class: artefact.ErrBadField, pointer: "/provider_execution/provider_calls"},
	}

	// X22: a model record labelled as any kind but "model".
	for _, kind := range []string{"reference", "negative", "recorded", "something_else"} {
		ms = append(ms, mutation{name: "X22-model-record-kind-" + kind, fixture: fixtureModel,
			edit: set(root, "agent_kind", kind), class: artefact.ErrRelabelled, pointer: "/agent_kind"})
	}
	// X30: an excluded execution, with each lifecycle fault, is refused.
	for _, fault := range artefact.Faults {
		ms = append(ms, mutation{name: "X30-excluded-" + fault, fixture: fixtureDet, edit: func(_ testing.TB, d map[string]any) {
			e := execution(d)
			e["excluded"] = true
			e["exclusion_code"] = fault
			e["exclusion_detail"] = "stopped at the provider boundary"
		}, class: artefact.ErrExcluded, pointer: "/agent_execution/excluded"})
	}
	// X33/X34: every decision kind, given an unknown field or missing each
	// of its fields; X37: every readable classification round-trips.
	for _, kind := range []string{"ACT", "WAIT", "ASK", "ESCALATE", "COMPLETE", "RETRIEVE", "MALFORMED"} {
		body := bodies[kind]
		ms = append(ms, mutation{name: "X33-reads-" + kind, fixture: fixtureDet, edit: setDecision0(body)})
		extra := canonClone(body)
		extra["provider_text"] = "I think the board needs replacing"
		ms = append(ms, mutation{name: "X33-" + kind + "-provider-text", fixture: fixtureDet, edit: setDecision0(extra),
			class: artefact.ErrUnknownField, pointer: "/decisions/0/outcome/provider_text"})
		for k := range body {
			if k == "kind" {
				continue
			}
			short := canonClone(body)
			delete(short, k)
			ms = append(ms, mutation{name: "X34-" + kind + "-missing-" + k, fixture: fixtureDet, edit: setDecision0(short),
				class: artefact.ErrMissingField, pointer: "/decisions/0/outcome"})
		}
	}
	for _, code := range artefact.Classifications {
		ms = append(ms, mutation{name: "X37-classification-" + code, fixture: fixtureDet,
			edit: setDecision0(map[string]any{"kind": "MALFORMED", "code": code})})
	}
	// X35: wrong shapes inside decision bodies.
	for _, w := range []struct {
		kind, field string
		value       any
		pointer     string
		class       *refusal.Refusal
	}{
		{"ACT", "action_type", "", "/action_type", artefact.ErrBadField},
		{"ACT", "payload", []any{}, "/payload", artefact.ErrBadField},
		{"ACT", "evidence_refs", "evidence_1", "/evidence_refs", artefact.ErrBadField},
		{"ACT", "rationale", int64(7), "/rationale", artefact.ErrBadField},
		{"WAIT", "wake_on", map[string]any{}, "/wake_on", artefact.ErrBadField},
		{"WAIT", "fallback_after_minutes", int64(0), "/fallback_after_minutes", artefact.ErrBadField},
		{"WAIT", "fallback_after_minutes", "later", "/fallback_after_minutes", artefact.ErrBadField},
		{"ASK", "recipient_actor_id", nil, "/recipient_actor_id", artefact.ErrBadField},
		{"ASK", "wait", bodies["ACT"], "/wait/kind", artefact.ErrUnknownValue},
		{"ESCALATE", "deadline_after_minutes", int64(-1), "/deadline_after_minutes", artefact.ErrBadField},
		{"ESCALATE", "exception_type", "", "/exception_type", artefact.ErrBadField},
		{"COMPLETE", "evidence_refs", []any{""}, "/evidence_refs/0", artefact.ErrBadField},
		{"MALFORMED", "code", "MODEL_INVENTED_BY_A_PROVIDER", "/code", artefact.ErrUnknownValue},
		{"RETRIEVE", "requests", []any{map[string]any{"tool": "get_case_record"}}, "/requests/0", artefact.ErrMissingField},
	} {
		body := canonClone(bodies[w.kind])
		body[w.field] = w.value
		ms = append(ms, mutation{name: fmt.Sprintf("X35-%s-%s-%v", w.kind, w.field, w.value), fixture: fixtureDet,
			edit: setDecision0(body), class: w.class, pointer: "/decisions/0/outcome" + w.pointer})
	}
	// X38: trajectory agent_outcome rows held to the same bodies.
	for _, w := range []struct {
		name    string
		row     int
		edit    func(map[string]any) map[string]any
		class   *refusal.Refusal
		pointer string
	}{
		{"act-provider-text", 11, func(o map[string]any) map[string]any { o["provider_text"] = "x"; return o }, artefact.ErrUnknownField, "/provider_text"},
		{"complete-confidence", 204, func(o map[string]any) map[string]any { o["confidence"] = int64(1); return o }, artefact.ErrUnknownField, "/confidence"},
		{"kind-improvise", 11, func(o map[string]any) map[string]any { o["kind"] = "IMPROVISE"; return o }, artefact.ErrUnknownValue, "/kind"},
		{"bare-act", 11, func(map[string]any) map[string]any { return map[string]any{"kind": "ACT"} }, artefact.ErrMissingField, ""},
		{"payload-list", 11, func(o map[string]any) map[string]any { o["payload"] = []any{}; return o }, artefact.ErrBadField, "/payload"},
		{"evidence-refs-string", 11, func(o map[string]any) map[string]any { o["evidence_refs"] = "e"; return o }, artefact.ErrBadField, "/evidence_refs"},
		{"malformed-invented", 11, func(map[string]any) map[string]any {
			return map[string]any{"kind": "MALFORMED", "code": "MODEL_INVENTED"}
		}, artefact.ErrUnknownValue, "/code"},
	} {
		ms = append(ms, mutation{name: "X38-row-" + w.name, fixture: fixtureDet, edit: func(t testing.TB, d map[string]any) {
			r := row(d, w.row)
			r["outcome"] = w.edit(m(r["outcome"]))
			upstreamtest.Reseal(t, d)
		}, class: w.class, pointer: fmt.Sprintf("/trajectory/%d/outcome%s", w.row, w.pointer)})
	}
	// C6: the current run projected to contracts 1-4 (fields only dropped)
	// still carries retrieval rows no build of those contracts wrote.
	for v := 1; v <= 4; v++ {
		ms = append(ms, mutation{name: fmt.Sprintf("C6-projected-to-v%d", v), fixture: fixtureDet, edit: project(v),
			class: artefact.ErrLaterContract, pointer: "/trajectory/3"})
	}
	return ms
}

// TestMutations runs the adversarial catalogue: each named mutation of a
// real upstream artefact is refused with its class and pointer, or accepted.
func TestMutations(t *testing.T) {
	base := map[string]map[string]any{}
	names := map[string]bool{}
	for _, mu := range mutations() {
		if names[mu.name] {
			t.Fatalf("mutation name %q used twice", mu.name)
		}
		names[mu.name] = true
		t.Run(mu.name, func(t *testing.T) {
			if base[mu.fixture] == nil {
				base[mu.fixture] = tree(t, mu.fixture)
			}
			d := artefact.Clone(base[mu.fixture]).(map[string]any)
			mu.edit(t, d)
			_, err := artefact.Validate(d, testOptions())
			if mu.class == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want accepted", err)
				}
				return
			}
			if !isClass(err, mu.class) {
				c, _ := refusal.ClassOf(err)
				t.Fatalf("Validate class = %q (%v), want %q", c, err, mu.class.Class)
			}
			if p, ok := artefact.Pointer(err); !ok || p != mu.pointer {
				t.Fatalf("Pointer = %q (%v), want %q", p, ok, mu.pointer)
			}
		})
	}
}

// Nesting deeper than 64 containers is refused by the reader before
// anything is validated.
func TestReadRefusesDeepNesting(t *testing.T) {
	b := upstreamtest.Read(t, fixtureDet)
	deep := strings.Repeat("[", 65) + strings.Repeat("]", 65)
	mutated := strings.Replace(string(b), `"provider_execution":null`, `"provider_execution":`+deep, 1)
	if mutated == string(b) {
		t.Fatal("fixture has no null binding to replace")
	}
	if _, err := artefact.Read([]byte(mutated), testOptions()); string(refusal.Of(err)) != canon.ErrTooDeep.Class {
		t.Fatalf("Read(depth 65) = %v, want %s", err, canon.ErrTooDeep.Class)
	}
	dup := strings.Replace(string(b), `"provider_execution":null`, `"provider_execution":null,"note":"x"`, 1)
	if _, err := artefact.Read([]byte(dup), testOptions()); string(refusal.Of(err)) != canon.ErrDuplicateKey.Class {
		t.Fatalf("Read(duplicate key) = %v, want %s", err, canon.ErrDuplicateKey.Class)
	}
}

// With no domain registered the reader fails closed.
func TestZeroOptionsFailClosed(t *testing.T) {
	_, err := artefact.Validate(tree(t, fixtureDet), artefact.Options{})
	if !isClass(err, artefact.ErrUnknownOperationType) {
		t.Fatalf("Validate with zero Options = %v, want %s", err, artefact.ErrUnknownOperationType.Class)
	}
}

// A domain's own refusal class survives inside ErrFinalState.
func TestFinalStateKeepsDomainCause(t *testing.T) {
	d := tree(t, fixtureDet)
	m(d["final_state"])["injected"] = true
	upstreamtest.Reseal(t, d)
	_, err := artefact.Validate(d, testOptions())
	if !errors.Is(err, errStateShape) || !isClass(err, artefact.ErrFinalState) {
		t.Fatalf("Validate = %v, want %s wrapping the domain's error", err, artefact.ErrFinalState.Class)
	}
}

// Contract 1 is read but never reproduced; contract 8 is reproducible.
func TestReproducible(t *testing.T) {
	for v := artefact.OldestVersion; v <= artefact.Version; v++ {
		if got := artefact.Reproducible(v); got != (v == 8) {
			t.Errorf("Reproducible(%d) = %v", v, got)
		}
	}
}
