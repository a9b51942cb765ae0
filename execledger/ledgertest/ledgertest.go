// Package ledgertest builds execution ledgers for tests and for the vector
// generator: the shared fixture header and calls of upstream's ledger suite
// (spec §11 conventions), an in-memory append file, the "re-chained"
// and "rewritten" mutation helpers, and [Entries], a directory's listing
// after a write. It is imported only by tests and generators.
package ledgertest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
)

// ClockStart is where a [Clock] starts.
var ClockStart = time.Date(2035, 1, 2, 3, 4, 5, 0, time.UTC)

// Clock is an injected clock for a run under test: each reading is one
// second after the last, the first one second after [ClockStart].
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at [ClockStart].
func NewClock() *Clock { return &Clock{t: ClockStart} }

// Now advances the clock one second and returns it.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// MemFile is an in-memory execledger.AppendFile.
type MemFile struct{ bytes.Buffer }

// WriteAll appends p.
func (m *MemFile) WriteAll(p []byte) error { m.Write(p); return nil }

// Sync does nothing.
func (m *MemFile) Sync() error { return nil }

// Truncate cuts the buffer to n bytes.
func (m *MemFile) Truncate(n int64) error { m.Buffer.Truncate(int(n)); return nil }

// Size is the buffer length.
func (m *MemFile) Size() int64 { return int64(m.Len()) }

// Close does nothing.
func (m *MemFile) Close() error { return nil }

// Str returns a pointer to s.
func Str(s string) *string { return &s }

// Int returns a pointer to n.
func Int(n int64) *int64 { return &n }

func hex64(c byte) string { return string(bytes.Repeat([]byte{c}, 64)) }

// Header is the suite's fixture header (version-3 writer): exec_ + 32×0,
// opinst_ + 32×1, operation lettings.maintenance.v0_1, scenario V1, agent
// openai-gpt-5-6-luna, provider openai/responses/gpt-5.6-luna, 60 calls, 1
// attempt, 46 expected, token cap 1,650,300, 4096 output, cap "1", pricing
// operator_pinned_v1 at 1.25 / 10.00.
func Header() execledger.Header {
	return execledger.Header{
		ExecutionRunID:          "exec_" + string(bytes.Repeat([]byte("0"), 32)),
		OperationInstanceID:     "opinst_" + string(bytes.Repeat([]byte("1"), 32)),
		OperationID:             "lettings.maintenance.v0_1",
		ScenarioID:              "V1",
		AgentID:                 "openai-gpt-5-6-luna",
		AgentKind:               "model",
		SpecDigest:              hex64('a'),
		EngineVersion:           "0.9.0",
		IntendedArtefactVersion: 8,
		StartedAt:               "2031-03-03T09:00:00Z",
		Provider: execledger.Provider{
			Provider: "openai", API: "responses", Model: "gpt-5.6-luna",
			Implementation: "OpenAIResponsesTransport", RequestMapping: "lifecycle_openai_responses_model_request_v5",
			ProtocolVersion: "operatebench.model.v3", SDK: "openai", SDKVersion: "2.24.0",
			BaseURL: "https://api.openai.com/v1",
			Settings: map[string]any{
				"api": "responses", "base_url": "https://api.openai.com/v1",
				"request_mapping": "lifecycle_openai_responses_model_request_v5", "sdk": "openai",
				"tool_choice": "required",
			},
		},
		Controls: execledger.Controls{
			MaxProviderCalls: 60, MaxAttemptsPerCall: 1, ExpectedProviderCalls: 46, TokenHardCap: 1650300,
			MaxOutputTokens: 4096, CostCapUSD: "1", CostCapPolicy: "refuse_before_dispatch",
			TurnDeadlineSeconds: 30.0, WallClockDeadlineSeconds: 1800.0,
			Pricing: map[string]any{
				"policy_id": "operator_pinned_v1", "input_usd_per_mtok": "1.25",
				"output_usd_per_mtok": "10.00", "rate_source": "operator_supplied_pinned_rates",
			},
		},
	}
}

// Answered is an answered call: bound 14,706, reservation 0.0593425,
// 4211/118 tokens, measured 0.00644375, an ACT decision.
func Answered(index, invocation, turn int64) execledger.Call {
	return execledger.Call{
		CallIndex: index, InvocationIndex: invocation, TurnIndex: turn,
		RequestDigest: digestOf("request", index), PromptDigest: digestOf("prompt", index),
		ObservationDigest: digestOf("observation", index), PayloadDigest: digestOf("payload", index),
		WireRequestDigest: Str(digestOf("wire", index)), WireRequestBytes: Int(13682),
		WireRequestMethod: Str("POST"), WireRequestURL: Str("https://api.openai.com/v1/responses"),
		InputTokenUpperBound: 14706, StartedAt: "2031-03-03T09:00:00Z", EndedAt: "2031-03-03T09:00:01Z",
		TurnLatencySeconds: 0.75, TerminalReason: Str("response"),
		Attempts: []execledger.Attempt{{
			AttemptIndex: 1, Outcome: "response", LatencySeconds: 0.5, ResponseReceived: true, UsageReported: true,
			CostReservationUSD: Str("0.0593425"), CostSettlement: Str("measured"), CostMeasuredUSD: Str("0.00644375"),
			InputTokens: Int(4211), OutputTokens: Int(118), ResponseModel: Str("gpt-5.6-luna"),
			ResponseIDDigest: Str(digestOf("response-id", index)), ResponseStopClassification: Str("completed"),
			ResponseNormalizedDigest: Str(digestOf("normalized", index)),
		}},
		Decision: &execledger.Decision{Kind: "ACT", DecisionDigest: digestOf("decision", index)},
	}
}

