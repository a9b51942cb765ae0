package lane_test

import (
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/refusal"
)

// body renders a Responses answer with the given output items.
func body(t *testing.T, m map[string]any) []byte {
	t.Helper()
	base := map[string]any{
		"id": "resp_1", "object": "response", "model": model, "status": "completed",
		"output": []any{}, "usage": map[string]any{"input_tokens": int64(10), "output_tokens": int64(2)},
	}
	for k, v := range m {
		if v == nil {
			delete(base, k)
			continue
		}
		base[k] = v
	}
	b, err := canon.Upstream(base)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func call(name string, args any) map[string]any {
	text := args
	if m, ok := args.(map[string]any); ok {
		b, _ := canon.Upstream(m)
		text = string(b)
	}
	return map[string]any{"type": "function_call", "name": name, "arguments": text, "call_id": "c", "id": "fc", "status": "completed"}
}

func TestParseAnswerDeclines(t *testing.T) {
	cases := map[string][]byte{
		"not json":          []byte(`{"id": "resp", "object": "response", "output": [`),
		"not an object":     []byte(`[]`),
		"not a response":    body(t, map[string]any{"object": "chat.completion"}),
		"no id":             body(t, map[string]any{"id": int64(7)}),
		"another model":     body(t, map[string]any{"model": "gpt-not-the-pinned-model"}),
		"failed status":     body(t, map[string]any{"status": "failed"}),
		"other incomplete":  body(t, map[string]any{"status": "incomplete", "incomplete_details": map[string]any{"reason": "content_filter"}}),
		"output not a list": body(t, map[string]any{"output": "x"}),
		"item not object":   body(t, map[string]any{"output": []any{"x"}}),
		"usage malformed":   body(t, map[string]any{"usage": map[string]any{"input_tokens": "10", "output_tokens": int64(1)}}),
		"usage negative":    body(t, map[string]any{"usage": map[string]any{"input_tokens": int64(-1), "output_tokens": int64(1)}}),
		"duplicate key":     []byte(`{"id":"a","id":"b","object":"response","model":"gpt-5.6-luna","status":"completed","output":[]}`),
	}
	for name, b := range cases {
		if a, err := openai.Lane.ParseAnswer(b, model); err == nil {
			t.Errorf("%s: accepted as %+v", name, a)
		}
	}
}

func TestDecisionClassification(t *testing.T) {
	act := map[string]any{"action_type": "send_message", "payload": map[string]any{}, "evidence_refs": []any{}, "rationale": "r"}
	withExtra := map[string]any{"action_type": "send_message", "payload": map[string]any{}, "evidence_refs": []any{}, "rationale": "r", "provider_text": "x"}
	cases := []struct {
		name string
		body []byte
		kind string
		code string
	}{
		{"one act", body(t, map[string]any{"output": []any{call("act", act)}}), decision.KindAct, ""},
		{"text only", body(t, map[string]any{"output": []any{map[string]any{"type": "message", "content": []any{}}}}), decision.KindMalformed, lane.CodeNoToolCall},
		{"two calls", body(t, map[string]any{"output": []any{call("act", act), call("act", act)}}), decision.KindMalformed, lane.CodeMultipleToolCalls},
		{"unknown tool", body(t, map[string]any{"output": []any{call("transfer_funds", act)}}), decision.KindMalformed, lane.CodeUnknownTool},
		{"name not a string", body(t, map[string]any{"output": []any{map[string]any{"type": "function_call", "name": int64(3), "arguments": "{}"}}}), decision.KindMalformed, lane.CodeUnknownTool},
		{"invented argument", body(t, map[string]any{"output": []any{call("act", withExtra)}}), decision.KindMalformed, lane.CodeMalformedArgs},
		{"missing argument", body(t, map[string]any{"output": []any{call("complete", map[string]any{"reason": "done"})}}), decision.KindMalformed, lane.CodeMalformedArgs},
		{"undecodable arguments", body(t, map[string]any{"output": []any{call("act", "{not json")}}), decision.KindMalformed, lane.CodeMalformedArgs},
		{"wrong type", body(t, map[string]any{"output": []any{call("act", map[string]any{"action_type": "x", "payload": []any{}, "evidence_refs": []any{}, "rationale": "r"})}}), decision.KindMalformed, lane.CodeMalformedArgs},
		{"ask with kinded wait", body(t, map[string]any{"output": []any{call("ask", map[string]any{"recipient_actor_id": "a", "message_fixture_id": "m", "correlation_id": nil,
			"wait": map[string]any{"kind": "WAIT", "reason": "r", "wake_on": []any{"e"}, "fallback_after_minutes": nil}})}}), decision.KindMalformed, lane.CodeMalformedArgs},
		{"truncated", body(t, map[string]any{"status": "incomplete", "incomplete_details": map[string]any{"reason": "max_output_tokens"}, "output": []any{call("act", act)}}), decision.KindMalformed, lane.CodeOutputTruncated},
	}
	for _, c := range cases {
		a, err := openai.Lane.ParseAnswer(c.body, model)
		if err != nil {
			t.Errorf("%s: declined: %v", c.name, err)
			continue
		}
		d := a.Decision()
		if d.Kind() != c.kind {
			t.Errorf("%s: kind %s, want %s", c.name, d.Kind(), c.kind)
			continue
		}
		if m, ok := d.(*engine.Malformed); ok && m.Code != c.code {
			t.Errorf("%s: code %s, want %s", c.name, m.Code, c.code)
		}
		if c.kind == decision.KindMalformed {
			if _, err := a.NormalizedDigest(); err != nil {
				t.Errorf("%s: normalized digest: %v", c.name, err)
			}
		}
	}
}

// TestNormalizedDigest is R13: the digest moves with an argument value and
// not with the order of argument keys.
func TestNormalizedDigest(t *testing.T) {
	digest := func(args string) string {
		b := body(t, map[string]any{"output": []any{map[string]any{"type": "function_call", "name": "complete", "arguments": args}}})
		a, err := openai.Lane.ParseAnswer(b, model)
		if err != nil {
			t.Fatal(err)
		}
		d, err := a.NormalizedDigest()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	a := digest(`{"reason": "done", "evidence_refs": ["x"]}`)
	if b := digest(`{"evidence_refs": ["x"], "reason": "done"}`); a != b {
		t.Error("re-ordered argument keys changed the normalized digest")
	}
	if c := digest(`{"reason": "done!", "evidence_refs": ["x"]}`); a == c {
		t.Error("a different argument value kept the normalized digest")
	}
	if d := digest(`{"reason": "done", "evidence_refs": ["x"]`); a == d {
		t.Error("undecodable arguments hashed as decodable ones")
	}
}

func TestStatusFault(t *testing.T) {
	want := map[int]string{
		429: lane.FaultRateLimited, 500: lane.FaultServerError, 503: lane.FaultServerError,
		408: lane.FaultTimeout, 401: lane.FaultAuthentication, 403: lane.FaultAuthentication,
		404: lane.FaultConfiguration, 307: lane.FaultConfiguration, 400: lane.FaultRequestRejected,
		422: lane.FaultRequestRejected, 204: lane.FaultResponseInvalid,
	}
	for status, f := range want {
		if got := lane.StatusFault(status); got != f {
			t.Errorf("HTTP %d: %s, want %s", status, got, f)
		}
	}
	for _, f := range []string{lane.FaultRateLimited, lane.FaultServerError, lane.FaultTimeout, lane.FaultNetwork} {
		if !lane.Retryable(f) {
			t.Errorf("%s is retryable", f)
		}
	}
	for _, f := range []string{lane.FaultResponseInvalid, lane.FaultAuthentication, lane.FaultRequestRejected, lane.FaultConfiguration} {
		if lane.Retryable(f) {
			t.Errorf("%s is not retryable", f)
		}
	}
}

func TestParseBaseURL(t *testing.T) {
	for _, s := range []string{"https://127.0.0.1:8443/v1", "https://api.openai.com/v1", "https://localhost"} {
		if _, err := lane.ParseBaseURL(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"http://127.0.0.1/v1", "https://user:pw@127.0.0.1/v1", "https://127.0.0.1/v1?x=1", "https://127.0.0.1/v1#f", "https:///v1", "ftp://x", "%%"} {
		_, err := lane.ParseBaseURL(s)
		if refusal.Of(err) != lane.ErrEndpoint.Class {
			t.Errorf("%s: %v, want %s", s, err, lane.ErrEndpoint.Class)
		}
	}
	if c, _ := refusal.ClassOf(func() error { _, err := lane.ParseBaseURL("http://x"); return err }()); c != "provider/endpoint" {
		t.Errorf("class %q", c)
	}
}
