package lane_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/preflight"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/refusal"
)

const model = "gpt-5.6-luna"

var profile = lane.Profile{Provider: openai.ProviderName, Model: model, MaxOutputTokens: provider.MaxOutputTokens, ModelStated: true, TurnDeadlineSeconds: 30}

// instance is ledgertest.Header's operation instance.
var instance = ledgertest.Header().OperationInstanceID

func domain(t *testing.T) engine.Domain {
	t.Helper()
	d, _ := artefacttest.Cell(t, "V1", "reference")
	return d
}

// step is one turn of the reference run: what it was shown and decided.
type step struct {
	obs *engine.Observation
	rec map[string]any
}

type recorder struct {
	inner engine.Agent
	steps []step
}

func (r *recorder) BeginEpisode(id engine.AgentIdentity) { r.inner.BeginEpisode(id) }
func (r *recorder) Decide(obs *engine.Observation) (engine.Decision, error) {
	d, err := r.inner.Decide(obs)
	if err == nil {
		r.steps = append(r.steps, step{obs, d.Record()})
	}
	return d, err
}

// referenceSteps runs V1 with the reference agent under the fixture
// instance and returns every turn.
func referenceSteps(t *testing.T) []step {
	t.Helper()
	ref, _ := domains.Default().Agent("reference")
	r := &recorder{inner: ref.New()}
	if _, err := engine.Execute(domain(t), r, instance); err != nil {
		t.Fatal(err)
	}
	return r.steps
}

// fixtureRates are the rates h's pricing pins.
func fixtureRates(h execledger.Header) execledger.Rates {
	in, _ := execledger.ParseDecimal(h.Controls.Pricing["input_usd_per_mtok"].(string))
	out, _ := execledger.ParseDecimal(h.Controls.Pricing["output_usd_per_mtok"].(string))
	return execledger.Rates{In: in, Out: out}
}

type harness struct {
	srv   *httptest.Server
	file  *ledgertest.MemFile
	w     *execledger.Writer
	guard *provider.Guard
	agent *lane.Agent
	hits  atomic.Int64
}

// newHarness serves h over TLS and builds an agent with a cost guard at
// the fixture rates (cap 10 USD, token cap 1,650,300) unless mod changes
// the config.
func newHarness(t *testing.T, h http.HandlerFunc, mod func(*lane.Config)) *harness {
	t.Helper()
	x := &harness{}
	x.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(x.srv.Close)
	head := ledgertest.Header()
	pid, err := lane.ProviderIdentity(openai.Lane, profile, x.srv.URL+"/v1")
	if err != nil {
		t.Fatal(err)
	}
	head.Provider = pid
	x.file = &ledgertest.MemFile{}
	if x.w, err = execledger.NewWriter(x.file, head); err != nil {
		t.Fatal(err)
	}
	capUSD, _ := execledger.ParseDecimal("10")
	if x.guard, err = provider.NewGuard(capUSD, fixtureRates(head), provider.MaxOutputTokens, provider.TokenHardCap); err != nil {
		t.Fatal(err)
	}
	c := ledgertest.NewClock()
	cfg := lane.Config{
		Client: x.srv.Client(), BaseURL: x.srv.URL + "/v1", Lane: openai.Lane, Profile: profile, Credential: "test-not-a-credential",
		MaxCalls: 60, Guard: x.guard, Ledger: x.w, Now: c.Now, RunStart: ledgertest.ClockStart, OperationInstanceID: instance,
		TurnDeadline: 5 * time.Second,
	}
	if mod != nil {
		mod(&cfg)
	}
	if x.agent, err = lane.New(cfg); err != nil {
		t.Fatal(err)
	}
	return x
}

func (x *harness) ledger(t *testing.T) *execledger.Audit {
	t.Helper()
	a, err := execledger.Read(bytes.NewReader(x.file.Bytes()), execledger.Options{})
	if err != nil {
		t.Fatalf("the ledger does not read back: %v", err)
	}
	return a
}

