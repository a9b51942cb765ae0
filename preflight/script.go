package preflight

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/openai"
)

// Fault names a fault cell: what the scripted provider answers on the
// fault request instead of the reference decision.
type Fault string

// Fault cells.
const (
	// FaultNone runs the reference cell: every request is answered.
	FaultNone Fault = "none"
	// Fault429 answers HTTP 429 (provider_rate_limited).
	Fault429 Fault = "429"
	// Fault500 answers HTTP 500 (provider_server_error).
	Fault500 Fault = "500"
	// FaultInvalidBody answers HTTP 200 with a body that is not one JSON
	// object (provider_response_invalid).
	FaultInvalidBody Fault = "invalid-body"
	// FaultWrongModel answers HTTP 200 with a well-formed answer naming a
	// model other than the pinned one (provider_response_invalid).
	FaultWrongModel Fault = "wrong-model"
	// FaultTransport closes the connection without answering
	// (provider_network_error, no response received).
	FaultTransport Fault = "transport"
)

// Faults lists every cell, in the order the CLI documents them.
var Faults = []Fault{FaultNone, Fault429, Fault500, FaultInvalidBody, FaultWrongModel, FaultTransport}

// Scripted answers of the reference cell.
const (
	// ScriptedInputTokens and ScriptedOutputTokens are the usage every
	// scripted answer reports (upstream's scripted values).
	ScriptedInputTokens  = 4211
	ScriptedOutputTokens = 118
	// WrongModel is the model the wrong-model cell's answer names.
	WrongModel = "gpt-not-the-pinned-model"
)

// Script is the in-process scripted provider: an [http.Handler] for POST
// {base}/responses that answers each request with the reference agent's
// decision for the observation the request carries, as one function call.
//
// It is primed with the reference agent's decision tape for the same
// operation instance. Request n must carry, as its user message, the
// observation of tape entry n: the same invocation and turn, and the same
// observation digest recomputed from the request body alone. A request
// that does not (or that names another model, carries another
// Authorization value, or comes after the bound) is refused with an HTTP
// error and counted in [Script.Refused]. On request FaultAt (1-based) the
// configured fault is answered instead.
type Script struct {
	// Model is the pinned model; Authorization is the fixed value the
	// agent sends.
	Model, Authorization string
	// Tape is the reference run's decision tape (engine.Episode.Decisions).
	Tape []any
	// Fault and FaultAt select the fault cell.
	Fault   Fault
	FaultAt int
	// MaxRequests is the script's own bound: request MaxRequests+1 is
	// refused (HTTP 503) rather than answered.
	MaxRequests int64
	// Latency is slept before each answer (zero: none).
	Latency time.Duration

	mu      sync.Mutex
	bodies  []string
	answers []string
	refused int
}

// Requests is the number of requests received.
func (s *Script) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.bodies)
}

// AnswerDigests are, per request received, the normalized-response digest
// of the answer the script sent ("" where it sent no answer: a fault or a
// refusal).
func (s *Script) AnswerDigests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.answers...)
}

// Refused is the number of requests the script refused to answer.
func (s *Script) Refused() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// BodyDigests are the SHA-256 digests of the request bodies received, in
// arrival order.
func (s *Script) BodyDigests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.bodies...)
}

