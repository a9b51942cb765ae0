package execledger

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// recordCallMap is the writer's former call path, kept as the reference for
// the typed one: the reader's own validation (decodeCall) on the call's map
// tree, the map scanner (Scan) and the generic canonical encoder.
func (w *Writer) recordCallMap(c Call) error {
	if err := w.usable(); err != nil {
		return err
	}
	if c.CallIndex != w.t.calls {
		return refusal.New(ErrWriterState, "call_index %d where %d calls are recorded", c.CallIndex, w.t.calls)
	}
	if err := normalizeSeconds(&c); err != nil {
		return err
	}
	v := c.Map()
	call, err := decodeCall(v, Version)
	if err != nil {
		return err
	}
	if err := w.t.admitCall(call); err != nil {
		return err
	}
	if err := w.append(RowCall, v); err != nil {
		return err
	}
	w.t.addCall(call)
	if call.Decision != nil {
		w.decisions = append(w.decisions, call.CallIndex)
	}
	return nil
}

type memFile struct{ bytes.Buffer }

func (m *memFile) WriteAll(p []byte) error { m.Write(p); return nil }
func (m *memFile) Sync() error             { return nil }
func (m *memFile) Truncate(n int64) error  { m.Buffer.Truncate(int(n)); return nil }
func (m *memFile) Size() int64             { return int64(m.Len()) }
func (m *memFile) Close() error            { return nil }

func testHeader() Header {
	return Header{
		ExecutionRunID: "exec_" + strings.Repeat("0", 32), OperationInstanceID: "opinst_" + strings.Repeat("1", 32),
		OperationID: "lettings.maintenance.v0_1", ScenarioID: "V1", AgentID: "a", AgentKind: "model",
		SpecDigest: strings.Repeat("a", 64), EngineVersion: "0.9.0", IntendedArtefactVersion: 8,
		StartedAt: "2031-03-03T09:00:00Z",
		Provider: Provider{
			Provider: "openai", API: "responses", Model: "gpt-5.6-luna", Implementation: "i", RequestMapping: "r",
			ProtocolVersion: "p", SDK: "openai", SDKVersion: "2.24.0", BaseURL: "https://api.openai.com/v1",
			Settings: map[string]any{"api": "responses"},
		},
		Controls: Controls{
			MaxProviderCalls: 60, MaxAttemptsPerCall: 3, ExpectedProviderCalls: 46, TokenHardCap: 1650300,
			MaxOutputTokens: 4096, CostCapUSD: "1", CostCapPolicy: CostCapPolicy,
			TurnDeadlineSeconds: 30.0, WallClockDeadlineSeconds: 1800.0,
			Pricing: map[string]any{"policy_id": "p", "input_usd_per_mtok": "1.25", "output_usd_per_mtok": "10.00", "rate_source": RateSourceOperator},
		},
	}
}

// picker turns fuzz bytes into choices; choice 0 (also when the bytes run
// out) is always the well-formed value.
type picker struct{ b []byte }

func (p *picker) n(k int) int {
	if len(p.b) == 0 {
		return 0
	}
	v := int(p.b[0]) % k
	p.b = p.b[1:]
	return v
}

func pick[T any](p *picker, options ...T) T { return options[p.n(len(options))] }

// set replaces *dst by one of options, or (choice 0) leaves it: each field
// has its own choice, so one changed byte changes one field.
func set[T any](p *picker, dst *T, options ...T) {
	if v := p.n(len(options)+1) - 1; v >= 0 {
		*dst = options[v]
	}
}

func sp(s string) *string { return &s }
func ip(n int64) *int64   { return &n }

func hexOf(label string, i int64) string {
	return canon.SHA256Hex([]byte(label + itoa(int(i))))
}

