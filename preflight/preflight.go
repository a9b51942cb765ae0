// Package preflight is the offline operator preflight: it drives the
// model-backed agent (package provider/lane) on one lane (OpenAI
// Responses, Anthropic Messages or Chat Completions, under that lane's
// embedded example profile) through a real net/http client against an
// in-process scripted provider on a loopback TLS listener that answers
// each turn with the reference agent's decision in the lane's vendor's
// wire format ([Vendor]), and writes the execution ledger and the episode
// artefact the run produces. There is no way to point a preflight at a
// service: the client's dialer refuses every address that is not a
// loopback IP, it sends a fixed placeholder ([Credential]) in the lane's
// header, and it reads no credential. [Live] runs the same model run, with
// the same checks after it, against an operator's endpoint with the
// credential cmd hands it.
//
// One [Run] is one cell. The reference cell ([FaultNone]) is to end scored
// with an audited pair ([Result.OK]): its ledger (ID.execution_ledger.ndjson, ID its
// operation instance id: [FileName])
// reads back complete and scored, the wire digest of every call row is the
// digest of the body the scripted provider received, the artefact
// (ID.episode_artifact.json) is contract 8 with a binding to that ledger, the
// bundle audit passes, and the artefact replays at zero provider calls. A
// fault cell (429, 500, 400, overloaded, Anthropic's spend limit, an
// invalid body, a wrong model, a truncated answer, a stream cut mid-body, a
// closed connection, on request [DefaultFaultAt]) is to end excluded with
// its fault ([ExpectedFault]), and writes its ledger
// (ID.CELL.execution_ledger.ndjson) and no artefact. A cell that ends otherwise (a lowered call bound, say) is
// reported ([Result.AsExpected] is false), not refused.
//
// The bounds are the build's (package provider): at most
// [provider.MaxProviderCalls] calls, checked before anything is built and
// again per call by the agent and by the script's own counter; the token
// ceiling [provider.TokenHardCap], checked on the worst case up front and
// per call by the cost guard before dispatch; the cost cap, likewise.
//
// # Refusals
//
// [ErrNotLoopback] (the client was asked to dial something other than a
// loopback address), [ErrSelfCheck] (the run finished and one of its own
// checks failed); the up-front refusals are package provider's
// (preflight/call-bound, preflight/token-exposure, preflight/cost-exposure,
// preflight/live-environment), and ledger, artefact, bundle and replay
// refusals keep their classes. A live run's own: [ErrLiveRequired],
// [ErrRatesRequired], [ErrCredentialMissing], [ErrTrustRoots].
package preflight

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/bundle"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/provider/profile"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrNotLoopback is returned when the preflight's client is asked to
	// dial an address that is not a loopback IP: it reaches no service.
	ErrNotLoopback = refusal.Sentinel("preflight/not-loopback")
	// ErrSelfCheck is returned when a cell finished and one of its own
	// checks failed: a ledger that does not record one call per request
	// the provider received, a wire digest that is not the digest of the
	// body the provider received, a normalized response digest that is not
	// the digest of the answer it sent, a decision that is not the
	// reference decision it answered with, a model run with more or fewer calls than
	// decisions, a scored run the scripted provider refused a request in,
	// or an artefact that does not replay at zero provider calls with every
	// request digest rebuilt ([RequestDigests]). (A cell
	// that ended otherwise than its kind must, e.g. excluded by a lowered
	// call bound, is a Result whose OK is false, not a refusal.)
	ErrSelfCheck = refusal.Sentinel("preflight/self-check-failed")
)

// Fixed values of the preflight's model run.
const (
	// Credential is the fixed value the agent is handed and the scripted
	// provider checks in the lane's header: it is not a credential and
	// nothing reads one.
	Credential = "preflight-loopback-not-a-credential"
	// DefaultFaultAt is the request (1-based) a fault cell faults on.
	DefaultFaultAt = 4
	// DefaultLane is the lane a preflight runs on unless told.
	DefaultLane = openai.ID
)

