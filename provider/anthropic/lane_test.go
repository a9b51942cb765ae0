package anthropic_test

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/lane"
)

const model = "claude-haiku-4-5-20251001"

func message(t *testing.T, edit func(map[string]any)) []byte {
	t.Helper()
	m := map[string]any{
		"id": "msg_1", "type": "message", "role": "assistant", "model": model,
		"content": []any{
			map[string]any{"type": "text", "text": "thinking aloud"},
			map[string]any{"type": "tool_use", "id": "toolu_1", "name": "complete", "input": map[string]any{"reason": "r", "evidence_refs": []any{}}},
		},
		"stop_reason": "tool_use", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": int64(10), "output_tokens": int64(2)},
	}
	if edit != nil {
		edit(m)
	}
	b, err := canon.Upstream(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAnswer(t *testing.T) {
	a, err := anthropic.Lane.ParseAnswer(message(t, nil), model)
	if err != nil || a.Stop != lane.StopCompleted || len(a.ToolCalls) != 1 || !a.UsageReported || a.InputTokens != 10 || a.OutputTokens != 2 {
		t.Fatalf("%+v %v", a, err)
	}
	if d := a.Decision(); d.Kind() != "COMPLETE" {
		t.Errorf("decision %v", d.Record())
	}
	trunc, err := anthropic.Lane.ParseAnswer(message(t, func(m map[string]any) { m["stop_reason"] = "max_tokens" }), model)
	if err != nil || trunc.Stop != lane.StopMaxTokens || trunc.Decision().Record()["code"] != lane.CodeOutputTruncated {
		t.Errorf("max_tokens: %+v %v", trunc, err)
	}
	notObject, _ := anthropic.Lane.ParseAnswer(message(t, func(m map[string]any) {
		m["content"] = []any{map[string]any{"type": "tool_use", "name": "complete", "input": "not an object"}}
	}), model)
	if notObject.Decision().Record()["code"] != lane.CodeMalformedArgs {
		t.Errorf("string input read as %v", notObject.Decision().Record())
	}
	for name, edit := range map[string]func(map[string]any){
		"another model":  func(m map[string]any) { m["model"] = "claude-haiku-4-5" },
		"a prefix model": func(m map[string]any) { m["model"] = model + "-x" },
		"no model":       func(m map[string]any) { delete(m, "model") },
		"not a message":  func(m map[string]any) { m["type"] = "error" },
		"refusal":        func(m map[string]any) { m["stop_reason"] = "refusal" },
		"pause":          func(m map[string]any) { m["stop_reason"] = "pause_turn" },
		"usage half":     func(m map[string]any) { m["usage"] = map[string]any{"input_tokens": int64(1)} },
		"usage negative": func(m map[string]any) {
			m["usage"] = map[string]any{"input_tokens": int64(-1), "output_tokens": int64(1)}
		},
		"content a string": func(m map[string]any) { m["content"] = "x" },
	} {
		if _, err := anthropic.Lane.ParseAnswer(message(t, edit), model); err != lane.ErrNotAnAnswer {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := anthropic.Lane.ParseAnswer([]byte(`{"type": "message", "content": [`), model); err != lane.ErrNotAnAnswer {
		t.Errorf("a cut body: %v", err)
	}
}

// TestStatusFault: Anthropic's closed 400 taxonomy and its other statuses.
func TestStatusFault(t *testing.T) {
	body := func(typ, msg string) []byte {
		b, _ := canon.Upstream(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
		return b
	}
	for _, c := range []struct {
		status int
		body   []byte
		want   string
	}{
		{400, body("invalid_request_error", anthropic.SpendLimitMessage), lane.FaultSpendLimit},
		{400, body("invalid_request_error", anthropic.SpendLimitMessage+" "), lane.FaultInvalidRequestOrSpendLimit},
		{400, body("invalid_request_error", "max_tokens: must be positive"), lane.FaultInvalidRequestOrSpendLimit},
		{400, body("api_error", anthropic.SpendLimitMessage), lane.FaultBadRequestUnclassified},
		{400, []byte("not json"), lane.FaultBadRequestUnclassified},
		{400, []byte(`{"error": {"type": "invalid_request_error", "message": "x"}}`), lane.FaultBadRequestUnclassified},
		{429, body("rate_limit_error", "x"), lane.FaultRateLimited},
		{529, body("overloaded_error", "x"), lane.FaultServerError},
		{500, body("api_error", "x"), lane.FaultServerError},
		{401, body("authentication_error", "x"), lane.FaultAuthentication},
		{403, body("permission_error", "x"), lane.FaultAuthentication},
		{404, body("not_found_error", "x"), lane.FaultConfiguration},
		{413, body("request_too_large", "x"), lane.FaultRequestRejected},
	} {
		if got := anthropic.Lane.StatusFault(c.status, c.body); got != c.want {
			t.Errorf("%d %s: %s, want %s", c.status, c.body, got, c.want)
		}
	}
}
