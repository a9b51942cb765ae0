package lane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/format/decision"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrWireDispatch is returned when a turn's transport was handed a
	// different number of requests than the turn records, or bytes other
	// than the body the turn built: evidence that would not describe the
	// wire is refused rather than written.
	ErrWireDispatch = refusal.Sentinel("provider/wire-dispatch")
	// ErrRunIdentity is returned when the episode the agent is asked to
	// decide for is not the operation instance its ledger header names.
	ErrRunIdentity = refusal.Sentinel("provider/run-identity")
)

// Exclusion codes of a run stopped by a control before dispatch.
const (
	ExclusionBudget   = execledger.ExclusionBudget
	ExclusionDeadline = execledger.ExclusionDeadline
	// ExclusionInterrupted: the operator interrupted the run (its
	// Config.Context was cancelled).
	ExclusionInterrupted = execledger.ExclusionInterrupted
)

// Failure stops a run at the provider boundary: a fault met on the wire
// (its call row is in the ledger), or a control that refused the next
// request before dispatch (no call row: nothing left). It is not a refusal
// of any input: the run is excluded, its ledger's terminal row names Code,
// and it has no artefact.
type Failure struct {
	// Code is the terminal exclusion code: the provider fault, or
	// provider_budget / provider_deadline for a control stop.
	Code string
	// Dispatched reports whether the request that failed reached the
	// transport.
	Dispatched bool
	// HTTPStatus is the status received, 0 when none was.
	HTTPStatus int
	// Err is the cause (a guard refusal, a transport error), if any.
	Err error
}