func (s *Script) refuse(w http.ResponseWriter, status int, why string) {
	s.refused++
	writeJSON(w, status, map[string]any{"error": map[string]any{"type": "scripted_provider_refusal", "message": why}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := canon.Upstream(v)
	if err != nil {
		http.Error(w, "unencodable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// ServeHTTP implements [http.Handler].
func (s *Script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if s.Latency > 0 {
		time.Sleep(s.Latency)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bodies = append(s.bodies, canon.SHA256Hex(body))
	s.answers = append(s.answers, "")
	n := len(s.bodies)
	switch {
	case err != nil:
		s.refuse(w, http.StatusBadRequest, "unreadable body")
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1"+openai.ResponsesPath:
		s.refuse(w, http.StatusNotFound, "not the responses endpoint")
		return
	case r.Header.Get("Authorization") != s.Authorization:
		s.refuse(w, http.StatusUnauthorized, "not the fixed preflight Authorization value")
		return
	case int64(n) > s.MaxRequests:
		s.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("request %d passes the script's bound of %d", n, s.MaxRequests))
		return
	}
	if s.Fault != FaultNone && n == s.FaultAt {
		s.fault(w, n)
		return
	}
	name, args, why := s.answerFor(body, n)
	if why != "" {
		s.refuse(w, http.StatusConflict, why)
		return
	}
	resp := s.response(n, s.Model, name, args)
	if b, err := canon.Upstream(resp); err == nil {
		if a, err := openai.ParseAnswer(b, s.Model); err == nil {
			s.answers[n-1], _ = a.NormalizedDigest()
		}
	}
	writeJSON(w, http.StatusOK, resp)
}

// answerFor finds the reference decision for request n and checks that
// the request carries the observation it was made from.
func (s *Script) answerFor(body []byte, n int) (string, map[string]any, string) {
	v, err := canon.Parse(body)
	if err != nil {
		return "", nil, "the request body is not JSON"
	}
	req, _ := v.(map[string]any)
	if req["model"] != s.Model {
		return "", nil, "the request names another model"
	}
	input, _ := req["input"].([]any)
	if len(input) != 1 {
		return "", nil, "the request carries no single user message"
	}
	msg, _ := input[0].(map[string]any)
	content, _ := msg["content"].(string)
	obs, err := canon.Parse([]byte(content))
	if err != nil {
		return "", nil, "the user message is not an observation"
	}
	om, _ := obs.(map[string]any)
	digest, err := canon.UpstreamDigest(obs)
	if err != nil || om == nil {
		return "", nil, "the user message is not an observation"
	}
	if n > len(s.Tape) {
		return "", nil, fmt.Sprintf("request %d asks past the reference tape of %d decisions", n, len(s.Tape))
	}
	entry, _ := s.Tape[n-1].(map[string]any)
	if entry["invocation_index"] != om["invocation_index"] || entry["turn_index"] != om["turn_index"] {
		return "", nil, fmt.Sprintf("request %d is invocation %v turn %v; the reference decided invocation %v turn %v next", n, om["invocation_index"], om["turn_index"], entry["invocation_index"], entry["turn_index"])
	}
	if entry["observation_digest_sha256"] != digest {
		return "", nil, fmt.Sprintf("request %d carries an observation the reference did not decide from", n)
	}
	outcome, _ := entry["outcome"].(map[string]any)
	name, args, ok := openai.Arguments(outcome)
	if !ok {
		return "", nil, "the reference decision has no function-call form"
	}
	return name, args, ""
}

func (s *Script) response(n int, model, name string, args map[string]any) map[string]any {
	text, _ := canon.Upstream(args)
	return map[string]any{
		"id": fmt.Sprintf("resp_preflight_%03d", n), "object": "response", "created_at": int64(1),
		"model": model, "status": "completed", "incomplete_details": nil,
		"output": []any{map[string]any{
			"type": "function_call", "id": fmt.Sprintf("fc_preflight_%03d", n), "call_id": fmt.Sprintf("call_preflight_%03d", n),
			"name": name, "arguments": string(text), "status": "completed",
		}},
		"parallel_tool_calls": false, "tool_choice": openai.ToolChoice, "tools": []any{},
		"usage": map[string]any{
			"input_tokens": int64(ScriptedInputTokens), "output_tokens": int64(ScriptedOutputTokens),
			"total_tokens": int64(ScriptedInputTokens + ScriptedOutputTokens),
		},
	}
}

func (s *Script) fault(w http.ResponseWriter, n int) {
	switch s.Fault {
	case Fault429:
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"error": map[string]any{"message": "scripted rate limit", "type": "rate_limit"}})
	case Fault500:
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]any{"message": "scripted server error", "type": "server_error"}})
	case FaultInvalidBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"id": "resp_preflight", "object": "response", "output": [`))
	case FaultWrongModel:
		writeJSON(w, http.StatusOK, s.response(n, WrongModel, "complete", map[string]any{"reason": "scripted", "evidence_refs": []any{}}))
	case FaultTransport:
		hj, ok := w.(http.Hijacker)
		if !ok {
			panic(http.ErrAbortHandler)
		}
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
	}
}
