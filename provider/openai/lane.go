package openai

import (
	"net/http"

	"github.com/obaudit/obaudit/provider/lane"
)

// Identity of this lane.
const (
	ID             = "openai-responses"
	API            = "responses"
	ProviderName   = "openai"
	Implementation = "obaudit_openai_responses_agent"
	// RequestMapping names how a prompt becomes a Responses body in this
	// build (the tools, the instructions, the fields sent).
	RequestMapping = "obaudit_openai_responses_request_v1"
	ResponsesPath  = "/responses"
	ToolChoice     = "required"
)

// Lane is the OpenAI Responses lane.
var Lane lane.Lane = responses{}

type responses struct{}

func (responses) ID() string             { return ID }
func (responses) API() string            { return API }
func (responses) Providers() []string    { return []string{ProviderName} }
func (responses) Implementation() string { return Implementation }
func (responses) RequestMapping() string { return RequestMapping }
func (responses) Path() string           { return ResponsesPath }
func (responses) MappingFields() []string {
	return []string{"input", "instructions", "max_output_tokens", "model", "parallel_tool_calls", "store", "tool_choice", "tools"}
}

// OptionalFields: the reasoning object and the two sampling parameters the
// Responses API documents.
func (responses) OptionalFields() []string { return []string{"reasoning", "temperature", "top_p"} }

func (responses) Settings() map[string]any {
	return map[string]any{"tool_choice": ToolChoice, "tool_strict_mode": false, "parallel_tool_calls": false, "store": false}
}

func (responses) Headers(h http.Header, credential string) {
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
}

func (responses) Payload(p lane.Profile, pr lane.Prompt) map[string]any {
	tools := make([]any, len(pr.Tools))
	for i, t := range pr.Tools {
		tools[i] = map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Parameters, "strict": false}
	}
	return map[string]any{
		"model":               p.Model,
		"instructions":        pr.Instructions,
		"input":               []any{map[string]any{"role": "user", "content": pr.User}},
		"tools":               tools,
		"tool_choice":         ToolChoice,
		"parallel_tool_calls": false,
		"max_output_tokens":   p.MaxOutputTokens,
		"store":               false,
	}
}

func (responses) StatusFault(status int, _ []byte) string { return lane.StatusFault(status) }

// ParseAnswer reads a 200 body as an answer from model ("" takes any
// stated model). A body that is not one strict JSON object, is not a
// response object, names another model, has a status other than completed
// (or incomplete at the output ceiling), or whose output or usage is
// malformed is declined.
func (responses) ParseAnswer(body []byte, model string) (*lane.Answer, error) {
	m, a, err := lane.ReadAnswer(body, model)
	if err != nil {
		return nil, err
	}
	if m["object"] != "response" {
		return nil, lane.ErrNotAnAnswer
	}
	switch m["status"] {
	case "completed":
		a.Stop = lane.StopCompleted
	case "incomplete":
		d, _ := m["incomplete_details"].(map[string]any)
		if d == nil || d["reason"] != "max_output_tokens" {
			return nil, lane.ErrNotAnAnswer
		}
		a.Stop = lane.StopMaxTokens
	default:
		return nil, lane.ErrNotAnAnswer
	}
	output, ok := m["output"].([]any)
	if !ok {
		return nil, lane.ErrNotAnAnswer
	}
	for _, item := range output {
		it, ok := item.(map[string]any)
		if !ok {
			return nil, lane.ErrNotAnAnswer
		}
		if it["type"] != "function_call" {
			continue
		}
		a.AddCall(it["name"], lane.StringArguments(it["arguments"]))
	}
	if a.UsageReported, a.InputTokens, a.OutputTokens, err = lane.Usage(m["usage"], "input_tokens", "output_tokens"); err != nil {
		return nil, err
	}
	return a, nil
}