// genCall builds call index's call from p: well-formed by default, with any
// field possibly replaced by a value some rule refuses (or that the scanner
// or the encoder refuses).
func genCall(p *picker, index int64) Call {
	digest := func(label string) string {
		return pick(p, hexOf(label, index), "", strings.ToUpper(hexOf(label, index)), hexOf(label, index)[1:],
			"sk-abcdefghijklmnop", strings.Repeat("g", 64))
	}
	c := Call{
		CallIndex: pick(p, index, index+1, -1), InvocationIndex: pick[int64](p, 1, 0, -1, 2, 1<<60, -(1 << 60)),
		TurnIndex:     pick(p, index, 0, -1, index+7, 1<<60),
		RequestDigest: digest("request"), PromptDigest: digest("prompt"),
		ObservationDigest: digest("observation"), PayloadDigest: digest("payload"),
		InputTokenUpperBound: pick[int64](p, 14706, 0, -1, 1<<53, 1<<60, 9000),
		StartedAt:            pick(p, "2031-03-03T09:00:00Z", "2031-02-30T00:00:00Z", "2031-03-03T09:00:02Z", "", "0000-01-01T00:00:00Z", "2031-03-03 09:00:00Z"),
		EndedAt:              pick(p, "2031-03-03T09:00:01Z", "2031-03-03T08:00:00Z", "x"),
		TurnLatencySeconds: pick[any](p, 0.75, nil, 1, int64(2), -0.5, int64(-1), math.NaN(), math.Inf(1), "x",
			1e300, 0.1+0.2, float64(1<<60), int64(1<<60), int32(3), 5e-324),
		TerminalReason: pick(p, sp("response"), nil, sp("retries_exhausted"), sp("fault_not_retryable"), sp("bogus"),
			sp("has space"), sp("api_key"), sp("sk-ABCDEFGH1234"), sp("unclassified_error"), sp("cost_cap_exhausted")),
	}
	if p.n(3) != 1 { // the exact wire request, each part possibly off
		c.WireRequestDigest = pick(p, sp(hexOf("wire", index)), nil, sp("bad"))
		c.WireRequestBytes = pick(p, ip(13682), nil, ip(-1), ip(0), ip(1<<60))
		c.WireRequestMethod = pick(p, sp("POST"), nil, sp("GET"), sp("post"))
		c.WireRequestURL = pick(p, sp("https://api.openai.com/v1/responses"), nil, sp("http://x"), sp("https://h:/p"),
			sp("https://api.openai.com/v1/api_key"), sp("https://h:8443"), sp("https://h/p?q"), sp("https://sk-abcdefgh12/x"))
	}
	n := pick(p, 1, 0, 2, 3, 4)
	for i := range n {
		c.Attempts = append(c.Attempts, genAttempt(p, index, i, i == n-1))
	}
	switch p.n(7) {
	case 0:
		c.Decision = &Decision{Kind: "ACT", DecisionDigest: hexOf("decision", index)}
	case 1:
	case 2:
		c.Decision = &Decision{Kind: "a b", DecisionDigest: hexOf("decision", index)}
	case 3:
		c.Decision = &Decision{Kind: "bearer", DecisionDigest: hexOf("decision", index), ClassificationCode: sp("ok")}
	case 4:
		c.Decision = &Decision{Kind: "ACT", DecisionDigest: "nope"}
	case 5:
		c.Decision = &Decision{Kind: "ACT", DecisionDigest: hexOf("decision", index), ClassificationCode: sp("api-key")}
	case 6:
		c.Decision = &Decision{Kind: "ACT", DecisionDigest: hexOf("decision", index), ClassificationCode: sp("")}
	}
	return c
}

func genAttempt(p *picker, index int64, i int, last bool) Attempt {
	var a Attempt
	switch k := p.n(4); {
	case k == 0 && last:
		a = Attempt{Outcome: "response", LatencySeconds: 0.5, ResponseReceived: true, UsageReported: true,
			CostReservationUSD: sp("0.0593425"), CostSettlement: sp("measured"), CostMeasuredUSD: sp("0.00644375"),
			InputTokens: ip(4211), OutputTokens: ip(118), ResponseModel: sp("gpt-5.6-luna"),
			ResponseIDDigest: sp(hexOf("id", index)), ResponseStopClassification: sp("completed"),
			ResponseNormalizedDigest: sp(hexOf("normalized", index))}
	case k <= 1:
		a = Attempt{Outcome: "fault", Fault: sp("provider_server_error"), HTTPStatus: ip(500), LatencySeconds: 0.5,
			ResponseReceived: true, CostReservationUSD: sp("0.0593425"), CostSettlement: sp("forfeited"), CostForfeitedUSD: sp("0.0593425")}
	case k == 2:
		a = Attempt{Outcome: "unclassified_error", LatencySeconds: int64(1)}
	default:
		a = Attempt{Outcome: "fault", Fault: sp("provider_network_error"), LatencySeconds: nil}
	}
	a.AttemptIndex = int64(i + 1)
	set(p, &a.AttemptIndex, 0, int64(i+2), -3)
	set(p, &a.Outcome, "bogus", "fault", "response", "unclassified_error", "")
	set(p, &a.Fault, nil, sp("provider_server_error"), sp("provider_authentication"), sp("not_a_fault"), sp("provider_spend_limit"))
	set(p, &a.HTTPStatus, nil, ip(200), ip(99), ip(100), ip(101), ip(500), ip(1<<60))
	set[any](p, &a.LatencySeconds, nil, -1.0, math.NaN(), 3, "s", int64(1<<60), math.Inf(-1), -(1 << 60))
	set(p, &a.ResponseReceived, !a.ResponseReceived)
	set(p, &a.UsageReported, !a.UsageReported)
	set(p, &a.CostReservationUSD, nil, sp("0.0593426"), sp("0.50"), sp("-1"), sp("1e3"), sp("0.0593425"))
	set(p, &a.CostSettlement, nil, sp("measured"), sp("forfeited"), sp("x"))
	set(p, &a.CostMeasuredUSD, nil, sp("0.00644375"), sp("0.1"), sp("secret"))
	set(p, &a.CostForfeitedUSD, nil, sp("0.0593425"), sp("0"), sp("0.50"), sp("-1"))
	set(p, &a.InputTokens, nil, ip(-1), ip(1<<60), ip(5000), ip(4211))
	set(p, &a.OutputTokens, nil, ip(-1), ip(1<<60), ip(0), ip(118))
	set(p, &a.ResponseModel, nil, sp("gpt 5"), sp("sk-abcdefghijk"), sp("secret-model"), sp(strings.Repeat("a", 300)),
		sp("my.Password"), sp("x"), sp("Authorization"), sp("apikey"), sp("passwd"), sp("é"), sp("\xff"), sp("\xc3("))
	set(p, &a.ResponseIDDigest, nil, sp("bad"), sp(hexOf("id", index)))
	set(p, &a.ResponseStopClassification, nil, sp("max_tokens"), sp("other"))
	set(p, &a.ResponseNormalizedDigest, nil, sp("bad"), sp(hexOf("n", index)))
	if p.n(2) == 1 {
		a = Attempt{AttemptIndex: a.AttemptIndex}
	}
	return a
}

