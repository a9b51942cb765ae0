// Package chatcompletions is the OpenAI-compatible Chat Completions lane
// ([lane.Lane]) that xAI and Mistral document (and vLLM, llama.cpp's
// server and Ollama serve): POST {base}/chat/completions with
// "Authorization: Bearer" (the credential) and a body of model, the
// instructions as the system message and the observation as the user
// message, the six tools ({"type": "function", "function": {name,
// description, parameters}}), tool_choice "required", parallel_tool_calls
// false and max_tokens. A profile decides temperature, top_p and
// reasoning_effort (sent with a fixed value or omitted): the sampling and
// reasoning fields xAI and Mistral both document under those names (a
// seed is spelled seed by one and random_seed by the other, so this lane
// sends neither). tool_choice "required" is in both references.
//
// It is its own adapter identity (implementation
// obaudit_openai_compat_chat_completions_agent, api chat_completions, the
// profile's provider), so a run through a compatibility layer is never read
// as one through a vendor's own client. An answer is a chat.completion
// object naming the pinned model with exactly one choice whose message's
// tool_calls are the tool calls; finish_reason stop or tool_calls is
// completed and length is truncated; usage states prompt_tokens and
// completion_tokens.
package chatcompletions

import (
	"net/http"

	"github.com/obaudit/obaudit/provider/lane"
)

// Identity of this lane.
const (
	ID              = "chat-completions"
	API             = "chat_completions"
	Implementation  = "obaudit_openai_compat_chat_completions_agent"
	RequestMapping  = "obaudit_chat_completions_request_v1"
	CompletionsPath = "/chat/completions"
	ToolChoice      = "required"
)

// Lane is the Chat Completions lane.
var Lane lane.Lane = completions{lane.Spec{
	Name: ID, APIName: API, Adapter: Implementation, Mapping: RequestMapping, URLPath: CompletionsPath,
	// The providers the artefact contract binds to this API.
	ProviderNames: []string{"mistral", "xai"},
	Mapped:        []string{"max_tokens", "messages", "model", "parallel_tool_calls", "tool_choice", "tools"},
	Optional:      []string{"reasoning_effort", "temperature", "top_p"},
}}

type completions struct{ lane.Spec }

func (completions) Settings() map[string]any {
	return map[string]any{"tool_choice": ToolChoice, "parallel_tool_calls": false, "api_compatibility": "openai_compatible"}
}

func (completions) Headers(h http.Header, credential string) { lane.BearerAuth(h, credential) }

func (completions) Payload(p lane.Profile, pr lane.Prompt) map[string]any {
	tools := make([]any, len(pr.Tools))
	for i, t := range pr.Tools {
		tools[i] = map[string]any{"type": "function", "function": map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters}}
	}
	return map[string]any{
		"model": p.Model,
		"messages": []any{
			map[string]any{"role": "system", "content": pr.Instructions},
			map[string]any{"role": "user", "content": pr.User},
		},
		"tools":               tools,
		"tool_choice":         ToolChoice,
		"parallel_tool_calls": false,
		"max_tokens":          p.MaxOutputTokens,
	}
}

func (completions) StatusFault(status int, _ []byte) string { return lane.StatusFault(status) }

// ParseAnswer reads a 200 body as a chat completion from model ("" takes
// any stated model).
func (completions) ParseAnswer(body []byte, model string) (*lane.Answer, error) {
	m, a, err := lane.ReadAnswer(body, model, "object", "chat.completion")
	if err != nil {
		return nil, err
	}
	choices, ok := m["choices"].([]any)
	if !ok || len(choices) != 1 {
		return nil, lane.ErrNotAnAnswer
	}
	choice, _ := choices[0].(map[string]any)
	msg, _ := choice["message"].(map[string]any)
	if choice == nil || msg == nil || msg["role"] != "assistant" {
		return nil, lane.ErrNotAnAnswer
	}
	if a.Stop, ok = lane.StopOf(choice["finish_reason"], "length", "stop", "tool_calls"); !ok {
		return nil, lane.ErrNotAnAnswer
	}
	switch calls := msg["tool_calls"].(type) {
	case nil:
	case []any:
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			fn, _ := cm["function"].(map[string]any)
			if cm == nil || fn == nil || cm["type"] != "function" {
				return nil, lane.ErrNotAnAnswer
			}
			a.AddCall(fn["name"], lane.StringArguments(fn["arguments"]))
		}
	default:
		return nil, lane.ErrNotAnAnswer
	}
	return a.WithUsage(m["usage"], "prompt_tokens", "completion_tokens")
}
