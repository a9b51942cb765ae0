package preflight

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/provider/lane"
)

// Fault names a fault cell: what the scripted provider answers on the
// fault request instead of the reference decision, in the lane's
// vendor's documented wire shape.
type Fault string

// Fault cells.
const (
	// FaultNone runs the reference cell: every request is answered.
	FaultNone Fault = "none"
	// Fault429 answers HTTP 429 with a retry-after header and the vendor's
	// rate-limit error body (provider_rate_limited).
	Fault429 Fault = "429"
	// Fault500 answers HTTP 500 with the vendor's server-error body
	// (provider_server_error).
	Fault500 Fault = "500"
	// Fault400 answers HTTP 400 with the vendor's request-validation error
	// body (provider_request_rejected; the Anthropic lane's taxonomy reads
	// it as provider_invalid_request_or_spend_limit).
	Fault400 Fault = "400"
	// FaultOverloaded answers the vendor's overloaded error: Anthropic's 529
	// overloaded_error, 503 elsewhere (provider_server_error).
	FaultOverloaded Fault = "overloaded"
	// FaultSpendLimit answers Anthropic's 400 whose message is the exact
	// spend-limit sentence (provider_spend_limit). Anthropic lane only.
	FaultSpendLimit Fault = "spend-limit"
	// FaultInvalidBody answers HTTP 200 with a body that is not one JSON
	// object (provider_response_invalid).
	FaultInvalidBody Fault = "invalid-body"
	// FaultWrongModel answers HTTP 200 with a well-formed answer naming a
	// model other than the pinned one (provider_response_invalid).
	FaultWrongModel Fault = "wrong-model"
	// FaultTruncated answers with the reference call cut off at the output
	// ceiling (the vendor's max-tokens stop): the agent classifies it
	// MODEL_OUTPUT_TRUNCATED, the episode diverges from the reference, and
	// the script answers the next request with the vendor's 400 validation
	// error (it has no reference decision for a diverged episode).
	FaultTruncated Fault = "truncated"
	// FaultStreamCut sends the 200 headers and half the answer, then closes
	// the connection (provider_network_error, a response received).
	FaultStreamCut Fault = "stream-cut"
	// FaultTransport closes the connection without answering
	// (provider_network_error, no response received).
	FaultTransport Fault = "transport"
)

// Faults lists every cell, in the order the CLI documents them.
var Faults = []Fault{FaultNone, Fault429, Fault500, Fault400, FaultOverloaded, FaultSpendLimit, FaultInvalidBody, FaultWrongModel, FaultTruncated, FaultStreamCut, FaultTransport}

// Scripted answers of the reference cell.
const (
	// ScriptedInputTokens and ScriptedOutputTokens are the usage every
	// scripted answer reports (upstream's scripted values).
	ScriptedInputTokens  = 4211
	ScriptedOutputTokens = 118
	// WrongModel is the model the wrong-model cell's answer names.
	WrongModel = "gpt-not-the-pinned-model"
	// ProseMarker is in every piece of free text the scripted provider
	// sends (text beside a tool call, error messages): a test finds it in
	// no file a run writes.
	ProseMarker = "SCRIPTED-PROVIDER-PROSE"
)

// Script is the in-process scripted provider: an [http.Handler] for POST
// {base}{lane path} that answers each request, in the lane's vendor's
// documented wire shape ([Vendor]), with the reference agent's decision for
// the observation the request carries, as one tool call.
//
// It is primed with the reference agent's decision tape for the same
// operation instance. Request n must carry, as its user message, the
// observation of tape entry n: the same invocation and turn, and the same
// observation digest recomputed from the request body alone. A request
// that does not (or that names another model, carries another credential,
// or comes after the bound) is refused with an HTTP error and counted in
// [Script.Refused]. On request FaultAt (1-based) the configured fault is
// answered instead.
type Script struct {
	// Vendor is the server side of the lane's wire format.
	Vendor Vendor
	// Model is the pinned model; Credential the value the agent is handed
	// (the vendor checks it in its own header).
	Model, Credential string
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

	mu       sync.Mutex
	bodies   []string
	answers  []string
	refused  int
	diverged bool
}

// Requests is the number of requests received.
func (s *Script) Requests() int { return locked(s, func() int { return len(s.bodies) }) }

// AnswerDigests are, per request received, the normalized-response digest
// of the answer the script sent ("" where it sent no answer: a fault or a
// refusal).
func (s *Script) AnswerDigests() []string {
	return locked(s, func() []string { return slices.Clone(s.answers) })
}

// Refused is the number of requests the script refused to answer.
func (s *Script) Refused() int { return locked(s, func() int { return s.refused }) }