// Operator-stated pricing defaults: pinned rates, not a vendor price claim.
const (
	DefaultCostCapUSD       = "10.00"
	DefaultInputUSDPerMTok  = "1.25"
	DefaultOutputUSDPerMTok = "10.00"
	DefaultPricingPolicyID  = "offline_operator_pinned_v1"
)

// Suffixes of the files obaudit names itself ([FileName]).
const (
	ArtefactSuffix = ".episode_artifact.json"
	LedgerSuffix   = ".execution_ledger.ndjson"
	BundleSuffix   = ".sigstore.json"
	ProofSuffix    = ".tlog-proof"
)

// FileName is the one rule naming the files obaudit names by default: the
// stem of from (its base name without the first of [ArtefactSuffix],
// [LedgerSuffix], [BundleSuffix] or ".json" it ends with), then suffix. A
// preflight's or model run's stem is its operation instance id (and, for a
// fault cell's ledger, "id.cell"), sign's is its artefact's and commit's
// each bundle's, so every name carries the episode's id and the outputs of
// many episodes share one directory: preflight → sign → commit without
// renaming.
func FileName(from, suffix string) string {
	b := filepath.Base(from)
	for _, s := range []string{ArtefactSuffix, LedgerSuffix, BundleSuffix, ".json"} {
		if stem, ok := strings.CutSuffix(b, s); ok && stem != "" {
			return stem + suffix
		}
	}
	return b + suffix
}

// OutputNames are the names ([FileName]) of what a cell, or a [Live] run
// (FaultNone), writes beneath its output directory: its ledger ("ID" or
// "ID.CELL" then [LedgerSuffix]) and its artefact, written only when the
// run ends scored.
func OutputNames(instanceID string, f Fault) (ledger, artefact string) {
	stem := instanceID
	if f != FaultNone && f != "" {
		stem += "." + string(f)
	}
	return FileName(stem, LedgerSuffix), FileName(instanceID, ArtefactSuffix)
}

// ExpectedFault is the ledger fault a fault cell of lane laneID must end
// with (ok is false for a cell that lane does not run).
func ExpectedFault(laneID string, f Fault) (string, bool) {
	v, ok := VendorFor(laneID)
	if !ok || !slices.Contains(v.Cells(), f) {
		return "", false
	}
	rejected := lane.FaultRequestRejected
	if laneID == anthropic.ID {
		rejected = lane.FaultInvalidRequestOrSpendLimit
	}
	return map[Fault]string{
		Fault429: lane.FaultRateLimited, Fault500: lane.FaultServerError, FaultOverloaded: lane.FaultServerError,
		Fault400: rejected, FaultTruncated: rejected, FaultSpendLimit: lane.FaultSpendLimit,
		FaultInvalidBody: lane.FaultResponseInvalid, FaultWrongModel: lane.FaultResponseInvalid,
		FaultStreamCut: lane.FaultNetwork, FaultTransport: lane.FaultNetwork,
	}[f], true
}