// Faulted is a faulted call: provider_server_error / 500, response
// received, no usage, forfeited 0.0593425, retries_exhausted, no decision.
func Faulted(index, invocation, turn int64) execledger.Call {
	c := Answered(index, invocation, turn)
	c.TerminalReason = Str("retries_exhausted")
	c.Decision = nil
	c.Attempts = []execledger.Attempt{{
		AttemptIndex: 1, Outcome: "fault", Fault: Str("provider_server_error"), HTTPStatus: Int(500),
		LatencySeconds: 0.5, ResponseReceived: true,
		CostReservationUSD: Str("0.0593425"), CostSettlement: Str("forfeited"), CostForfeitedUSD: Str("0.0593425"),
	}}
	return c
}

func digestOf(label string, i int64) string {
	return canon.SHA256Hex([]byte(fmt.Sprintf("ledgertest %s %d", label, i)))
}

// Build writes a whole journal in memory: the header, the calls, and (when
// kind is not "") the terminal row.
func Build(h execledger.Header, calls []execledger.Call, kind string, code *string) ([]byte, error) {
	var f MemFile
	w, err := execledger.NewWriter(&f, h)
	if err != nil {
		return nil, err
	}
	for _, c := range calls {
		if err := w.RecordCall(c); err != nil {
			return nil, err
		}
	}
	if kind != "" {
		if err := w.Finalize(kind, "2031-03-03T09:05:00Z", code); err != nil {
			return nil, err
		}
	}
	return f.Bytes(), nil
}

// Scored is header + two answered calls + scored terminal.
func Scored() []byte {
	return must(Build(Header(), []execledger.Call{Answered(0, 1, 0), Answered(1, 1, 1)}, "scored", nil))
}

// Excluded is header + one answered and one faulted call + excluded
// terminal (provider_server_error).
func Excluded() []byte {
	return must(Build(Header(), []execledger.Call{Answered(0, 1, 0), Faulted(1, 1, 1)}, "excluded", Str("provider_server_error")))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Rows parses a journal's complete lines into row objects.
func Rows(b []byte) []map[string]any {
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		v, err := canon.Parse(line)
		if err != nil {
			panic(err)
		}
		out = append(out, v.(map[string]any))
	}
	return out
}

// Line renders one row as the writer does (spaced canonical form).
func Line(row map[string]any) []byte {
	b, err := canon.Append(nil, row, canon.UpstreamSpacedForm)
	if err != nil {
		panic(err)
	}
	return b
}

// Rewrite renders rows as they are, without re-chaining ("rewritten").
func Rewrite(rows []map[string]any) []byte {
	var b bytes.Buffer
	for _, r := range rows {
		b.Write(Line(r))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Redigest recomputes one row's own digest (not its successors' links): the
// upstream digest of the row without its row_digest_sha256 key.
func Redigest(row map[string]any) {
	delete(row, "row_digest_sha256")
	d, err := canon.UpstreamDigest(row)
	if err != nil {
		panic(err)
	}
	row["row_digest_sha256"] = d
}

// Rechain recomputes every row's index, back-link and digest from the
// genesis on, so that chain checks cannot see an edit ("re-chained").
func Rechain(rows []map[string]any) []byte {
	prev := execledger.GenesisDigest
	for i, r := range rows {
		r["row_index"] = int64(i)
		r["previous_row_digest_sha256"] = prev
		Redigest(r)
		prev = r["row_digest_sha256"].(string)
	}
	return Rewrite(rows)
}

// Get walks a path of keys and indexes into v.
func Get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		default:
			panic(errors.New("ledgertest.Get: bad path element"))
		}
	}
	return v
}

// Roomy lifts h's call bound, cost and token caps and wall-clock deadline
// so that a synthetic journal of many calls can still end scored (a scored
// run never reserves past its caps or runs past its deadline).
func Roomy(h execledger.Header) execledger.Header {
	h.Controls.MaxProviderCalls = 1 << 40
	h.Controls.CostCapUSD = "1000000000"
	h.Controls.TokenHardCap = 1 << 52
	h.Controls.WallClockDeadlineSeconds = nil
	return h
}

// ForbiddenSettings are the spec §11.5 samples of credential-shaped or
// unbounded text a row must never carry, each a settings fragment: a
// header, a key name, an environment-style assignment, a nested key, a
// key-shaped value and a 4096-byte string. Each call returns fresh maps.
func ForbiddenSettings() []map[string]any {
	return []map[string]any{
		{"headers": map[string]any{"Authorization": "Bearer token-value"}},
		{"authorization": "anything"},
		{"api_key": "value"},
		{"note": "OPENAI_API_KEY=abc"},
		{"nested": []any{map[string]any{"x-api-key": "value"}}},
		{"credential": "sk-abcdefghijklmnop"},
		{"detail": strings.Repeat("x", 4096)},
	}
}

// Entries lists a directory's names, sorted (none for an empty one): what
// a ledger writer left behind.
func Entries(tb testing.TB, dir string) []string {
	tb.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