// answer serves rec (a tape outcome) as one function call with usage.
func answer(t *testing.T, rec map[string]any, usageIn int64) http.HandlerFunc {
	name, args, ok := lane.Arguments(rec)
	if !ok {
		t.Fatalf("no function-call form for %v", rec)
	}
	text, _ := canon.Upstream(args)
	return func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		b, _ := canon.Upstream(map[string]any{
			"id": "resp_x", "object": "response", "model": model, "status": "completed",
			"output": []any{map[string]any{"type": "function_call", "name": name, "arguments": string(text)}},
			"usage":  map[string]any{"input_tokens": usageIn, "output_tokens": int64(118)},
		})
		w.Write(b)
	}
}

func TestAnsweredCall(t *testing.T) {
	steps := referenceSteps(t)
	var gotAuth, gotPath string
	var gotBody []byte
	inner := answer(t, steps[0].rec, 4211)
	x := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		gotAuth, gotPath = r.Header.Get("Authorization"), r.URL.Path
		gotBody, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(gotBody))
		inner(w, r)
	}, nil)
	x.agent.BeginEpisode(engine.AgentIdentity{OperationInstanceID: instance})
	d, err := x.agent.Decide(steps[0].obs)
	if err != nil {
		t.Fatal(err)
	}
	if !canonEqual(d.Record(), steps[0].rec) {
		t.Errorf("decision %v, want the served %v", d.Record(), steps[0].rec)
	}
	if gotAuth != "Bearer test-not-a-credential" || gotPath != "/v1/responses" {
		t.Errorf("auth %q path %q", gotAuth, gotPath)
	}
	a := x.ledger(t)
	if len(a.Calls) != 1 {
		t.Fatalf("%d call rows", len(a.Calls))
	}
	c := a.Calls[0]
	at := c.Attempts[0]
	req, err := lane.BuildRequest(openai.Lane, steps[0].obs, profile)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case *c.WireRequestDigest != canon.SHA256Hex(gotBody) || *c.WireRequestBytes != int64(len(gotBody)):
		t.Error("the wire digest and length are not those of the body the server received")
	case c.RequestDigest == *c.WireRequestDigest:
		t.Error("the request identity digest is the wire digest")
	case c.RequestDigest != req.RequestDigest || c.ObservationDigest != steps[0].obs.Digest():
		t.Error("the row's identity is not the request's")
	case *c.WireRequestURL != "https://127.0.0.1/v1/responses":
		t.Errorf("wire url %q keeps more than scheme, host and path", *c.WireRequestURL)
	case at.Outcome != "response" || *at.HTTPStatus != 200 || !at.ResponseReceived || !at.UsageReported:
		t.Errorf("attempt %+v", at)
	case *at.CostSettlement != "measured" || *at.CostMeasuredUSD != "0.00644375":
		t.Errorf("settlement %s %s", *at.CostSettlement, *at.CostMeasuredUSD)
	case *at.ResponseIDDigest != canon.SHA256Hex([]byte("resp_x")):
		t.Error("response id digest")
	case c.Decision == nil || c.Decision.Kind != d.Kind():
		t.Error("the row carries no decision")
	}
	if dd, _ := canon.UpstreamDigest(steps[0].rec); c.Decision.DecisionDigest != dd {
		t.Error("the decision digest is not the digest of the tape outcome")
	}
	if at.LatencySeconds != 1.0 || c.TurnLatencySeconds != 2.0 {
		t.Errorf("latencies %v / %v: not measured by the injected clock", at.LatencySeconds, c.TurnLatencySeconds)
	}
	ex := x.agent.Execution()
	if ex.TransportCalls != 1 || len(ex.Attempts) != 1 || ex.Attempts[0].Outcome != "decided" || ex.Attempts[0].RequestDigest != c.RequestDigest {
		t.Errorf("execution record %+v", ex)
	}
}