// Config is one preflight cell. Domain, Reference, EngineVersion,
// OutputDir, MaxCalls, Now, ExecutionRunID and OperationInstanceID are
// required.
type Config struct {
	// Lane is the lane to run (empty: [DefaultLane]), under its embedded
	// example profile ([profile.ForLane]).
	Lane string
	// Domain is the operation bound to the scenario to run.
	Domain engine.Domain
	// Reference returns a fresh reference agent: the script's answers are
	// its decisions.
	Reference func() engine.Agent
	// EngineVersion is the engine the run names.
	EngineVersion string
	// OutputDir is an existing directory of mode 0700 (never created).
	OutputDir string
	// MaxCalls is the run's call bound, 1 to provider.MaxProviderCalls.
	MaxCalls int64
	// Fault selects the cell (empty is FaultNone); FaultAt is the 1-based
	// request it faults on (0 is DefaultFaultAt).
	Fault   Fault
	FaultAt int
	// CostCapUSD, InputUSDPerMTok, OutputUSDPerMTok and PricingPolicyID
	// are the operator's cap and pinned rates (empty: the defaults).
	CostCapUSD, InputUSDPerMTok, OutputUSDPerMTok, PricingPolicyID string
	// Now is the wall clock (cmd passes time.Now).
	Now func() time.Time
	// ExecutionRunID ("exec_"+32 hex) and OperationInstanceID
	// ("opinst_"+32 hex) are minted by the caller.
	ExecutionRunID, OperationInstanceID string
	// Environment looks up a variable in a snapshot of the environment
	// taken by cmd (nil: an empty environment). The preflight refuses to
	// start beside any variable that would point a client at a service.
	Environment func(string) (string, bool)
	// ArtefactOptions validate the artefact before it is written and
	// during the bundle audit and replay (the registered domains).
	ArtefactOptions artefact.Options
	// Agents looks up registered in-process agents for replay (a model
	// artefact needs none; passed for completeness).
	Agents func(id string) (episode.Registered, bool)
	// Latency is added by the scripted provider before each answer (zero:
	// none); campaigns use it to model a latency-bound provider.
	Latency time.Duration
	// Context, when cancelled (cmd: at an operator's SIGINT/SIGTERM),
	// stops the run before its next provider call: the ledger ends
	// excluded with operator_interrupted and no artefact is written. nil
	// is context.Background().
	Context context.Context
}

// Result is what a cell did.
type Result struct {
	Cell Fault
	// Lane is the lane run; Profile the profile it ran under; AgentID the
	// artefact's agent.
	Lane    string
	Profile lane.Profile
	AgentID string
	// Live is true for a [Live] run: a real endpoint, a credential handed
	// in.
	Live bool
	// CheckedEnvironment are the variables the live-environment check read.
	CheckedEnvironment []string
	ScenarioID         string
	// Controls are the ledger header's controls as written.
	Controls execledger.Controls
	// WorstCaseUSD is the run's worst case at the stated rates.
	WorstCaseUSD string
	// TokenWorstCase is MaxCalls × (largest request + output ceiling).
	TokenWorstCase int64
	// LargestRequestBound is the largest input-token bound a call of this
	// run stated.
	LargestRequestBound int64
	// LedgerPath is always set once the journal was created; ArtefactPath
	// only when an artefact was written.
	LedgerPath, ArtefactPath string
	// Ledger is the strict read-back of the journal.
	Ledger *execledger.Audit
	// Status is the ledger's terminal kind; ExclusionCode its code.
	Status, ExclusionCode string
	// Stop is what stopped an excluded run.
	Stop *lane.Failure
	// ProviderRequests is how many requests the scripted provider received
	// (after replay, still the same number).
	ProviderRequests int
	// Reliable is the artefact's evaluation verdict (reference cell).
	Reliable bool
	// Binding, Bundle and Replay are the reference cell's artefact binding,
	// bundle audit and replay report; ReplayProviderCalls is the forbidden
	// transport's count (always 0).
	Binding             *artefact.Binding
	Bundle              *bundle.Result
	Replay              *artefact.ReplayReport
	ReplayProviderCalls int64
}

// OK reports whether the run produced an audited pair: a scored ledger
// and an artefact that passed the bundle audit and replayed at zero
// provider calls. Only a reference cell can.
func (r *Result) OK() bool {
	return r.Status == execledger.TerminalScored && r.ArtefactPath != "" && r.Bundle != nil &&
		r.Replay != nil && r.Replay.OK() && r.ReplayProviderCalls == 0
}

// AsExpected reports whether the cell ended as its kind must: the
// reference cell scored and audited ([Result.OK]), a fault cell excluded
// with its fault and no artefact.
func (r *Result) AsExpected() bool {
	if r.Cell == FaultNone {
		return r.OK()
	}
	want, ok := ExpectedFault(r.Lane, r.Cell)
	return ok && r.Status == execledger.TerminalExcluded && r.ExclusionCode == want && r.ArtefactPath == ""
}

// CheckArguments makes the checks that need nothing but the arguments:
// the call bound and the worst-case token exposure. cmd runs it before
// any client, transport or directory is touched.
func CheckArguments(maxCalls int64) error {
	if err := provider.CheckMaxCalls(maxCalls); err != nil {
		return err
	}
	return provider.CheckTokenExposure(maxCalls, provider.TokenHardCap)
}

