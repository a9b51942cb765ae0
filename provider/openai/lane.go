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
var Lane lane.Lane = responses{lane.Spec{
	Name: ID, APIName: API, ProviderNames: []string{ProviderName}, Adapter: Implementation,
	Mapping: RequestMapping, URLPath: ResponsesPath,
	Mapped: []string{"input", "instructions", "max_output_tokens", "model", "parallel_tool_calls", "store", "tool_choice", "tools"},
	// The reasoning object and the two sampling parameters the Responses
	// API documents.
	Optional: []string{"reasoning", "temperature", "top_p"},
}}

type responses struct{ lane.Spec }

func (responses) Settings() map[string]any {
	return map[string]any{"tool_choice": ToolChoice, "tool_strict_mode": false, "parallel_tool_calls": false, "store": false}
}

func (responses) Headers(h http.Header, credential string) { lane.BearerAuth(h, credential) }

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
	m, a, err := lane.ReadAnswer(body, model, "object", "response")
	if err != nil {
		return nil, err
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
	calls, err := lane.Items(m["output"], "function_call")
	if err != nil {
		return nil, err
	}
	for _, it := range calls {
		a.AddCall(it["name"], lane.StringArguments(it["arguments"]))
	}
	return a.WithUsage(m["usage"], "input_tokens", "output_tokens")
}
