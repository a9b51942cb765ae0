package lane

import (
	"errors"
	"maps"
	"slices"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/format/decision"
)

// Provider faults this agent classifies (execution ledger v3 vocabulary).
const (
	FaultAuthentication  = "provider_authentication"
	FaultConfiguration   = "provider_configuration"
	FaultNetwork         = "provider_network_error"
	FaultRateLimited     = "provider_rate_limited"
	FaultRequestRejected = "provider_request_rejected"
	FaultResponseInvalid = "provider_response_invalid"
	FaultServerError     = "provider_server_error"
	FaultTimeout         = "provider_timeout"
	// The v3 faults of a 400 whose body may state a spend limit (the
	// Anthropic lane's closed taxonomy).
	FaultSpendLimit                 = "provider_spend_limit"
	FaultInvalidRequestOrSpendLimit = "provider_invalid_request_or_spend_limit"
	FaultBadRequestUnclassified     = "provider_bad_request_unclassified"
)

// Retryable reports whether another attempt could answer after fault (the
// ledger's retryable set). This build makes one attempt per call, so a
// retryable fault ends its turn as retries_exhausted and any other as
// fault_not_retryable.
func Retryable(fault string) bool {
	return slices.Contains([]string{FaultNetwork, FaultRateLimited, FaultServerError, FaultTimeout}, fault)
}

// StatusFault classifies an HTTP status other than 200 by status alone (the
// OpenAI-shaped lanes; a lane may read the body as well).
func StatusFault(status int) string {
	switch {
	case status == 429:
		return FaultRateLimited
	case status == 408:
		return FaultTimeout
	case status >= 500:
		return FaultServerError
	case status == 401 || status == 403:
		return FaultAuthentication
	case status == 404 || (status >= 300 && status < 400):
		return FaultConfiguration
	case status >= 400:
		return FaultRequestRejected
	}
	return FaultResponseInvalid // 1xx and 2xx other than 200
}

// Stop classifications.
const (
	StopCompleted = "completed"
	StopMaxTokens = "max_tokens"
)

// MaxResponseBytes bounds a response body read.
const MaxResponseBytes = 4 << 20

// undecodable stands in for function arguments that are not canonically
// encodable JSON in the normalized response.
const undecodable = "arguments_undecodable"

// ToolCall is one function call an answer stated.
type ToolCall struct {
	// Name is the function name, or nil when the answer's name is not a
	// string.
	Name any
	// Arguments is the parsed arguments, or "arguments_undecodable".
	Arguments any
}

// Answer is a Responses body this build accepted as an answer.
type Answer struct {
	ID, Model string
	// Stop is "completed" or "max_tokens".
	Stop string
	// ToolCalls are the function calls, in the order the answer stated.
	ToolCalls []ToolCall
	// UsageReported is true when the body stated both token counts.
	UsageReported             bool
	InputTokens, OutputTokens int64
}

// ErrNotAnAnswer is what a lane's ParseAnswer returns for a 200 body it
// declines to read as an answer (the agent records
// provider_response_invalid; the error text is never written anywhere).
var ErrNotAnAnswer = errors.New("not an answer this lane reads")

// ReadAnswer begins every lane's ParseAnswer: body must be one strict JSON
// object whose key kindKey states kind (the vendor's name for an answer
// object, e.g. "object": "response"), with a string id and a string model
// that is model ("" takes any stated model). It returns the object and an
// answer carrying the ID and Model, or [ErrNotAnAnswer].
func ReadAnswer(body []byte, model, kindKey, kind string) (map[string]any, *Answer, error) {
	v, err := canon.Parse(body)
	if err != nil {
		return nil, nil, ErrNotAnAnswer
	}
	m, ok := v.(map[string]any)
	if !ok || m[kindKey] != kind {
		return nil, nil, ErrNotAnAnswer
	}
	a := &Answer{}
	if a.ID, ok = m["id"].(string); !ok {
		return nil, nil, ErrNotAnAnswer
	}
	if a.Model, ok = m["model"].(string); !ok || (model != "" && a.Model != model) {
		return nil, nil, ErrNotAnAnswer
	}
	return m, a, nil
}

// AddCall appends the tool call the answer stated as name (kept only when
// a string) with arguments (read by [StringArguments] or
// [ObjectArguments]).
func (a *Answer) AddCall(name, arguments any) {
	tc := ToolCall{Arguments: arguments}
	if n, ok := name.(string); ok {
		tc.Name = n
	}
	a.ToolCalls = append(a.ToolCalls, tc)
}

// StopOf reads a stated stop reason: [StopCompleted] when it is one of
// completed, [StopMaxTokens] when it is truncated, and false otherwise.
func StopOf(reason any, truncated string, completed ...string) (string, bool) {
	switch s, _ := reason.(string); {
	case s == truncated:
		return StopMaxTokens, true
	case slices.Contains(completed, s):
		return StopCompleted, true
	}
	return "", false
}

// Items reads a list of objects (an answer's output or content) and keeps
// those of type typ, in order, or returns [ErrNotAnAnswer] when v is not a
// list or an item is not an object.
func Items(v any, typ string) ([]map[string]any, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, ErrNotAnAnswer
	}
	var out []map[string]any
	for _, item := range list {
		it, ok := item.(map[string]any)
		if !ok {
			return nil, ErrNotAnAnswer
		}
		if it["type"] == typ {
			out = append(out, it)
		}
	}
	return out, nil
}

