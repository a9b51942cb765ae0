package preflight

import (
	"fmt"
	"net/http"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/chatcompletions"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
)

// Vendor is the server side of one lane's wire format, written from the
// vendor's API reference independently of the lane's client code: where
// the request's user message is, how the credential travels, what an
// answer and an error look like.
type Vendor interface {
	// Lane is the client lane this vendor answers.
	Lane() lane.Lane
	// Authenticated reports whether h carries credential in the vendor's
	// header (and any header the vendor requires beside it).
	Authenticated(h http.Header, credential string) bool
	// UserMessage is the text of the request's one user message.
	UserMessage(req map[string]any) (string, bool)
	// Answer is the vendor's 200 body stating one call of name with args,
	// ending at stop (lane.StopCompleted or lane.StopMaxTokens), with the
	// scripted usage and a piece of free text beside the call.
	Answer(n int, model, name string, args map[string]any, stop string) map[string]any
	// Error is the vendor's error body of type typ.
	Error(status int, typ, message string) map[string]any
	// Fault is the status, headers and body of an error cell.
	Fault(f Fault) (int, map[string]string, any)
	// Cells are the fault cells this vendor's preflight runs.
	Cells() []Fault
}

// VendorFor returns the vendor of lane id.
func VendorFor(id string) (Vendor, bool) {
	v, ok := map[string]Vendor{openai.ID: openAIVendor{}, anthropic.ID: anthropicVendor{}, chatcompletions.ID: chatVendor{}}[id]
	return v, ok
}

var commonCells = []Fault{Fault429, Fault500, Fault400, FaultOverloaded, FaultInvalidBody, FaultWrongModel, FaultTruncated, FaultStreamCut, FaultTransport}

func argumentsText(args map[string]any) string {
	b, _ := canon.Upstream(args)
	return string(b)
}

func prose(what string) string { return ProseMarker + ": " + what }

// lastContent is the text content of a request's last message, when msgs
// is a list of exactly len(roles) messages with those roles in order.
func lastContent(msgs any, roles ...string) (string, bool) {
	list, _ := msgs.([]any)
	if len(list) != len(roles) {
		return "", false
	}
	var m map[string]any
	for i, role := range roles {
		if m, _ = list[i].(map[string]any); m["role"] != role {
			return "", false
		}
	}
	s, ok := m["content"].(string)
	return s, ok
}

// openAIError is the error object the OpenAI APIs (and the compatible
// Chat Completions servers) return: {"error": {message, type, param, code}}.
func openAIError(typ, message string, code any) map[string]any {
	return map[string]any{"error": map[string]any{"message": prose(message), "type": typ, "param": nil, "code": code}}
}

// openAIShaped is what the two OpenAI-shaped vendors (Responses and the
// compatible Chat Completions) share: the common cells, the bearer
// credential, the error object and the fault answers.
type openAIShaped struct{}

func (openAIShaped) Cells() []Fault { return commonCells }
func (openAIShaped) Authenticated(h http.Header, c string) bool {
	return h.Get("Authorization") == "Bearer "+c
}
func (openAIShaped) Error(_ int, typ, message string) map[string]any {
	return openAIError(typ, message, nil)
}
func (openAIShaped) Fault(f Fault) (int, map[string]string, any) {
	switch f {
	case Fault429:
		return http.StatusTooManyRequests, map[string]string{"Retry-After": "20"}, openAIError("requests", "rate limit reached", "rate_limit_exceeded")
	case Fault500:
		return http.StatusInternalServerError, nil, openAIError("server_error", "the server had an error", nil)
	case FaultOverloaded:
		return http.StatusServiceUnavailable, nil, openAIError("server_error", "the engine is currently overloaded", nil)
	}
	// Fault400, and the answer to a diverged episode.
	return http.StatusBadRequest, nil, openAIError("invalid_request_error", "invalid request", "invalid_value")
}

// openAIVendor is the Responses API.
type openAIVendor struct{ openAIShaped }