// requireSameRefusal: both nil, or the same class; the same detail unless
// forbidden content (the map scanner's walk order is the map's, so which of
// several offending strings it names is not fixed).
func requireSameRefusal(t *testing.T, typed, ref error) {
	t.Helper()
	if (typed == nil) != (ref == nil) {
		t.Fatalf("typed path: %v; map path: %v", typed, ref)
	}
	if typed == nil {
		return
	}
	ct, _ := refusal.ClassOf(typed)
	cr, _ := refusal.ClassOf(ref)
	if ct != cr || ct == "" {
		t.Fatalf("typed path: %v; map path: %v", typed, ref)
	}
	if ct != ErrForbiddenContent.Class && typed.Error() != ref.Error() {
		t.Fatalf("typed path: %v\nmap path:   %v", typed, ref)
	}
}

// agreeOnCalls writes the calls p describes through both paths, requiring
// the same refusals, bytes and running state after every call.
func agreeOnCalls(t *testing.T, data []byte) {
	p := &picker{b: data}
	var fa, fb memFile
	wa, err := NewWriter(&fa, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	wb, _ := NewWriter(&fb, testHeader())
	for range 1 + p.n(4) {
		c := genCall(p, wa.t.calls)
		requireSameRefusal(t, wa.RecordCall(c), wb.recordCallMap(c))
		if !bytes.Equal(fa.Bytes(), fb.Bytes()) {
			t.Fatalf("the journals differ:\n%s\n%s", fa.Bytes(), fb.Bytes())
		}
		if wa.rows != wb.rows || wa.prev != wb.prev || !slices.Equal(wa.decisions, wb.decisions) || !totalsEqual(wa.Totals(), wb.Totals()) ||
			wa.t.prevInv != wb.t.prevInv || wa.t.prevTurn != wb.t.prevTurn || wa.t.anyFault != wb.t.anyFault ||
			wa.t.allDecided != wb.t.allDecided || wa.t.anyEarly != wb.t.anyEarly {
			t.Fatal("the writers' states differ")
		}
	}
}

// TestTypedCallPathAgrees holds the typed call path to the map path over
// seeded random calls (every field well-formed or replaced by a refused
// value), and checks that the journals it writes verify.
func TestTypedCallPathAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for k := range 40000 {
		b := make([]byte, 200)
		if k%4 == 0 { // every choice random
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
		} else { // well-formed but for one to three choices
			for range 1 + k%3 {
				b[r.IntN(len(b))] = byte(1 + r.IntN(255))
			}
		}
		agreeOnCalls(t, b)
	}
}

// FuzzTypedCallPath: the same, on fuzzer-chosen calls.
func FuzzTypedCallPath(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6})
	f.Fuzz(agreeOnCalls)
}

// TestCallFieldNamesPassScan: the typed scanner skips the row's field
// names, which the map scanner checks; none is forbidden.
func TestCallFieldNamesPassScan(t *testing.T) {
	for _, names := range [][]string{callFields, attemptFields, decisionFields} {
		for _, k := range names {
			if label := forbidden(k); label != "" {
				t.Errorf("field name %q is %s", k, label)
			}
		}
	}
}

// TestTypedEncodingIsCanon: the typed encoder's bytes, compact and spaced,
// are canon's for Call.Map, for the calls of the agreement test that
// validate.
func TestTypedEncodingIsCanon(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	n := 0
	for range 5000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		c := genCall(&picker{b: b}, 1)
		if normalizeSeconds(&c) != nil {
			continue
		}
		for _, form := range []canon.Form{canon.UpstreamForm, canon.UpstreamSpacedForm} {
			want, werr := canon.Append(nil, c.Map(), form)
			compact, spaced, gerr := appendCallJSON(nil, nil, &c)
			got := compact
			if form == canon.UpstreamSpacedForm {
				got = spaced
			}
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) || (werr == nil && !bytes.Equal(got, want)) {
				t.Fatalf("%s: typed %q, %v; canon %q, %v", form, got, gerr, want, werr)
			}
			if werr == nil {
				n++
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d encodings compared", n)
	}
}