func canonEqual(a, b any) bool {
	x, err1 := canon.Upstream(a)
	y, err2 := canon.Upstream(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// TestFaults: every fault class the agent records, at the first call.
func TestFaults(t *testing.T) {
	steps := referenceSteps(t)
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(code)
			w.Write([]byte(`{"error":{"message":"scripted"}}`))
		}
	}
	raw := func(b string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(b)) }
	}
	cases := []struct {
		name     string
		h        http.HandlerFunc
		deadline time.Duration
		fault    string
		status   int64
		received bool
		reason   string
	}{
		{"429", status(429), 0, lane.FaultRateLimited, 429, true, "retries_exhausted"},
		{"500", status(500), 0, lane.FaultServerError, 500, true, "retries_exhausted"},
		{"401", status(401), 0, lane.FaultAuthentication, 401, true, "fault_not_retryable"},
		{"400", status(400), 0, lane.FaultRequestRejected, 400, true, "fault_not_retryable"},
		{"redirect", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "https://elsewhere.invalid/", 307) }, 0, lane.FaultConfiguration, 307, true, "fault_not_retryable"},
		{"invalid body", raw(`{"id": "resp", "object": "response", "output": [`), 0, lane.FaultResponseInvalid, 200, true, "fault_not_retryable"},
		{"wrong model", raw(`{"id":"r","object":"response","model":"gpt-not-the-pinned-model","status":"completed","output":[]}`), 0, lane.FaultResponseInvalid, 200, true, "fault_not_retryable"},
		{"closed connection", func(w http.ResponseWriter, r *http.Request) {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
		}, 0, lane.FaultNetwork, 0, false, "retries_exhausted"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { time.Sleep(300 * time.Millisecond) }, 50 * time.Millisecond, lane.FaultTimeout, 0, false, "retries_exhausted"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := newHarness(t, c.h, func(cfg *lane.Config) {
				if c.deadline > 0 {
					cfg.TurnDeadline = c.deadline
				}
			})
			_, err := x.agent.Decide(steps[0].obs)
			var f *lane.Failure
			if !errors.As(err, &f) || f.Code != c.fault || !f.Dispatched {
				t.Fatalf("error %v, want a dispatched failure %s", err, c.fault)
			}
			if _, err2 := x.agent.Decide(steps[1].obs); err2 != err {
				t.Error("a stopped agent decided again")
			}
			a := x.ledger(t)
			if len(a.Calls) != 1 || x.hits.Load() != 1 {
				t.Fatalf("%d call rows, %d requests", len(a.Calls), x.hits.Load())
			}
			call := a.Calls[0]
			at := call.Attempts[0]
			gotStatus := int64(0)
			if at.HTTPStatus != nil {
				gotStatus = *at.HTTPStatus
			}
			switch {
			case at.Outcome != "fault" || *at.Fault != c.fault:
				t.Errorf("attempt outcome %s fault %v", at.Outcome, at.Fault)
			case gotStatus != c.status || at.ResponseReceived != c.received:
				t.Errorf("status %d received %v", gotStatus, at.ResponseReceived)
			case at.UsageReported || at.ResponseModel != nil || at.ResponseNormalizedDigest != nil:
				t.Error("evidence read out of an answer that was not accepted")
			case *at.CostSettlement != "forfeited" || *at.CostForfeitedUSD != *at.CostReservationUSD:
				t.Error("an unknown cost is not forfeited whole")
			case call.Decision != nil || *call.TerminalReason != c.reason:
				t.Errorf("decision %v reason %s", call.Decision, *call.TerminalReason)
			}
			if err := x.w.Finalize("excluded", "2035-01-02T03:05:00Z", &c.fault); err != nil {
				t.Fatalf("the excluded terminal is refused: %v", err)
			}
			if _, err := x.w.Binding(); refusal.Of(err) != execledger.ErrNoBinding.Class {
				t.Errorf("an excluded journal backs a binding: %v", err)
			}
		})
	}
}