func (openAIVendor) Lane() lane.Lane { return openai.Lane }
func (openAIVendor) UserMessage(req map[string]any) (string, bool) {
	return lastContent(req["input"], "user")
}
func (openAIVendor) Answer(n int, model, name string, args map[string]any, stop string) map[string]any {
	status, details := "completed", any(nil)
	if stop == lane.StopMaxTokens {
		status, details = "incomplete", map[string]any{"reason": "max_output_tokens"}
	}
	return map[string]any{
		"id": fmt.Sprintf("resp_preflight_%03d", n), "object": "response", "created_at": int64(1),
		"model": model, "status": status, "incomplete_details": details,
		"output": []any{
			map[string]any{"type": "message", "id": fmt.Sprintf("msg_preflight_%03d", n), "role": "assistant", "status": "completed",
				"content": []any{map[string]any{"type": "output_text", "text": prose("deciding"), "annotations": []any{}}}},
			map[string]any{
				"type": "function_call", "id": fmt.Sprintf("fc_preflight_%03d", n), "call_id": fmt.Sprintf("call_preflight_%03d", n),
				"name": name, "arguments": argumentsText(args), "status": "completed",
			}},
		"parallel_tool_calls": false, "tool_choice": openai.ToolChoice, "tools": []any{},
		"usage": map[string]any{
			"input_tokens": int64(ScriptedInputTokens), "output_tokens": int64(ScriptedOutputTokens),
			"total_tokens": int64(ScriptedInputTokens + ScriptedOutputTokens),
		},
	}
}

// chatVendor is the OpenAI-compatible Chat Completions surface.
type chatVendor struct{ openAIShaped }

func (chatVendor) Lane() lane.Lane { return chatcompletions.Lane }
func (chatVendor) UserMessage(req map[string]any) (string, bool) {
	return lastContent(req["messages"], "system", "user")
}
func (chatVendor) Answer(n int, model, name string, args map[string]any, stop string) map[string]any {
	finish := "tool_calls"
	if stop == lane.StopMaxTokens {
		finish = "length"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-preflight-%03d", n), "object": "chat.completion", "created": int64(1), "model": model,
		"choices": []any{map[string]any{
			"index": int64(0), "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": prose("deciding"), "tool_calls": []any{map[string]any{
				"id": fmt.Sprintf("call_preflight_%03d", n), "type": "function",
				"function": map[string]any{"name": name, "arguments": argumentsText(args)},
			}}},
		}},
		"usage": map[string]any{
			"prompt_tokens": int64(ScriptedInputTokens), "completion_tokens": int64(ScriptedOutputTokens),
			"total_tokens": int64(ScriptedInputTokens + ScriptedOutputTokens),
		},
	}
}

// anthropicVendor is the Messages API.
type anthropicVendor struct{}

func (anthropicVendor) Lane() lane.Lane { return anthropic.Lane }
func (anthropicVendor) Cells() []Fault {
	return append([]Fault{Fault429, Fault500, Fault400, FaultOverloaded, FaultSpendLimit}, commonCells[4:]...)
}
func (anthropicVendor) Authenticated(h http.Header, c string) bool {
	return h.Get("x-api-key") == c && h.Get("anthropic-version") == anthropic.Version && h.Get("Authorization") == ""
}
func (anthropicVendor) UserMessage(req map[string]any) (string, bool) {
	return lastContent(req["messages"], "user")
}
func (anthropicVendor) Answer(n int, model, name string, args map[string]any, stop string) map[string]any {
	reason := "tool_use"
	if stop == lane.StopMaxTokens {
		reason = "max_tokens"
	}
	return map[string]any{
		"id": fmt.Sprintf("msg_preflight_%03d", n), "type": "message", "role": "assistant", "model": model,
		"content": []any{
			map[string]any{"type": "text", "text": prose("deciding")},
			map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_preflight_%03d", n), "name": name, "input": args},
		},
		"stop_reason": reason, "stop_sequence": nil,
		"usage": map[string]any{
			"input_tokens": int64(ScriptedInputTokens), "output_tokens": int64(ScriptedOutputTokens),
			"cache_creation_input_tokens": int64(0), "cache_read_input_tokens": int64(0),
		},
	}
}

// Error is Anthropic's {"type": "error", "error": {type, message}}.
func (anthropicVendor) Error(_ int, typ, message string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": prose(message)}}
}
func (v anthropicVendor) Fault(f Fault) (int, map[string]string, any) {
	switch f {
	case Fault429:
		return http.StatusTooManyRequests, map[string]string{"retry-after": "20"}, v.Error(429, "rate_limit_error", "rate limited")
	case Fault500:
		return http.StatusInternalServerError, nil, v.Error(500, "api_error", "internal error")
	case FaultOverloaded:
		return 529, nil, v.Error(529, "overloaded_error", "overloaded")
	case FaultSpendLimit:
		return http.StatusBadRequest, nil, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": anthropic.SpendLimitMessage}}
	}
	return http.StatusBadRequest, nil, v.Error(400, "invalid_request_error", "invalid request")
}