// pricing parses the operator's rates and cap.
func pricing(cfg Config) (execledger.Rates, execledger.Decimal, map[string]any, error) {
	parse := func(name, s string) (execledger.Decimal, error) {
		d, ok := execledger.ParseDecimal(s)
		if !ok || d.Sign() < 0 {
			return d, refusal.New(provider.ErrCostExposure, "%s %q is not an exact, non-negative decimal", name, s)
		}
		return d, nil
	}
	in, err := parse("the input rate", cmp.Or(cfg.InputUSDPerMTok, DefaultInputUSDPerMTok))
	if err != nil {
		return execledger.Rates{}, execledger.Decimal{}, nil, err
	}
	out, err := parse("the output rate", cmp.Or(cfg.OutputUSDPerMTok, DefaultOutputUSDPerMTok))
	if err != nil {
		return execledger.Rates{}, execledger.Decimal{}, nil, err
	}
	cap, err := parse("the cost cap", cmp.Or(cfg.CostCapUSD, DefaultCostCapUSD))
	if err != nil {
		return execledger.Rates{}, execledger.Decimal{}, nil, err
	}
	policy := map[string]any{
		"policy_id":           cmp.Or(cfg.PricingPolicyID, DefaultPricingPolicyID),
		"input_usd_per_mtok":  in.String(),
		"output_usd_per_mtok": out.String(),
		"rate_source":         execledger.RateSourceOperator,
	}
	return execledger.Rates{In: in, Out: out}, cap, policy, nil
}

// Run runs one cell: the up-front checks (call bound, token exposure,
// live environment, cost worst case), the reference script, the loopback
// provider, the model run writing its ledger, and the cell's own checks.
// An excluded fault cell is a Result, not an error; a refusal or failure
// is an error (files already written stay: they are write-once evidence).
func Run(cfg Config) (*Result, error) {
	if err := CheckArguments(cfg.MaxCalls); err != nil {
		return nil, err
	}
	lookup := cfg.Environment
	if lookup == nil {
		lookup = func(string) (string, bool) { return "", false }
	}
	checked, err := provider.RefuseLiveEnvironment(lookup)
	if err != nil {
		return nil, err
	}
	rates, cap, policy, err := pricing(cfg)
	if err != nil {
		return nil, err
	}
	if err := provider.CheckWorstCase(cfg.MaxCalls, rates, cap); err != nil {
		return nil, err
	}
	c := cell{Config: cfg, rates: rates, cap: cap, policy: policy, tokenCap: provider.TokenHardCap}
	r, err := c.run()
	if r != nil {
		r.CheckedEnvironment = checked
		r.WorstCaseUSD = provider.WorstCaseUSD(cfg.MaxCalls, rates).String()
		r.TokenWorstCase = provider.TokenWorstCase(cfg.MaxCalls)
	}
	return r, err
}

// cell is one run with its resolved pricing and token cap (tests lower
// the cap to reach the guard's per-call refusal).
type cell struct {
	Config
	rates    execledger.Rates
	cap      execledger.Decimal
	policy   map[string]any
	tokenCap int64
}

