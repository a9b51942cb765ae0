// Package anthropic is the Anthropic Messages lane ([lane.Lane]): POST
// {base}/messages with headers x-api-key (the credential) and
// anthropic-version 2023-06-01, and a body of model, max_tokens, the
// instructions as system, the observation as the one user message, the six
// tools (name, description, input_schema: always an object root) and
// tool_choice {"type": "any", "disable_parallel_tool_use": true}. A
// profile decides thinking, temperature, top_p and top_k (sent with a
// fixed value, e.g. thinking {"type": "disabled"}, or omitted).
//
// An answer is a message object ("type": "message", "role": "assistant")
// naming the pinned model, stop_reason tool_use or end_turn (completed) or
// max_tokens (truncated), whose tool_use content blocks are the tool calls
// (text blocks are read for nothing), and whose usage states input_tokens
// and output_tokens.
//
// Errors: 529 overloaded_error and every 5xx are provider_server_error,
// 429 rate_limit_error provider_rate_limited (retry-after is not read:
// one attempt per call). A 400 is classified by a closed taxonomy, since
// Anthropic documents 400 for invalid requests and spend limits alike: the
// exact allowlisted spend-limit sentence ([SpendLimitMessage]) is
// provider_spend_limit, any other structured invalid_request_error is
// provider_invalid_request_or_spend_limit, anything else is
// provider_bad_request_unclassified. No error text is ever recorded.
package anthropic

import (
	"net/http"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/lane"
)

// Identity of this lane.
const (
	ID             = "anthropic-messages"
	API            = "messages"
	ProviderName   = "anthropic"
	Implementation = "obaudit_anthropic_messages_agent"
	RequestMapping = "obaudit_anthropic_messages_request_v1"
	MessagesPath   = "/messages"
	// Version is the anthropic-version header every request sends.
	Version = "2023-06-01"
)

// SpendLimitMessage is the one 400 invalid_request_error message this
// build reads as a spend limit (matched whole, never by pattern).
const SpendLimitMessage = "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."

// Lane is the Anthropic Messages lane.
var Lane lane.Lane = messages{lane.Spec{
	Name: ID, APIName: API, ProviderNames: []string{ProviderName}, Adapter: Implementation,
	Mapping: RequestMapping, URLPath: MessagesPath,
	Mapped:   []string{"max_tokens", "messages", "model", "system", "tool_choice", "tools"},
	Optional: []string{"temperature", "thinking", "top_k", "top_p"},
}}

type messages struct{ lane.Spec }

func toolChoice() map[string]any {
	return map[string]any{"type": "any", "disable_parallel_tool_use": true}
}

func (messages) Settings() map[string]any {
	return map[string]any{"tool_choice": toolChoice(), "anthropic_version": Version, "input_schema_root": "object"}
}

func (messages) Headers(h http.Header, credential string) {
	h.Set("anthropic-version", Version)
	if credential != "" {
		h.Set("x-api-key", credential)
	}
}

func (messages) Payload(p lane.Profile, pr lane.Prompt) map[string]any {
	tools := make([]any, len(pr.Tools))
	for i, t := range pr.Tools {
		tools[i] = map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters}
	}
	return map[string]any{
		"model":       p.Model,
		"max_tokens":  p.MaxOutputTokens,
		"system":      pr.Instructions,
		"messages":    []any{map[string]any{"role": "user", "content": pr.User}},
		"tools":       tools,
		"tool_choice": toolChoice(),
	}
}

func (messages) StatusFault(status int, body []byte) string {
	if status != http.StatusBadRequest {
		return lane.StatusFault(status)
	}
	v, err := canon.Parse(body)
	m, _ := v.(map[string]any)
	if err != nil || m == nil || m["type"] != "error" {
		return lane.FaultBadRequestUnclassified
	}
	e, _ := m["error"].(map[string]any)
	msg, ok := e["message"].(string)
	if e == nil || e["type"] != "invalid_request_error" || !ok {
		return lane.FaultBadRequestUnclassified
	}
	if msg == SpendLimitMessage {
		return lane.FaultSpendLimit
	}
	return lane.FaultInvalidRequestOrSpendLimit
}

// ParseAnswer reads a 200 body as a Messages answer from model ("" takes
// any stated model).
func (messages) ParseAnswer(body []byte, model string) (*lane.Answer, error) {
	m, a, err := lane.ReadAnswer(body, model, "type", "message")
	if err != nil {
		return nil, err
	}
	if m["role"] != "assistant" {
		return nil, lane.ErrNotAnAnswer
	}
	var ok bool
	if a.Stop, ok = lane.StopOf(m["stop_reason"], "max_tokens", "tool_use", "end_turn"); !ok {
		return nil, lane.ErrNotAnAnswer
	}
	uses, err := lane.Items(m["content"], "tool_use")
	if err != nil {
		return nil, err
	}
	for _, it := range uses {
		args := lane.ObjectArguments(it["input"])
		if _, isObject := it["input"].(map[string]any); !isObject {
			args = "arguments_undecodable"
		}
		a.AddCall(it["name"], args)
	}
	return a.WithUsage(m["usage"], "input_tokens", "output_tokens")
}
