package chatcompletions_test

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/chatcompletions"
	"github.com/obaudit/obaudit/provider/lane"
)

const model = "mistral-small-2603"

func completion(t *testing.T, edit func(m, choice, msg map[string]any)) []byte {
	t.Helper()
	msg := map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": "call_1", "type": "function", "function": map[string]any{"name": "complete", "arguments": `{"reason":"r","evidence_refs":[]}`},
	}}}
	choice := map[string]any{"index": int64(0), "finish_reason": "tool_calls", "message": msg}
	m := map[string]any{
		"id": "c1", "object": "chat.completion", "created": int64(1), "model": model, "choices": []any{choice},
		"usage": map[string]any{"prompt_tokens": int64(10), "completion_tokens": int64(2), "total_tokens": int64(12)},
	}
	if edit != nil {
		edit(m, choice, msg)
	}
	b, err := canon.Upstream(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAnswer(t *testing.T) {
	a, err := chatcompletions.Lane.ParseAnswer(completion(t, nil), model)
	if err != nil || a.Stop != lane.StopCompleted || len(a.ToolCalls) != 1 || a.InputTokens != 10 || a.OutputTokens != 2 || a.Decision().Kind() != "COMPLETE" {
		t.Fatalf("%+v %v", a, err)
	}
	trunc, err := chatcompletions.Lane.ParseAnswer(completion(t, func(_, c, _ map[string]any) { c["finish_reason"] = "length" }), model)
	if err != nil || trunc.Decision().Record()["code"] != lane.CodeOutputTruncated {
		t.Errorf("length: %+v %v", trunc, err)
	}
	none, err := chatcompletions.Lane.ParseAnswer(completion(t, func(_, c, msg map[string]any) {
		c["finish_reason"] = "stop"
		delete(msg, "tool_calls")
		msg["content"] = "prose only"
	}), model)
	if err != nil || none.Decision().Record()["code"] != lane.CodeNoToolCall {
		t.Errorf("no tool call: %v", err)
	}
	bad, _ := chatcompletions.Lane.ParseAnswer(completion(t, func(_, _, msg map[string]any) {
		msg["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)["arguments"] = "{not json"
	}), model)
	if bad.Decision().Record()["code"] != lane.CodeMalformedArgs {
		t.Errorf("bad arguments read as %v", bad.Decision().Record())
	}
	for name, edit := range map[string]func(m, c, msg map[string]any){
		"another model":    func(m, _, _ map[string]any) { m["model"] = "mistral-small-latest" },
		"not a completion": func(m, _, _ map[string]any) { m["object"] = "chat.completion.chunk" },
		"two choices":      func(m, c, _ map[string]any) { m["choices"] = []any{c, c} },
		"filtered":         func(_, c, _ map[string]any) { c["finish_reason"] = "content_filter" },
		"not assistant":    func(_, _, msg map[string]any) { msg["role"] = "tool" },
		"calls an object":  func(_, _, msg map[string]any) { msg["tool_calls"] = map[string]any{} },
		"usage a string":   func(m, _, _ map[string]any) { m["usage"] = "12" },
	} {
		if _, err := chatcompletions.Lane.ParseAnswer(completion(t, edit), model); err != lane.ErrNotAnAnswer {
			t.Errorf("%s: %v", name, err)
		}
	}
}