// TestGuardRefusesBeforeDispatch is R17 and F8: a request the cost guard
// will not authorise is never sent and leaves no call row.
func TestGuardRefusesBeforeDispatch(t *testing.T) {
	steps := referenceSteps(t)
	for _, c := range []struct {
		name     string
		cap      string
		tokenCap int64
		class    *refusal.Refusal
	}{
		{"cost cap", "0.000001", provider.TokenHardCap, provider.ErrCostCapExceeded},
		{"token cap", "10", 4097, provider.ErrTokenCapExceeded},
	} {
		t.Run(c.name, func(t *testing.T) {
			var x *harness
			x = newHarness(t, answer(t, steps[0].rec, 4211), func(cfg *lane.Config) {
				capUSD, _ := execledger.ParseDecimal(c.cap)
				g, err := provider.NewGuard(capUSD, fixtureRates(ledgertest.Header()), provider.MaxOutputTokens, c.tokenCap)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Guard = g
			})
			_, err := x.agent.Decide(steps[0].obs)
			var f *lane.Failure
			if !errors.As(err, &f) || f.Code != lane.ExclusionBudget || f.Dispatched || refusal.Of(err) != c.class.Class {
				t.Fatalf("error %v, want an undispatched budget stop of class %v", err, c.class)
			}
			if x.hits.Load() != 0 || len(x.ledger(t).Calls) != 0 {
				t.Errorf("%d requests, %d call rows after a refusal before dispatch", x.hits.Load(), len(x.ledger(t).Calls))
			}
			code := lane.ExclusionBudget
			if err := x.w.Finalize("excluded", "2035-01-02T03:05:00Z", &code); err != nil {
				t.Errorf("a budget exclusion over no calls is refused: %v", err)
			}
		})
	}
}

// TestCallBound is R16: the run's own call bound stops the next turn before
// dispatch.
func TestCallBound(t *testing.T) {
	steps := referenceSteps(t)
	var n atomic.Int64
	x := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		answer(t, steps[n.Add(1)-1].rec, 4211)(w, r)
	}, func(cfg *lane.Config) { cfg.MaxCalls = 3 })
	for i := range 3 {
		if _, err := x.agent.Decide(steps[i].obs); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	_, err := x.agent.Decide(steps[3].obs)
	var f *lane.Failure
	if !errors.As(err, &f) || f.Code != lane.ExclusionBudget || refusal.Of(err) != provider.ErrCallBound.Class {
		t.Fatalf("call 4: %v", err)
	}
	if x.hits.Load() != 3 || len(x.ledger(t).Calls) != 3 {
		t.Errorf("%d requests, %d rows", x.hits.Load(), len(x.ledger(t).Calls))
	}
}

func TestWallClockDeadline(t *testing.T) {
	steps := referenceSteps(t)
	x := newHarness(t, answer(t, steps[0].rec, 4211), func(cfg *lane.Config) {
		cfg.WallClockDeadline = time.Minute
		cfg.RunStart = cfg.Now().Add(-2 * time.Minute)
	})
	_, err := x.agent.Decide(steps[0].obs)
	var f *lane.Failure
	if !errors.As(err, &f) || f.Code != lane.ExclusionDeadline || x.hits.Load() != 0 {
		t.Fatalf("%v with %d requests", err, x.hits.Load())
	}
}

// TestReservationBreached: a measured cost above its reservation is
// recorded as measured and stops the run as a budget stop.
func TestReservationBreached(t *testing.T) {
	steps := referenceSteps(t)
	x := newHarness(t, answer(t, steps[0].rec, 10_000_000), nil)
	_, err := x.agent.Decide(steps[0].obs)
	var f *lane.Failure
	if !errors.As(err, &f) || f.Code != lane.ExclusionBudget || refusal.Of(err) != provider.ErrReservationBreached.Class {
		t.Fatalf("%v", err)
	}
	a := x.ledger(t)
	if len(a.Calls) != 1 || *a.Calls[0].Attempts[0].CostSettlement != "measured" || a.Calls[0].Decision == nil {
		t.Fatal("the breached call is not recorded as measured with its decision")
	}
	code := lane.ExclusionBudget
	if err := x.w.Finalize("excluded", "2035-01-02T03:05:00Z", &code); err != nil {
		t.Error(err)
	}
}