func (c *cell) run() (*Result, error) {
	cfg := c.Config
	if cfg.Domain == nil || cfg.Reference == nil || cfg.Now == nil {
		return nil, errors.New("preflight: a cell needs a domain, a reference agent and a clock")
	}
	laneID := cmp.Or(cfg.Lane, DefaultLane)
	prof, err := profile.ForLane(laneID)
	if err != nil {
		return nil, err
	}
	vendor, _ := VendorFor(laneID)
	fault := cmp.Or(cfg.Fault, FaultNone)
	if _, ok := ExpectedFault(laneID, fault); !ok && fault != FaultNone {
		return nil, fmt.Errorf("preflight: the %s lane runs no fault cell %q", laneID, fault)
	}
	faultAt := cmp.Or(cfg.FaultAt, DefaultFaultAt)
	meta := cfg.Domain.Plan().Meta
	res := &Result{Cell: fault, ScenarioID: meta.ScenarioID, Lane: laneID}

	// The script: the reference agent's decisions for this instance.
	ref, err := engine.Execute(cfg.Domain, cfg.Reference(), cfg.OperationInstanceID)
	if err != nil {
		return nil, err
	}
	script := &Script{
		Vendor: vendor, Model: prof.Run.Model, Credential: Credential, Tape: ref.Decisions,
		Fault: fault, FaultAt: faultAt, MaxRequests: cfg.MaxCalls, Latency: cfg.Latency,
	}
	lb := Serve(script)
	defer lb.Close()
	ledgerName, artefactName := OutputNames(cfg.OperationInstanceID, fault)

	spec := &modelRun{
		Lane: prof.Lane, Profile: prof.Run, Client: lb.Client, BaseURL: lb.BaseURL, Credential: Credential,
		Domain: cfg.Domain, EngineVersion: cfg.EngineVersion, MaxCalls: cfg.MaxCalls,
		Rates: c.rates, Cap: c.cap, Pricing: c.policy, TokenCap: c.tokenCap,
		Now: cfg.Now, ExecutionRunID: cfg.ExecutionRunID, OperationInstanceID: cfg.OperationInstanceID,
		LedgerPath:      filepath.Join(cfg.OutputDir, ledgerName),
		ArtefactPath:    filepath.Join(cfg.OutputDir, artefactName),
		ArtefactOptions: cfg.ArtefactOptions, Agents: cfg.Agents, RequestDigests: RequestDigests,
		Context: cfg.Context,
	}
	artefactBytes, err := spec.execute(res)
	if err != nil {
		return res, err
	}
	return res, spec.check(res, artefactBytes, func() error { return c.checkScript(res, script) }, script.Requests)
}

// modelRun is one model run: the lane and profile, the client and endpoint,
// the bounds and pricing, the identities and the two output paths. The
// preflight's cells and [Live] runs execute it the same way.
type modelRun struct {
	Lane                                lane.Lane
	Profile                             lane.Profile
	Client                              *http.Client
	BaseURL                             string
	Credential                          string
	Domain                              engine.Domain
	EngineVersion                       string
	MaxCalls                            int64
	Rates                               execledger.Rates
	Cap                                 execledger.Decimal
	Pricing                             map[string]any
	TokenCap                            int64
	Now                                 func() time.Time
	ExecutionRunID, OperationInstanceID string
	LedgerPath, ArtefactPath            string
	ArtefactOptions                     artefact.Options
	Agents                              func(id string) (episode.Registered, bool)
	// RequestDigests is the replay's request rebuilder.
	RequestDigests func(*artefact.Document) episode.RequestRebuilder
	// Context stops the run at an interrupt (nil: never).
	Context context.Context
}

