package openai

import (
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/provider"
)

// Request identity of this build.
const (
	// ProtocolVersion is the model protocol every request names: the one
	// protocol a bound, reproducible model artefact may carry.
	ProtocolVersion = "operatebench.model.v4"
	// RequestMapping names how an observation becomes a Responses request
	// body in this build (the tools, the instructions, the fields sent).
	// Moving anything in that mapping is a new name.
	RequestMapping = "obaudit_openai_responses_request_v1"
	// Implementation names this agent in the ledger header.
	Implementation = "obaudit_openai_responses_agent"
	// SDK names the HTTP client the agent speaks through: Go's net/http,
	// no vendor SDK.
	SDK = "go_net_http"
	// API is the provider API this agent speaks.
	API = "responses"
	// ProviderName is the provider this agent speaks to.
	ProviderName = "openai"
	// ResponsesPath is appended to the base URL's path.
	ResponsesPath = "/responses"
	// ToolChoice is the tool choice every request sends.
	ToolChoice = "required"
)

// Instructions is the fixed system text every request carries. It names no
// domain: the observation carries everything the case needs.
const Instructions = "You operate one business case that stays open across many invocations. " +
	"The user message is the current observation, as canonical JSON. " +
	"Answer with exactly one function call: act, wait, ask, escalate, complete, or retrieve."

// ToolNames are the functions offered, in the order they are sent.
var ToolNames = []string{"act", "wait", "ask", "escalate", "complete", "retrieve"}

// FieldsSent are the request body's top-level fields, sorted.
var FieldsSent = []string{"input", "instructions", "max_output_tokens", "model", "parallel_tool_calls", "store", "tool_choice", "tools"}

// toolKinds maps a function name to the decision kind it produces.
var toolKinds = map[string]string{
	"act": engine.KindAct, "wait": engine.KindWait, "ask": engine.KindAsk,
	"escalate": engine.KindEscalate, "complete": engine.KindComplete, "retrieve": engine.KindRetrieve,
}

// toolArguments are the exact argument names each function takes (every
// one required; nullable ones are stated as null).
var toolArguments = map[string][]string{
	"act":      {"action_type", "evidence_refs", "payload", "rationale"},
	"wait":     {"fallback_after_minutes", "reason", "wake_on"},
	"ask":      {"correlation_id", "message_fixture_id", "recipient_actor_id", "wait"},
	"escalate": {"checkpoint_id", "deadline_after_minutes", "evidence_refs", "exception_type", "rationale"},
	"complete": {"evidence_refs", "reason"},
	"retrieve": {"requests"},
}

func schemaObject(props map[string]any, required []string) map[string]any {
	req := make([]any, len(required))
	for i, r := range required {
		req[i] = r
	}
	return map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
}

var (
	str       = map[string]any{"type": "string"}
	strList   = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	anyObject = map[string]any{"type": "object"}
	posInt    = map[string]any{"type": "integer", "minimum": int64(1)}
)

func waitSchema() map[string]any {
	return schemaObject(map[string]any{
		"reason": str, "wake_on": strList,
		"fallback_after_minutes": map[string]any{"type": []any{"integer", "null"}, "minimum": int64(1)},
	}, toolArguments["wait"])
}

// Tools returns the function tools every request offers, in [ToolNames]
// order: one per decision kind, whose arguments are the decision's tape
// fields without its kind.
func Tools() []any {
	desc := map[string]string{
		"act":      "Propose one authorised business action.",
		"wait":     "Wait for a declared event, a fallback deadline in minutes, or both.",
		"ask":      "Send a message fixture to an actor, then wait.",
		"escalate": "Open a typed exception checkpoint for a human.",
		"complete": "Propose the guarded terminal transition.",
		"retrieve": "Read published records before deciding.",
	}
	params := map[string]map[string]any{
		"act": schemaObject(map[string]any{
			"action_type": str, "payload": anyObject, "evidence_refs": strList, "rationale": str,
		}, toolArguments["act"]),
		"wait": waitSchema(),
		"ask": schemaObject(map[string]any{
			"recipient_actor_id": str, "message_fixture_id": str,
			"correlation_id": map[string]any{"type": []any{"string", "null"}}, "wait": waitSchema(),
		}, toolArguments["ask"]),
		"escalate": schemaObject(map[string]any{
			"checkpoint_id": str, "exception_type": str, "evidence_refs": strList,
			"deadline_after_minutes": posInt, "rationale": str,
		}, toolArguments["escalate"]),
		"complete": schemaObject(map[string]any{"reason": str, "evidence_refs": strList}, toolArguments["complete"]),
		"retrieve": schemaObject(map[string]any{
			"requests": map[string]any{"type": "array", "items": schemaObject(map[string]any{"tool": str, "arguments": anyObject}, []string{"arguments", "tool"})},
		}, toolArguments["retrieve"]),
	}
	out := make([]any, len(ToolNames))
	for i, n := range ToolNames {
		out[i] = map[string]any{"type": "function", "name": n, "description": desc[n], "parameters": params[n], "strict": false}
	}
	return out
}