func TestClassifiedAnswer(t *testing.T) {
	steps := referenceSteps(t)
	x := newHarness(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"id":"r","object":"response","model":"gpt-5.6-luna","status":"completed","output":[{"type":"message","content":[]}],"usage":{"input_tokens":10,"output_tokens":1}}`))
	}, nil)
	d, err := x.agent.Decide(steps[0].obs)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := d.(*engine.Malformed); !ok || m.Code != lane.CodeNoToolCall {
		t.Fatalf("decision %v", d.Record())
	}
	c := x.ledger(t).Calls[0]
	if c.Decision == nil || c.Decision.Kind != "MALFORMED" || c.Decision.ClassificationCode == nil || *c.Decision.ClassificationCode != lane.CodeNoToolCall {
		t.Errorf("row decision %+v", c.Decision)
	}
	if x.agent.Execution().Attempts[0].Outcome != "classified" {
		t.Error("a classified answer is not a classified attempt")
	}
}

func TestRunIdentity(t *testing.T) {
	steps := referenceSteps(t)
	x := newHarness(t, answer(t, steps[0].rec, 4211), nil)
	x.agent.BeginEpisode(engine.AgentIdentity{OperationInstanceID: "opinst_" + "22222222222222222222222222222222"})
	if _, err := x.agent.Decide(steps[0].obs); refusal.Of(err) != lane.ErrRunIdentity.Class {
		t.Errorf("episode of another instance: %v", err)
	}
	y := newHarness(t, answer(t, steps[0].rec, 4211), func(cfg *lane.Config) {
		cfg.OperationInstanceID = "opinst_" + "33333333333333333333333333333333"
	})
	if _, err := y.agent.Decide(steps[0].obs); refusal.Of(err) != lane.ErrRunIdentity.Class {
		t.Errorf("observation of another instance: %v", err)
	}
	if x.hits.Load()+y.hits.Load() != 0 {
		t.Error("a request was sent for another instance")
	}
}

func TestNewRefusesEndpoint(t *testing.T) {
	x := newHarness(t, func(http.ResponseWriter, *http.Request) {}, nil)
	_, err := lane.New(lane.Config{
		Lane: openai.Lane, Client: x.srv.Client(), BaseURL: "http://127.0.0.1/v1", Profile: profile, Ledger: x.w,
		Now: time.Now, OperationInstanceID: instance, MaxCalls: 1,
	})
	if refusal.Of(err) != lane.ErrEndpoint.Class {
		t.Errorf("%v", err)
	}
}

// TestWholeRunAgainstScript runs V1 end to end against the preflight's
// scripted provider, reading the ledger back after every decision (R5):
// each read is a verified prefix, incomplete, with exactly the calls made.
func TestWholeRunAgainstScript(t *testing.T) {
	ref, _ := domains.Default().Agent("reference")
	tape, err := engine.Execute(domain(t), ref.New(), instance)
	if err != nil {
		t.Fatal(err)
	}
	vendor, _ := preflight.VendorFor(openai.ID)
	script := &preflight.Script{Vendor: vendor, Model: model, Credential: preflight.Credential, Tape: tape.Decisions, Fault: preflight.FaultNone, MaxRequests: 60}
	lb := preflight.Serve(script)
	defer lb.Close()
	head := ledgertest.Header()
	head.StartedAt = "2035-01-02T03:04:05Z" // the run's clock below starts here
	if head.Provider, err = lane.ProviderIdentity(openai.Lane, profile, lb.BaseURL); err != nil {
		t.Fatal(err)
	}
	file := &ledgertest.MemFile{}
	w, err := execledger.NewWriter(file, head)
	if err != nil {
		t.Fatal(err)
	}
	c := ledgertest.NewClock()
	agent, err := lane.New(lane.Config{
		Client: lb.Client, BaseURL: lb.BaseURL, Lane: openai.Lane, Profile: profile, Credential: preflight.Credential,
		MaxCalls: 60, Ledger: w, Now: c.Now, OperationInstanceID: instance,
	})
	if err != nil {
		t.Fatal(err)
	}
	reads := &readBack{inner: agent, t: t, file: file}
	ep, err := engine.Execute(domain(t), reads, instance)
	if err != nil {
		t.Fatal(err)
	}
	if reads.n != len(ep.Decisions) || reads.n != 46 || script.Refused() != 0 {
		t.Fatalf("%d decisions read back, %d in the episode, %d refused", reads.n, len(ep.Decisions), script.Refused())
	}
	if ep.DecisionsDigest != tape.DecisionsDigest || ep.TrajectoryDigest != tape.TrajectoryDigest {
		t.Error("the model run did not reproduce the reference run it was scripted from")
	}
	if err := w.Finalize("scored", c.Now().Format("2006-01-02T15:04:05Z"), nil); err != nil {
		t.Fatal(err)
	}
	a, err := execledger.Read(bytes.NewReader(file.Bytes()), execledger.Options{RequireComplete: true})
	if err != nil {
		t.Fatal(err)
	}
	// No guard: no amounts are stated, and none are totalled.
	if a.Totals.ProviderCalls != 46 || a.Totals.MeasuredCostUSD != "0" || a.Totals.ReservedUSD != "0" || a.Calls[0].Attempts[0].CostReservationUSD != nil {
		t.Errorf("totals %+v", a.Totals)
	}
	for i, d := range script.BodyDigests() {
		if *a.Calls[i].WireRequestDigest != d {
			t.Fatalf("call %d: wire digest is not the received body's", i)
		}
	}
}

type readBack struct {
	inner engine.Agent
	t     *testing.T
	file  *ledgertest.MemFile
	n     int
}

func (r *readBack) BeginEpisode(id engine.AgentIdentity) { r.inner.BeginEpisode(id) }
func (r *readBack) Decide(obs *engine.Observation) (engine.Decision, error) {
	d, err := r.inner.Decide(obs)
	if err != nil {
		return d, err
	}
	r.n++
	a, rerr := execledger.Read(bytes.NewReader(r.file.Bytes()), execledger.Options{})
	if rerr != nil {
		r.t.Errorf("after decision %d the ledger does not read: %v", r.n, rerr)
	} else if a.Status() != execledger.StatusIncomplete || len(a.Calls) != r.n {
		r.t.Errorf("after decision %d the ledger reads %s with %d calls", r.n, a.Status(), len(a.Calls))
	}
	return d, err
}

// twice hands the capture a second copy of the turn's request before
// sending the first: a turn that dispatched two requests and records one
// attempt.
type twice struct {
	capture, next http.RoundTripper
	done          bool
}

func (t *twice) RoundTrip(r *http.Request) (*http.Response, error) {
	if !t.done {
		t.done = true
		c := r.Clone(r.Context())
		c.Body, _ = r.GetBody()
		if resp, err := t.capture.RoundTrip(c); err == nil {
			resp.Body.Close()
		}
	}
	return t.next.RoundTrip(r)
}

func TestWireDispatch(t *testing.T) {
	steps := referenceSteps(t)
	x := newHarness(t, answer(t, steps[0].rec, 4211), nil)
	lane.WrapTransport(x.agent, func(capture, next http.RoundTripper) http.RoundTripper {
		return &twice{capture: capture, next: next}
	})
	if _, err := x.agent.Decide(steps[0].obs); refusal.Of(err) != lane.ErrWireDispatch.Class {
		t.Fatalf("two dispatches in one turn: %v", err)
	}
	if n := len(x.ledger(t).Calls); n != 0 {
		t.Errorf("%d call rows written for a turn whose wire evidence is refused", n)
	}
}

// TestDialRefusalIsNotAFault: a refusal raised inside the transport (the
// preflight's loopback-only dialer) is returned as that refusal, not
// recorded as a provider fault: nothing left the machine, no row is
// written and the reservation is released.
func TestDialRefusalIsNotAFault(t *testing.T) {
	steps := referenceSteps(t)
	lb := preflight.Serve(http.NotFoundHandler())
	defer lb.Close()
	x := newHarness(t, answer(t, steps[0].rec, 4211), func(cfg *lane.Config) {
		cfg.Client, cfg.BaseURL = lb.Client, "https://203.0.113.7/v1"
	})
	_, err := x.agent.Decide(steps[0].obs)
	var f *lane.Failure
	if refusal.Of(err) != preflight.ErrNotLoopback.Class || errors.As(err, &f) {
		t.Fatalf("%v", err)
	}
	if len(x.ledger(t).Calls) != 0 {
		t.Error("a call row for a request that never left")
	}
	if _, _, outstanding := x.guard.Totals(); outstanding.Sign() != 0 || x.guard.ReservedTokens() != 0 {
		t.Errorf("outstanding %s, %d tokens reserved after a request that never left", outstanding, x.guard.ReservedTokens())
	}
}

// TestModelEcho: an answer naming another model is not read (its usage is
// not taken: the reservation is forfeited) unless the profile records that
// its vendor states no model, in which case the stated model is recorded
// as stated.
func TestModelEcho(t *testing.T) {
	steps := referenceSteps(t)
	other := func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"id":"r","object":"response","model":"gpt-5.6-luna-2099","status":"completed","output":[],"usage":{"input_tokens":10,"output_tokens":1}}`))
	}
	x := newHarness(t, other, nil)
	_, err := x.agent.Decide(steps[0].obs)
	var f *lane.Failure
	if !errors.As(err, &f) || f.Code != lane.FaultResponseInvalid {
		t.Fatalf("another model: %v", err)
	}
	at := x.ledger(t).Calls[0].Attempts[0]
	if at.UsageReported || at.ResponseModel != nil || *at.CostSettlement != execledger.SettlementForfeited {
		t.Errorf("another model's answer was read: %+v", at)
	}
	y := newHarness(t, other, func(c *lane.Config) { c.Profile.ModelStated = false })
	if _, err := y.agent.Decide(steps[0].obs); err != nil {
		t.Fatalf("a profile whose vendor states no model: %v", err)
	}
	if at := y.ledger(t).Calls[0].Attempts[0]; at.ResponseModel == nil || *at.ResponseModel != "gpt-5.6-luna-2099" || !at.UsageReported {
		t.Errorf("the stated model is not recorded as stated: %+v", at)
	}
}