// StringArguments reads a tool call's arguments stated as a JSON text (the
// OpenAI shapes): the parsed value, or "arguments_undecodable".
func StringArguments(v any) any {
	s, ok := v.(string)
	if !ok {
		return undecodable
	}
	args, err := canon.Parse([]byte(s))
	if err != nil {
		return undecodable
	}
	return ObjectArguments(args)
}

// ObjectArguments reads a tool call's arguments stated as a JSON value (the
// Anthropic shape): the value when canonically encodable, or
// "arguments_undecodable".
func ObjectArguments(v any) any {
	if _, err := canon.Upstream(v); err != nil {
		return undecodable
	}
	return v
}

// WithUsage ends every lane's ParseAnswer: it reads the usage object u into
// a and returns a, or [ErrNotAnAnswer]. A usage object states two exact,
// non-negative integer counts under the names a lane's vendor uses; an
// absent one states no usage, and one present without both counts is
// [ErrNotAnAnswer].
func (a *Answer) WithUsage(u any, inName, outName string) (*Answer, error) {
	switch u := u.(type) {
	case nil:
		return a, nil
	case map[string]any:
		in, ok1 := u[inName].(int64)
		out, ok2 := u[outName].(int64)
		if ok1 && ok2 && in >= 0 && out >= 0 {
			a.UsageReported, a.InputTokens, a.OutputTokens = true, in, out
			return a, nil
		}
	}
	return nil, ErrNotAnAnswer
}

// NormalizedDigest is response_normalized_digest_sha256: the canonical
// digest of {model, stop_classification, tool_calls: [{name, arguments}]}
// in the order the answer stated them. Argument objects are canonically
// key-sorted, so re-ordered keys hash the same and different values never
// do.
func (a *Answer) NormalizedDigest() (string, error) {
	calls := make([]any, len(a.ToolCalls))
	for i, tc := range a.ToolCalls {
		calls[i] = map[string]any{"name": tc.Name, "arguments": tc.Arguments}
	}
	return canon.UpstreamDigest(map[string]any{"model": a.Model, "stop_classification": a.Stop, "tool_calls": calls})
}

// Classification codes (MALFORMED decisions).
const (
	CodeNoToolCall        = "MODEL_NO_TOOL_CALL"
	CodeMultipleToolCalls = "MODEL_MULTIPLE_TOOL_CALLS"
	CodeOutputTruncated   = "MODEL_OUTPUT_TRUNCATED"
	CodeUnknownTool       = "MODEL_UNKNOWN_TOOL"
	CodeMalformedArgs     = "MODEL_MALFORMED_ARGUMENTS"
)

// Decision reads the engine decision out of an accepted answer: exactly
// one call of an offered function whose arguments are exactly that
// function's, shaped as the tape records them. Anything else is a
// classified [*engine.Malformed] — never an improvised decision, and no
// invented argument reaches the tape.
func (a *Answer) Decision() engine.Decision {
	switch {
	case a.Stop == StopMaxTokens:
		return &engine.Malformed{Code: CodeOutputTruncated}
	case len(a.ToolCalls) == 0:
		return &engine.Malformed{Code: CodeNoToolCall}
	case len(a.ToolCalls) > 1:
		return &engine.Malformed{Code: CodeMultipleToolCalls}
	}
	tc := a.ToolCalls[0]
	name, _ := tc.Name.(string)
	kind, ok := toolKinds[name]
	if !ok {
		return &engine.Malformed{Code: CodeUnknownTool}
	}
	args, ok := tc.Arguments.(map[string]any)
	if !ok || !exactKeys(args, toolArguments[name]) {
		return &engine.Malformed{Code: CodeMalformedArgs}
	}
	rec := maps.Clone(args)
	rec["kind"] = kind
	switch name {
	case "ask":
		w, ok := args["wait"].(map[string]any)
		if !ok || !exactKeys(w, toolArguments["wait"]) {
			return &engine.Malformed{Code: CodeMalformedArgs}
		}
		nested := maps.Clone(w)
		nested["kind"] = decision.KindWait
		rec["wait"] = nested
	case "retrieve":
		reqs, ok := args["requests"].([]any)
		if !ok {
			return &engine.Malformed{Code: CodeMalformedArgs}
		}
		for _, r := range reqs {
			rm, ok := r.(map[string]any)
			if !ok || !exactKeys(rm, []string{"arguments", "tool"}) {
				return &engine.Malformed{Code: CodeMalformedArgs}
			}
			if _, ok := rm["arguments"].(map[string]any); !ok {
				return &engine.Malformed{Code: CodeMalformedArgs}
			}
		}
	}
	d, err := engine.DecisionFromRecord(rec)
	if err != nil {
		return &engine.Malformed{Code: CodeMalformedArgs}
	}
	return d
}

func exactKeys(m map[string]any, names []string) bool {
	return len(m) == len(names) && !slices.ContainsFunc(names, func(n string) bool { _, ok := m[n]; return !ok })
}

// Arguments returns the function name and arguments that state decision
// rec (a tape outcome) as one tool call: the inverse of
// [Answer.Decision]. The scripted provider answers with it.
func Arguments(rec map[string]any) (string, map[string]any, bool) {
	kind, _ := rec["kind"].(string)
	var name string
	for n, k := range toolKinds {
		if k == kind {
			name = n
		}
	}
	if name == "" {
		return "", nil, false
	}
	args := maps.Clone(rec)
	delete(args, "kind")
	if w, ok := args["wait"].(map[string]any); ok && name == "ask" {
		nested := maps.Clone(w)
		delete(nested, "kind")
		args["wait"] = nested
	}
	return name, args, exactKeys(args, toolArguments[name])
}