// Profile is what a request is made under: the model and the output
// ceiling. Together with the protocol, the tools and the observation it is
// the request's identity.
type Profile struct {
	Model           string
	MaxOutputTokens int64
}

// Request is one built request: its identity digests, the provider payload
// and the exact body bytes that are sent.
type Request struct {
	InvocationIndex, TurnIndex int64
	// ObservationDigest is the engine's observation_digest_sha256 (the
	// model projection's canonical digest).
	ObservationDigest string
	// PromptDigest is the digest of {protocol_version, tools, observation}.
	PromptDigest string
	// RequestDigest is the request identity: {model, protocol_version,
	// max_output_tokens, tool_names, observation_digest_sha256,
	// prompt_digest_sha256, invocation_index, turn_index}. The rendered
	// prompt is not inside it.
	RequestDigest string
	// PayloadDigest is the canonical digest of the payload mapping.
	PayloadDigest string
	// Body is the payload's upstream canonical JSON: the bytes sent.
	Body []byte
	// InputTokenUpperBound is len(Body) plus the overhead allowance.
	InputTokenUpperBound int64
}

// BuildRequest builds the request the agent sends for one observation. The
// observation travels as the user message's text: the canonical JSON of
// its model projection, the same bytes its digest is taken over.
func BuildRequest(obs *engine.Observation, p Profile) (*Request, error) {
	projection := obs.ProjectionJSON()
	observation, err := canon.Parse(projection)
	if err != nil {
		return nil, err
	}
	tools := Tools()
	prompt, err := canon.UpstreamDigest(map[string]any{
		"protocol_version": ProtocolVersion, "tools": tools, "observation": observation,
	})
	if err != nil {
		return nil, err
	}
	r := &Request{
		InvocationIndex: int64(obs.InvocationIndex), TurnIndex: int64(obs.TurnIndex),
		ObservationDigest: canon.SHA256Hex(projection), PromptDigest: prompt,
	}
	if r.RequestDigest, err = RequestDigest(p, r.ObservationDigest, r.PromptDigest, r.InvocationIndex, r.TurnIndex); err != nil {
		return nil, err
	}
	payload := map[string]any{
		"model":        p.Model,
		"instructions": Instructions,
		"input": []any{map[string]any{
			"role": "user", "content": string(projection),
		}},
		"tools":               tools,
		"tool_choice":         ToolChoice,
		"parallel_tool_calls": false,
		"max_output_tokens":   p.MaxOutputTokens,
		"store":               false,
	}
	if r.Body, err = canon.Upstream(payload); err != nil {
		return nil, err
	}
	r.PayloadDigest = canon.SHA256Hex(r.Body)
	r.InputTokenUpperBound = int64(len(r.Body)) + provider.RequestOverheadTokenAllowance
	return r, nil
}

// RequestDigest is the request identity digest (spec §2.10): what this
// build pins about a request, not the bytes that carried it.
func RequestDigest(p Profile, observationDigest, promptDigest string, invocation, turn int64) (string, error) {
	names := make([]any, len(ToolNames))
	for i, n := range ToolNames {
		names[i] = n
	}
	return canon.UpstreamDigest(map[string]any{
		"model": p.Model, "protocol_version": ProtocolVersion, "max_output_tokens": p.MaxOutputTokens,
		"tool_names": names, "observation_digest_sha256": observationDigest,
		"prompt_digest_sha256": promptDigest, "invocation_index": invocation, "turn_index": turn,
	})
}

// Settings is the header's provider settings mapping: every choice the
// request mapping makes that is not the observation. Its digest is the
// ledger's settings_digest_sha256 and the binding's.
func Settings(p Profile, baseURL, sdkVersion string, turnDeadlineSeconds float64) map[string]any {
	sent := make([]any, len(FieldsSent))
	for i, f := range FieldsSent {
		sent[i] = f
	}
	names := make([]any, len(ToolNames))
	for i, n := range ToolNames {
		names[i] = n
	}
	return map[string]any{
		"api": API, "base_url": baseURL, "model": p.Model, "max_output_tokens": p.MaxOutputTokens,
		"protocol_version": ProtocolVersion, "request_mapping": RequestMapping,
		"request_fields_sent": sent, "tool_names": names, "tool_choice": ToolChoice,
		"tool_strict_mode": false, "parallel_tool_calls": false, "store": false,
		"response_contract": "exactly_one_tool_call",
		"retry":             map[string]any{"max_attempts": int64(1), "initial_backoff_seconds": 0.0, "backoff_multiplier": 1.0},
		"redirects":         "refused", "proxy": "none", "keep_alive": false,
		"sdk": SDK, "sdk_version": sdkVersion, "turn_deadline_seconds": turnDeadlineSeconds,
	}
}