// TestInterrupted: once the run's context is cancelled, the next turn is
// refused before dispatch with operator_interrupted; a call answered
// before stays recorded and the journal finalizes excluded over it (a
// control stop needs no fault behind it).
func TestInterrupted(t *testing.T) {
	steps := referenceSteps(t)
	ctx, cancel := context.WithCancel(context.Background())
	x := newHarness(t, answer(t, steps[0].rec, 4211), func(cfg *lane.Config) { cfg.Context = ctx })
	if _, err := x.agent.Decide(steps[0].obs); err != nil {
		t.Fatal(err)
	}
	cancel()
	_, err := x.agent.Decide(steps[1].obs)
	var f *lane.Failure
	if !errors.As(err, &f) || f.Code != lane.ExclusionInterrupted || f.Dispatched || !errors.Is(err, context.Canceled) {
		t.Fatalf("after the interrupt: %v", err)
	}
	if x.hits.Load() != 1 || len(x.ledger(t).Calls) != 1 {
		t.Fatalf("%d requests, %d rows", x.hits.Load(), len(x.ledger(t).Calls))
	}
	code := lane.ExclusionInterrupted
	if err := x.w.Finalize("excluded", "2035-01-02T03:05:00Z", &code); err != nil {
		t.Fatal(err)
	}
	if a := x.ledger(t); a.Status() != "excluded" || a.Terminal == nil || *a.Terminal.ExclusionCode != code {
		t.Fatalf("read back %s", a.Status())
	}
}