// BodyDigests are the SHA-256 digests of the request bodies received, in
// arrival order.
func (s *Script) BodyDigests() []string {
	return locked(s, func() []string { return slices.Clone(s.bodies) })
}

// locked is what read returns, read under the script's lock.
func locked[T any](s *Script, read func() T) T {
	s.mu.Lock()
	defer s.mu.Unlock()
	return read()
}

func (s *Script) refuse(w http.ResponseWriter, status int, why string) {
	s.refused++
	writeJSON(w, status, nil, s.Vendor.Error(status, "scripted_provider_refusal", why))
}

func writeJSON(w http.ResponseWriter, status int, header map[string]string, v any) {
	b, err := canon.Upstream(v)
	if err != nil {
		http.Error(w, "unencodable", http.StatusInternalServerError)
		return
	}
	for k, hv := range header {
		w.Header().Set(k, hv)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// ServeHTTP implements [http.Handler].
func (s *Script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	// A request is received once its body is read: it is counted before
	// the latency, so a client that gives up mid-wait is still counted.
	s.mu.Lock()
	s.bodies = append(s.bodies, canon.SHA256Hex(body))
	s.answers = append(s.answers, "")
	n := len(s.bodies)
	s.mu.Unlock()
	if s.Latency > 0 {
		t := time.NewTimer(s.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
		}
		t.Stop()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case err != nil:
		s.refuse(w, http.StatusBadRequest, "unreadable body")
		return
	case r.Method != http.MethodPost || r.URL.Path != "/v1"+s.Vendor.Lane().Path():
		s.refuse(w, http.StatusNotFound, "not the lane's endpoint")
		return
	case !s.Vendor.Authenticated(r.Header, s.Credential):
		s.refuse(w, http.StatusUnauthorized, "not the credential the agent was handed")
		return
	case int64(n) > s.MaxRequests:
		s.refuse(w, http.StatusServiceUnavailable, fmt.Sprintf("request %d passes the script's bound of %d", n, s.MaxRequests))
		return
	}
	if s.diverged {
		// The episode left the reference after a truncated answer: there is
		// no reference decision to answer with.
		status, header, v := s.Vendor.Fault(Fault400)
		writeJSON(w, status, header, v)
		return
	}
	if s.Fault != FaultNone && n == s.FaultAt && s.Fault != FaultTruncated && s.Fault != FaultStreamCut {
		s.fault(w)
		return
	}
	name, args, why := s.answerFor(body, n)
	if why != "" {
		s.refuse(w, http.StatusConflict, why)
		return
	}
	stop := lane.StopCompleted
	if s.Fault == FaultTruncated && n == s.FaultAt {
		stop, s.diverged = lane.StopMaxTokens, true
	}
	resp := s.Vendor.Answer(n, s.Model, name, args, stop)
	b, err := canon.Upstream(resp)
	if err != nil {
		s.refuse(w, http.StatusInternalServerError, "unencodable answer")
		return
	}
	if s.Fault == FaultStreamCut && n == s.FaultAt {
		cut(w, b)
		return
	}
	if a, err := s.Vendor.Lane().ParseAnswer(b, s.Model); err == nil {
		s.answers[n-1], _ = a.NormalizedDigest()
	}
	writeJSON(w, http.StatusOK, nil, resp)
}

// cut sends the 200 headers stating b's full length and half of b, then
// closes the connection.
func cut(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	w.WriteHeader(http.StatusOK)
	w.Write(b[:len(b)/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	hangUp(w)
}

// hangUp closes the connection w answers on, without a response.
func hangUp(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	if conn, _, err := hj.Hijack(); err == nil {
		conn.Close()
	}
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
	content, ok := s.Vendor.UserMessage(req)
	if !ok {
		return "", nil, "the request carries no single user message"
	}
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
	name, args, ok := lane.Arguments(outcome)
	if !ok {
		return "", nil, "the reference decision has no function-call form"
	}
	return name, args, ""
}

func (s *Script) fault(w http.ResponseWriter) {
	switch s.Fault {
	case FaultInvalidBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(`{"id": "preflight", "model": "` + s.Model + `", "content": [`))
	case FaultWrongModel:
		writeJSON(w, http.StatusOK, nil, s.Vendor.Answer(s.FaultAt, WrongModel, "complete", map[string]any{"reason": "scripted", "evidence_refs": []any{}}, lane.StopCompleted))
	case FaultTransport:
		hangUp(w)
	default:
		status, header, v := s.Vendor.Fault(s.Fault)
		writeJSON(w, status, header, v)
	}
}