// execute writes the ledger, runs the episode, finalizes the ledger, and
// for a scored run writes the artefact bound to it.
func (s *modelRun) execute(res *Result) ([]byte, error) {
	meta := s.Domain.Plan().Meta
	res.Profile, res.AgentID = s.Profile, profile.AgentID(s.Profile)
	pid, err := lane.ProviderIdentity(s.Lane, s.Profile, s.BaseURL)
	if err != nil {
		return nil, err
	}
	res.Controls = execledger.Controls{
		MaxProviderCalls: s.MaxCalls, MaxAttemptsPerCall: 1,
		ExpectedProviderCalls: min(provider.ExpectedProviderCalls, s.MaxCalls),
		TokenHardCap:          s.TokenCap, MaxOutputTokens: s.Profile.MaxOutputTokens,
		CostCapUSD: s.Cap.String(), CostCapPolicy: execledger.CostCapPolicy,
		TurnDeadlineSeconds: s.Profile.TurnDeadlineSeconds, WallClockDeadlineSeconds: s.Profile.WallClockDeadlineSeconds,
		Pricing: s.Pricing,
	}
	start := s.Now()
	header := execledger.Header{
		ExecutionRunID: s.ExecutionRunID, OperationInstanceID: s.OperationInstanceID,
		OperationID: meta.OperationID, ScenarioID: meta.ScenarioID, AgentID: res.AgentID, AgentKind: artefact.KindModel,
		SpecDigest: meta.SpecDigest, EngineVersion: s.EngineVersion,
		IntendedArtefactVersion: execledger.IntendedArtefactVersion, StartedAt: lane.Instant(start),
		Provider: pid, Controls: res.Controls,
	}
	guard, err := provider.NewGuard(s.Cap, s.Rates, s.Profile.MaxOutputTokens, s.TokenCap)
	if err != nil {
		return nil, err
	}
	w, err := execledger.Create(s.LedgerPath, header, execledger.WriterOptions{})
	if err != nil {
		return nil, err
	}
	defer w.Close()
	res.LedgerPath = s.LedgerPath
	agent, err := lane.New(lane.Config{
		Lane: s.Lane, Client: s.Client, BaseURL: s.BaseURL, Profile: s.Profile, Credential: s.Credential,
		MaxCalls: s.MaxCalls, Guard: guard, Ledger: w, Now: s.Now, RunStart: start,
		TurnDeadline:        time.Duration(s.Profile.TurnDeadlineSeconds * float64(time.Second)),
		WallClockDeadline:   time.Duration(s.Profile.WallClockDeadlineSeconds * float64(time.Second)),
		OperationInstanceID: s.OperationInstanceID, Context: s.Context,
	})
	if err != nil {
		return nil, err
	}
	ep, runErr := engine.Run(engine.Config{
		Domain: s.Domain, NewAgent: func() engine.Agent { return agent },
		AgentID: res.AgentID, AgentKind: artefact.KindModel,
		OperationInstanceID: s.OperationInstanceID, EngineVersion: s.EngineVersion,
		SelfCheck: engine.SelfCheckPlayback,
	})
	var artefactBytes []byte
	switch {
	case w.Poisoned():
		return nil, runErr // nothing more can be appended; the file reads as a prefix
	case runErr != nil:
		var f *lane.Failure
		if !errors.As(runErr, &f) {
			code := execledger.AbortedCode
			if err := w.Finalize(execledger.TerminalAborted, lane.Instant(s.Now()), &code); err != nil {
				return nil, errors.Join(runErr, err)
			}
			return nil, runErr
		}
		res.Stop = f
		if err := w.Finalize(execledger.TerminalExcluded, lane.Instant(s.Now()), &f.Code); err != nil {
			return nil, err
		}
	default:
		if agent.Calls() != int64(len(ep.Decisions)) {
			return nil, refusal.New(ErrSelfCheck, "%d provider calls for %d decisions", agent.Calls(), len(ep.Decisions))
		}
		if err := w.Finalize(execledger.TerminalScored, lane.Instant(s.Now()), nil); err != nil {
			return nil, err
		}
		b, err := w.Binding()
		if err != nil {
			return nil, err
		}
		res.Binding = &b
		a, err := episode.FromModelEpisode(ep, agent.Execution(), res.Binding)
		if err != nil {
			return nil, err
		}
		res.Reliable = a.Evaluation.Reliable
		if artefactBytes, err = artefact.Write(s.ArtefactPath, a, s.ArtefactOptions); err != nil {
			return nil, err
		}
		res.ArtefactPath = s.ArtefactPath
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return artefactBytes, nil
}

// check reads the ledger back complete, runs between (the preflight's
// script comparisons; nil for none), and for a scored run audits the pair
// and replays the artefact at zero provider calls, every request digest
// rebuilt. requests counts what the provider received (nil: unknown).
func (s *modelRun) check(res *Result, artefactBytes []byte, between func() error, requests func() int) error {
	audit, err := execledger.ReadFile(res.LedgerPath, execledger.Options{RequireComplete: true})
	if err != nil {
		return err
	}
	res.Ledger = audit
	res.Status = audit.Status()
	if audit.Terminal.ExclusionCode != nil {
		res.ExclusionCode = *audit.Terminal.ExclusionCode
	}
	for _, call := range audit.Calls {
		res.LargestRequestBound = max(res.LargestRequestBound, call.InputTokenUpperBound)
	}
	if between != nil {
		if err := between(); err != nil {
			return err
		}
	}
	if res.Status != execledger.TerminalScored {
		// An excluded or aborted run wrote no artefact; its ledger says why.
		return nil
	}
	validate := func(tree map[string]any) error {
		_, err := artefact.Validate(tree, s.ArtefactOptions)
		return err
	}
	if res.Bundle, err = bundle.AuditFiles(res.ArtefactPath, res.LedgerPath, bundle.Options{ValidateArtefact: validate}); err != nil {
		return err
	}
	doc, err := artefact.Read(artefactBytes, s.ArtefactOptions)
	if err != nil {
		return err
	}
	if requests == nil {
		requests = func() int { return 0 }
	}
	before := requests()
	forbidden := &episode.ForbiddenTransport{}
	if res.Replay, err = episode.Replay(doc, episode.ReplayConfig{Domain: s.Domain, Agents: s.Agents, Transport: forbidden, RequestDigests: s.RequestDigests}); err != nil {
		return err
	}
	res.ReplayProviderCalls = forbidden.Calls()
	after := requests()
	res.ProviderRequests = after
	if !res.Replay.OK() || res.ReplayProviderCalls != 0 || after != before {
		return refusal.New(ErrSelfCheck, "the artefact did not replay at zero provider calls (ok %v, forbidden calls %d, provider requests %d then %d)",
			res.Replay.OK(), res.ReplayProviderCalls, before, after)
	}
	if res.Replay.RequestDigestsRebuilt != int64(len(doc.Artefact.Execution.Attempts)) {
		return refusal.New(ErrSelfCheck, "the replay rebuilt %d of the artefact's %d request digests: the run's settings are not the ones this build recognises as its own",
			res.Replay.RequestDigestsRebuilt, len(doc.Artefact.Execution.Attempts))
	}
	return nil
}

// checkScript holds the ledger to what the scripted provider received and
// sent.
func (c *cell) checkScript(res *Result, script *Script) error {
	audit := res.Ledger
	received := script.BodyDigests()
	if len(received) != len(audit.Calls) {
		return refusal.New(ErrSelfCheck, "the provider received %d request(s) and the ledger records %d call(s)", len(received), len(audit.Calls))
	}
	for i, call := range audit.Calls {
		if call.WireRequestDigest == nil || *call.WireRequestDigest != received[i] {
			return refusal.New(ErrSelfCheck, "call %d's wire digest is not the digest of the body the provider received", i)
		}
	}
	// Each accepted answer is bound to the answer the provider sent, and
	// each decision to the reference decision it answered with (a
	// truncated answer to its classification).
	answers := script.AnswerDigests()
	for i, call := range audit.Calls {
		last := call.Attempts[len(call.Attempts)-1]
		if last.ResponseNormalizedDigest != nil && *last.ResponseNormalizedDigest != answers[i] {
			return refusal.New(ErrSelfCheck, "call %d's normalized response digest is not the digest of the answer the provider sent", i)
		}
		if call.Decision == nil {
			continue
		}
		if res.Cell == FaultTruncated && i == script.FaultAt-1 {
			if call.Decision.ClassificationCode == nil || *call.Decision.ClassificationCode != lane.CodeOutputTruncated {
				return refusal.New(ErrSelfCheck, "call %d answered truncated and was not classified %s", i, lane.CodeOutputTruncated)
			}
			continue
		}
		entry, _ := script.Tape[i].(map[string]any)
		if d, err := canon.UpstreamDigest(entry["outcome"]); err != nil || d != call.Decision.DecisionDigest {
			return refusal.New(ErrSelfCheck, "call %d's decision is not the reference decision the provider answered with", i)
		}
	}
	res.ProviderRequests = script.Requests()
	if res.Status == execledger.TerminalScored {
		if n := script.Refused(); n != 0 {
			return refusal.New(ErrSelfCheck, "the scripted provider refused %d request(s)", n)
		}
	}
	return nil
}