func (f *Failure) Error() string {
	s := "the run stopped at the provider boundary: " + f.Code
	if f.HTTPStatus != 0 {
		s += fmt.Sprintf(" (HTTP %d)", f.HTTPStatus)
	}
	if f.Err != nil {
		s += ": " + f.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (f *Failure) Unwrap() error { return f.Err }

// Config configures an [Agent]. Lane, Client, BaseURL, Profile, Ledger,
// Now and OperationInstanceID are required.
type Config struct {
	// Lane is the wire form requests are sent and answers read in.
	Lane Lane
	// Client is the real HTTP client requests are sent with. The agent
	// uses a copy of it whose transport is wrapped to capture each request
	// handed to it, that refuses redirects, and whose timeout is
	// TurnDeadline. Its Transport must be set explicitly (the default
	// transport would consult proxy environment variables).
	Client *http.Client
	// BaseURL is the API root, e.g. https://127.0.0.1:8443/v1; requests go
	// to BaseURL + Lane.Path().
	BaseURL string
	// Profile is what every request is made under.
	Profile Profile
	// Credential, when not empty, is placed in the lane's authentication
	// header. It is a value handed in by cmd; the agent reads no
	// credential and writes this one nowhere.
	Credential string
	// MaxCalls bounds the calls this run may make; the next is refused
	// before dispatch (provider_budget).
	MaxCalls int64
	// Guard reserves each call's worst case before dispatch and settles or
	// forfeits it; nil states no amounts.
	Guard *provider.Guard
	// Ledger receives one call row per dispatched turn.
	Ledger *execledger.Writer
	// Now is the wall clock (cmd passes time.Now). Instants and latencies
	// are taken from it and nowhere else.
	Now func() time.Time
	// RunStart is when the run's wall-clock deadline started.
	RunStart time.Time
	// TurnDeadline bounds one request (0: none); WallClockDeadline bounds
	// the run (0: none), checked before each dispatch.
	TurnDeadline, WallClockDeadline time.Duration
	// OperationInstanceID is the instance the ledger header names.
	OperationInstanceID string
	// Context, when cancelled (an operator interrupt), stops the run: it
	// is checked before each dispatch, and once it is done no new request
	// is sent; the run stops with a [*Failure] of code
	// operator_interrupted. A request already in flight is carried by
	// context.WithoutCancel(Context) and completes (bounded by
	// TurnDeadline): cutting it off would leave a call the provider may
	// have received, and billed, with no answer in the ledger. nil is
	// context.Background().
	Context context.Context
}

// Agent is an [engine.Agent] whose decisions come off a provider lane over
// a real HTTP client. Per turn it builds the request from the
// observation, reserves its worst case with the cost guard, sends it,
// reads the answer into a decision (or a classified MALFORMED), and
// appends the call row — request identity and wire digests, the attempt,
// its fault, amounts, usage and response digests — to the execution
// ledger before the decision is returned. A fault or a control stop ends
// the run with a [*Failure]. An Agent is used by one episode at a time.
type Agent struct {
	cfg      Config
	client   *http.Client
	capture  *capture
	endpoint string
	wireURL  string
	calls    int64
	attempts []artefact.Attempt
	stopped  error
}

// New returns an agent for cfg.
func New(cfg Config) (*Agent, error) {
	if cfg.Lane == nil || cfg.Client == nil || cfg.Client.Transport == nil || cfg.Ledger == nil || cfg.Now == nil || cfg.Profile.Model == "" || cfg.Profile.MaxOutputTokens <= 0 {
		return nil, errors.New("lane: an agent needs a lane, a client with an explicit transport, a ledger, a clock and a profile")
	}
	base, err := ParseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	c := &capture{next: cfg.Client.Transport}
	client := *cfg.Client
	client.Transport = c
	client.Timeout = cfg.TurnDeadline
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	client.Jar = nil
	return &Agent{
		cfg: cfg, client: &client, capture: c,
		endpoint: strings.TrimSuffix(base.String(), "/") + cfg.Lane.Path(),
		wireURL:  LedgerURL(base) + cfg.Lane.Path(),
	}, nil
}

// BeginEpisode implements [engine.Agent].
func (a *Agent) BeginEpisode(id engine.AgentIdentity) {
	if id.OperationInstanceID != a.cfg.OperationInstanceID && a.stopped == nil {
		a.stopped = refusal.New(ErrRunIdentity, "the episode is instance %s and the ledger names %s", id.OperationInstanceID, a.cfg.OperationInstanceID)
	}
}

// Calls is the number of calls recorded.
func (a *Agent) Calls() int64 { return a.calls }

// Execution is the artefact's execution record of the decisions returned
// so far: one attempt per call, decided or classified.
func (a *Agent) Execution() *artefact.Execution {
	model, protocol, ceiling := a.cfg.Profile.Model, ProtocolVersion, a.cfg.Profile.MaxOutputTokens
	return &artefact.Execution{
		OutcomeSource: artefact.SourceModel, Model: &model, ProtocolVersion: &protocol,
		MaxOutputTokens: &ceiling, TransportCalls: a.calls, RetryCount: artefact.RetryCount,
		Attempts: append([]artefact.Attempt{}, a.attempts...),
	}
}

func seconds(from, to time.Time) any {
	d := to.Sub(from)
	if d < 0 {
		return nil // a clock that moved backwards measured nothing
	}
	return d.Seconds()
}

func (a *Agent) stop(err error) (engine.Decision, error) {
	a.stopped = err
	return nil, err
}

// Decide implements [engine.Agent].
func (a *Agent) Decide(obs *engine.Observation) (engine.Decision, error) {
	if a.stopped != nil {
		return nil, a.stopped
	}
	if obs.OperationInstanceID != a.cfg.OperationInstanceID {
		return a.stop(refusal.New(ErrRunIdentity, "the observation is of instance %s and the ledger names %s", obs.OperationInstanceID, a.cfg.OperationInstanceID))
	}
	turnStart := a.cfg.Now()
	if a.cfg.WallClockDeadline > 0 && turnStart.Sub(a.cfg.RunStart) > a.cfg.WallClockDeadline {
		return a.stop(&Failure{Code: ExclusionDeadline, Err: fmt.Errorf("the run's wall-clock deadline of %s has passed", a.cfg.WallClockDeadline)})
	}
	ctx := a.cfg.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := context.Cause(ctx); err != nil {
		return a.stop(&Failure{Code: ExclusionInterrupted, Err: err})
	}
	if a.calls >= a.cfg.MaxCalls {
		return a.stop(&Failure{Code: ExclusionBudget, Err: refusal.New(provider.ErrCallBound, "call %d would pass this run's bound of %d provider calls", a.calls+1, a.cfg.MaxCalls)})
	}
	req, err := BuildRequest(a.cfg.Lane, obs, a.cfg.Profile)
	if err != nil {
		return a.stop(err)
	}
	var res provider.Reservation
	if a.cfg.Guard != nil {
		if res, err = a.cfg.Guard.Authorize(req.InputTokenUpperBound); err != nil {
			return a.stop(&Failure{Code: ExclusionBudget, Err: err})
		}
	}
	httpReq, err := http.NewRequestWithContext(context.WithoutCancel(ctx), http.MethodPost, a.endpoint, bytes.NewReader(req.Body))
	if err != nil {
		return a.stop(err)
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "application/json")
	httpReq.Header.Set("User-Agent", "obaudit")
	a.cfg.Lane.Headers(httpReq.Header, a.cfg.Credential)

	a.capture.reset()
	started := a.cfg.Now()
	resp, doErr := a.client.Do(httpReq)
	var body []byte
	var readErr error
	if doErr == nil {
		body, readErr = io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
		resp.Body.Close()
	}
	ended := a.cfg.Now()

	sent := a.capture.take()
	if len(sent) != 1 {
		if a.cfg.Guard != nil && len(sent) == 0 {
			a.cfg.Guard.Cancel(res)
		}
		return a.stop(refusal.New(ErrWireDispatch, "turn (%d, %d) handed %d request(s) to the transport and records one attempt", req.InvocationIndex, req.TurnIndex, len(sent)))
	}
	w := sent[0]
	if w.digest != req.PayloadDigest || w.method != http.MethodPost {
		return a.stop(refusal.New(ErrWireDispatch, "turn (%d, %d): the bytes handed to the transport are not the body built", req.InvocationIndex, req.TurnIndex))
	}
	// A refusal raised inside the transport (a dial guard, say) is not a
	// provider fault: nothing left this machine. (A nil doErr has no class.)
	if _, ok := refusal.ClassOf(doErr); ok {
		if a.cfg.Guard != nil {
			a.cfg.Guard.Cancel(res)
		}
		return a.stop(doErr)
	}

	att := execledger.Attempt{AttemptIndex: 1, LatencySeconds: seconds(started, ended)}
	var answer *Answer
	var fault string
	status := 0
	switch {
	case doErr != nil:
		fault = transportFault(doErr)
	default:
		status = resp.StatusCode
		s := int64(status)
		att.HTTPStatus, att.ResponseReceived = &s, true
		switch {
		case status != http.StatusOK:
			fault = a.cfg.Lane.StatusFault(status, body)
		case readErr != nil:
			// A body cut off mid-read: the response began and never ended.
			fault = transportFault(readErr)
		case len(body) > MaxResponseBytes:
			fault = FaultResponseInvalid
		default:
			want := a.cfg.Profile.Model
			if !a.cfg.Profile.ModelStated {
				want = "" // the vendor states no model: nothing to hold it to
			}
			if answer, err = a.cfg.Lane.ParseAnswer(body, want); err != nil {
				fault = FaultResponseInvalid
			}
		}
	}

	call := execledger.Call{
		CallIndex: a.calls, InvocationIndex: req.InvocationIndex, TurnIndex: req.TurnIndex,
		RequestDigest: req.RequestDigest, PromptDigest: req.PromptDigest,
		ObservationDigest: req.ObservationDigest, PayloadDigest: req.PayloadDigest,
		WireRequestDigest: &w.digest, WireRequestBytes: &w.bytes, WireRequestMethod: &w.method, WireRequestURL: &a.wireURL,
		InputTokenUpperBound: req.InputTokenUpperBound,
		StartedAt:            Instant(started), EndedAt: Instant(ended),
		TurnLatencySeconds: seconds(turnStart, ended),
	}
	if call.EndedAt < call.StartedAt { // a wall clock stepped back between the two
		call.EndedAt = call.StartedAt
	}
	var dec engine.Decision
	var settleErr error
	if fault != "" {
		att.Outcome, att.Fault = execledger.OutcomeFault, &fault
		reason := "fault_not_retryable"
		if Retryable(fault) {
			reason = execledger.TurnRetriesExhausted
		}
		call.TerminalReason = &reason
	} else {
		att.Outcome = execledger.OutcomeResponse
		nd, err := answer.NormalizedDigest()
		if err != nil {
			return a.stop(err)
		}
		stop := answer.Stop
		att.ResponseModel, att.ResponseStopClassification, att.ResponseNormalizedDigest = &answer.Model, &stop, &nd
		if answer.ID != "" {
			d := canon.SHA256Hex([]byte(answer.ID))
			att.ResponseIDDigest = &d
		}
		if answer.UsageReported {
			in, out := answer.InputTokens, answer.OutputTokens
			att.UsageReported, att.InputTokens, att.OutputTokens = true, &in, &out
		}
		reason := execledger.TurnResponse
		call.TerminalReason = &reason
		dec = answer.Decision()
		rec := dec.Record()
		dd, err := canon.UpstreamDigest(rec)
		if err != nil {
			return a.stop(err)
		}
		cd := &execledger.Decision{Kind: dec.Kind(), DecisionDigest: dd}
		if m, ok := dec.(*engine.Malformed); ok {
			code := m.Code
			cd.ClassificationCode = &code
		}
		call.Decision = cd
	}
	if a.cfg.Guard != nil {
		reserved := res.Amount.String()
		att.CostReservationUSD = &reserved
		if att.UsageReported {
			m, err := a.cfg.Guard.Settle(res, *att.InputTokens, *att.OutputTokens)
			settleErr = err
			ms, settlement := m.String(), execledger.SettlementMeasured
			att.CostMeasuredUSD, att.CostSettlement = &ms, &settlement
		} else {
			f, settlement := a.cfg.Guard.Forfeit(res).String(), execledger.SettlementForfeited
			att.CostForfeitedUSD, att.CostSettlement = &f, &settlement
		}
	}
	call.Attempts = []execledger.Attempt{att}
	if err := a.cfg.Ledger.RecordCall(call); err != nil {
		return a.stop(err)
	}
	a.calls++
	if fault != "" {
		cause := doErr
		if cause == nil {
			cause = readErr
		}
		return a.stop(&Failure{Code: fault, Dispatched: true, HTTPStatus: status, Err: cause})
	}
	outcome := "decided"
	if dec.Kind() == decision.KindMalformed {
		outcome = "classified"
	}
	a.attempts = append(a.attempts, artefact.Attempt{
		InvocationIndex: req.InvocationIndex, TurnIndex: req.TurnIndex, RequestDigest: req.RequestDigest, Outcome: outcome,
	})
	if settleErr != nil {
		// The measured cost passed its reservation: the amount is banked and
		// recorded, and the run stops as a budget stop.
		return a.stop(&Failure{Code: ExclusionBudget, Dispatched: true, HTTPStatus: status, Err: settleErr})
	}
	return dec, nil
}

func transportFault(err error) string {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return FaultTimeout
	}
	return FaultNetwork
}

// wire is one request as it was handed to the transport.
type wire struct {
	digest string
	bytes  int64
	method string
}

// capture wraps the client's transport and records every request handed
// to it: the SHA-256 and length of the body bytes, and the method.
type capture struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []wire
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	c.mu.Lock()
	c.sent = append(c.sent, wire{digest: canon.SHA256Hex(body), bytes: int64(len(body)), method: r.Method})
	c.mu.Unlock()
	out := r.Clone(r.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return c.next.RoundTrip(out)
}

func (c *capture) reset() {
	c.mu.Lock()
	c.sent = nil
	c.mu.Unlock()
}

func (c *capture) take() []wire {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = nil
	return s
}
