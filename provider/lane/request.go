package lane

import (
	"maps"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/provider"
)

// ProtocolVersion is the model protocol every request of every lane names:
// the one protocol a bound, reproducible model artefact may carry.
const ProtocolVersion = "operatebench.model.v4"

// SDK names the HTTP client every lane speaks through: Go's net/http, no
// vendor SDK.
const SDK = "go_net_http"

// Instructions is the fixed system text every request carries. It names no
// domain: the observation carries everything the case needs.
const Instructions = "You operate one business case that stays open across many invocations. " +
	"The user message is the current observation, as canonical JSON. " +
	"Answer with exactly one function call: act, wait, ask, escalate, complete, or retrieve."

// ToolNames are the functions offered, in the order they are sent.
var ToolNames = []string{"act", "wait", "ask", "escalate", "complete", "retrieve"}

// toolKinds maps a function name to the decision kind it produces.
var toolKinds = map[string]string{
	"act": decision.KindAct, "wait": decision.KindWait, "ask": decision.KindAsk,
	"escalate": decision.KindEscalate, "complete": decision.KindComplete, "retrieve": decision.KindRetrieve,
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
	return map[string]any{"type": "object", "properties": props, "required": canon.StringList(required), "additionalProperties": false}
}

// ToolSpec is one function a request offers, in lane-neutral form: each
// lane renders it in its vendor's tool shape.
type ToolSpec struct {
	Name, Description string
	// Parameters is the JSON Schema of the arguments: always an object root
	// with no root oneOf/anyOf/allOf (nested unions stay nested).
	Parameters map[string]any
}

// ToolSpecs returns the functions every request offers, in [ToolNames]
// order: one per decision kind, whose arguments are the decision's tape
// fields without its kind.
func ToolSpecs() []ToolSpec {
	str := map[string]any{"type": "string"}
	strList := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	anyObject := map[string]any{"type": "object"}
	posInt := map[string]any{"type": "integer", "minimum": int64(1)}
	waitSchema := func() map[string]any {
		return schemaObject(map[string]any{
			"reason": str, "wake_on": strList,
			"fallback_after_minutes": map[string]any{"type": []any{"integer", "null"}, "minimum": int64(1)},
		}, toolArguments["wait"])
	}
	specs := map[string]ToolSpec{
		"act": {Description: "Propose one authorised business action.", Parameters: schemaObject(map[string]any{
			"action_type": str, "payload": anyObject, "evidence_refs": strList, "rationale": str,
		}, toolArguments["act"])},
		"wait": {Description: "Wait for a declared event, a fallback deadline in minutes, or both.", Parameters: waitSchema()},
		"ask": {Description: "Send a message fixture to an actor, then wait.", Parameters: schemaObject(map[string]any{
			"recipient_actor_id": str, "message_fixture_id": str,
			"correlation_id": map[string]any{"type": []any{"string", "null"}}, "wait": waitSchema(),
		}, toolArguments["ask"])},
		"escalate": {Description: "Open a typed exception checkpoint for a human.", Parameters: schemaObject(map[string]any{
			"checkpoint_id": str, "exception_type": str, "evidence_refs": strList,
			"deadline_after_minutes": posInt, "rationale": str,
		}, toolArguments["escalate"])},
		"complete": {Description: "Propose the guarded terminal transition.", Parameters: schemaObject(map[string]any{"reason": str, "evidence_refs": strList}, toolArguments["complete"])},
		"retrieve": {Description: "Read published records before deciding.", Parameters: schemaObject(map[string]any{
			"requests": map[string]any{"type": "array", "items": schemaObject(map[string]any{"tool": str, "arguments": anyObject}, []string{"arguments", "tool"})},
		}, toolArguments["retrieve"])},
	}
	out := make([]ToolSpec, len(ToolNames))
	for i, n := range ToolNames {
		out[i] = specs[n]
		out[i].Name = n
	}
	return out
}

// Tools is the protocol's tool list the prompt digest is taken over (every
// lane's: the digest names what was offered, not how a vendor spells it).
func Tools() []any {
	specs := ToolSpecs()
	out := make([]any, len(specs))
	for i, s := range specs {
		out[i] = map[string]any{"type": "function", "name": s.Name, "description": s.Description, "parameters": s.Parameters, "strict": false}
	}
	return out
}

// Prompt is what a lane renders into a request body: the fixed
// instructions, the observation as the user message's text, and the tools.
type Prompt struct {
	Instructions string
	// User is the canonical JSON of the observation's model projection.
	User  string
	Tools []ToolSpec
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
	// prompt and the lane are not inside it (the lane is the settings').
	RequestDigest string
	// PayloadDigest is the canonical digest of the payload mapping.
	PayloadDigest string
	// Body is the payload's upstream canonical JSON: the bytes sent.
	Body []byte
	// InputTokenUpperBound is len(Body) plus the overhead allowance.
	InputTokenUpperBound int64
}

// Identity is a request's identity digests for one observation under p:
// everything [BuildRequest] states but the body (what a replay rebuilds).
func Identity(obs *engine.Observation, p Profile) (*Request, error) {
	projection := obs.ProjectionJSON()
	observation, err := canon.Parse(projection)
	if err != nil {
		return nil, err
	}
	prompt, err := canon.UpstreamDigest(map[string]any{
		"protocol_version": ProtocolVersion, "tools": Tools(), "observation": observation,
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
	return r, nil
}

// BuildRequest builds the request l sends for one observation under p. The
// observation travels as the user message's text: the canonical JSON of
// its model projection, the same bytes its digest is taken over.
func BuildRequest(l Lane, obs *engine.Observation, p Profile) (*Request, error) {
	r, err := Identity(obs, p)
	if err != nil {
		return nil, err
	}
	payload := l.Payload(p, Prompt{Instructions: Instructions, User: string(obs.ProjectionJSON()), Tools: ToolSpecs()})
	maps.Copy(payload, p.Send)
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
	return canon.UpstreamDigest(map[string]any{
		"model": p.Model, "protocol_version": ProtocolVersion, "max_output_tokens": p.MaxOutputTokens,
		"tool_names": canon.StringList(ToolNames), "observation_digest_sha256": observationDigest,
		"prompt_digest_sha256": promptDigest, "invocation_index": invocation, "turn_index": turn,
	})
}
