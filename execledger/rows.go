package execledger

import (
	"slices"
	"strconv"
	"strings"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// Header is the payload of row 0.
type Header struct {
	ExecutionRunID          string
	OperationInstanceID     string
	OperationID             string
	ScenarioID              string
	AgentID                 string
	AgentKind               string
	SpecDigest              string
	EngineVersion           string
	IntendedArtefactVersion int64
	StartedAt               string
	Provider                Provider
	Controls                Controls
}

// Provider is the header's provider identity. SettingsDigest is derived from
// Settings by the writer and re-derived by the reader.
type Provider struct {
	Provider, API, Model, Implementation, RequestMapping, ProtocolVersion, SDK, SDKVersion string
	BaseURL                                                                                string
	Settings                                                                               map[string]any
	SettingsDigest                                                                         string
}

// Controls are the run's stated bounds and pinned pricing. PricingDigest is
// derived from Pricing by the writer and re-derived by the reader. The two
// deadlines hold nil, an int64 or a float64 (the JSON number kind survives,
// as the digests depend on it).
type Controls struct {
	MaxProviderCalls         int64
	MaxAttemptsPerCall       int64
	ExpectedProviderCalls    int64
	TokenHardCap             int64
	MaxOutputTokens          int64
	CostCapUSD               string
	CostCapPolicy            string
	TurnDeadlineSeconds      any
	WallClockDeadlineSeconds any
	Pricing                  map[string]any
	PricingDigest            string
}

// Call is the payload of one call row. Optional fields are pointers (nil is
// JSON null); TurnLatencySeconds holds nil, an int64 or a float64.
type Call struct {
	CallIndex            int64
	InvocationIndex      int64
	TurnIndex            int64
	RequestDigest        string
	PromptDigest         string
	ObservationDigest    string
	PayloadDigest        string
	WireRequestDigest    *string
	WireRequestBytes     *int64
	WireRequestMethod    *string
	WireRequestURL       *string
	InputTokenUpperBound int64
	StartedAt            string
	EndedAt              string
	TurnLatencySeconds   any
	TerminalReason       *string
	Attempts             []Attempt
	Decision             *Decision
}

// Attempt is one request to the provider inside a call. LatencySeconds holds
// nil, an int64 or a float64.
type Attempt struct {
	AttemptIndex               int64
	Outcome                    string
	Fault                      *string
	HTTPStatus                 *int64
	LatencySeconds             any
	ResponseReceived           bool
	UsageReported              bool
	CostReservationUSD         *string
	CostSettlement             *string
	CostMeasuredUSD            *string
	CostForfeitedUSD           *string
	InputTokens                *int64
	OutputTokens               *int64
	ResponseModel              *string
	ResponseIDDigest           *string
	ResponseStopClassification *string
	ResponseNormalizedDigest   *string
}

// Decision is what the run took from a call, as the decision tape records it.
type Decision struct {
	Kind               string
	DecisionDigest     string
	ClassificationCode *string
}

// Terminal is the payload of the last row.
type Terminal struct {
	Kind            string
	EndedAt         string
	ExclusionCode   *string
	ExclusionDetail string
	Totals          Totals
}

// Totals are derived purely from the call rows. The three amounts are never
// added together.
type Totals struct {
	ProviderCalls           int64            `json:"provider_calls"`
	Attempts                int64            `json:"attempts"`
	InputTokens             int64            `json:"input_tokens"`
	OutputTokens            int64            `json:"output_tokens"`
	MeasuredCostUSD         string           `json:"measured_cost_usd"`
	ForfeitedReservationUSD string           `json:"forfeited_reservation_usd"`
	ReservedUSD             string           `json:"reserved_usd"`
	FaultCounts             map[string]int64 `json:"fault_counts"`
}

// Map renders t as its JSON object.
func (t Totals) Map() map[string]any {
	fc := map[string]any{}
	for k, v := range t.FaultCounts {
		fc[k] = v
	}
	return map[string]any{
		"provider_calls": t.ProviderCalls, "attempts": t.Attempts,
		"input_tokens": t.InputTokens, "output_tokens": t.OutputTokens,
		"measured_cost_usd": t.MeasuredCostUSD, "forfeited_reservation_usd": t.ForfeitedReservationUSD,
		"reserved_usd": t.ReservedUSD, "fault_counts": fc,
	}
}

// ---------------------------------------------------------------- rendering

// opt renders an optional field: null when absent, else its value.
func opt[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// Map renders h as its JSON object (settings and pricing digests as stated).
func (h Header) Map() map[string]any {
	return map[string]any{
		"execution_run_id":          h.ExecutionRunID,
		"operation_instance_id":     h.OperationInstanceID,
		"operation_id":              h.OperationID,
		"scenario_id":               h.ScenarioID,
		"agent_id":                  h.AgentID,
		"agent_kind":                h.AgentKind,
		"spec_digest_sha256":        h.SpecDigest,
		"engine_version":            h.EngineVersion,
		"intended_artifact_version": h.IntendedArtefactVersion,
		"started_at":                h.StartedAt,
		"provider": map[string]any{
			"provider": h.Provider.Provider, "api": h.Provider.API, "model": h.Provider.Model,
			"implementation": h.Provider.Implementation, "request_mapping": h.Provider.RequestMapping,
			"protocol_version": h.Provider.ProtocolVersion, "sdk": h.Provider.SDK,
			"sdk_version": h.Provider.SDKVersion, "base_url": h.Provider.BaseURL,
			"settings": h.Provider.Settings, "settings_digest_sha256": h.Provider.SettingsDigest,
		},
		"controls": map[string]any{
			"max_provider_calls": h.Controls.MaxProviderCalls, "max_attempts_per_call": h.Controls.MaxAttemptsPerCall,
			"expected_provider_calls": h.Controls.ExpectedProviderCalls, "token_hard_cap": h.Controls.TokenHardCap,
			"max_output_tokens": h.Controls.MaxOutputTokens, "cost_cap_usd": h.Controls.CostCapUSD,
			"cost_cap_policy": h.Controls.CostCapPolicy, "turn_deadline_seconds": h.Controls.TurnDeadlineSeconds,
			"wall_clock_deadline_seconds": h.Controls.WallClockDeadlineSeconds,
			"pricing":                     h.Controls.Pricing, "pricing_digest_sha256": h.Controls.PricingDigest,
		},
	}
}

// Map renders c as its JSON object.
func (c Call) Map() map[string]any {
	atts := make([]any, len(c.Attempts))
	for i, a := range c.Attempts {
		atts[i] = a.Map()
	}
	var dec any
	if c.Decision != nil {
		dec = c.Decision.Map()
	}
	return map[string]any{
		"call_index": c.CallIndex, "invocation_index": c.InvocationIndex, "turn_index": c.TurnIndex,
		"request_digest_sha256": c.RequestDigest, "prompt_digest_sha256": c.PromptDigest,
		"observation_digest_sha256": c.ObservationDigest, "payload_digest_sha256": c.PayloadDigest,
		"wire_request_digest_sha256": opt(c.WireRequestDigest), "wire_request_bytes": opt(c.WireRequestBytes),
		"wire_request_method": opt(c.WireRequestMethod), "wire_request_url": opt(c.WireRequestURL),
		"input_token_upper_bound": c.InputTokenUpperBound, "started_at": c.StartedAt, "ended_at": c.EndedAt,
		"turn_latency_seconds": c.TurnLatencySeconds, "terminal_reason": opt(c.TerminalReason),
		"attempts": atts, "decision": dec,
	}
}

// Map renders a as its JSON object.
func (a Attempt) Map() map[string]any {
	return map[string]any{
		"attempt_index": a.AttemptIndex, "outcome": a.Outcome, "fault": opt(a.Fault),
		"http_status": opt(a.HTTPStatus), "latency_seconds": a.LatencySeconds,
		"response_received": a.ResponseReceived, "usage_reported": a.UsageReported,
		"cost_reservation_usd": opt(a.CostReservationUSD), "cost_settlement": opt(a.CostSettlement),
		"cost_measured_usd": opt(a.CostMeasuredUSD), "cost_forfeited_usd": opt(a.CostForfeitedUSD),
		"input_tokens": opt(a.InputTokens), "output_tokens": opt(a.OutputTokens),
		"response_model": opt(a.ResponseModel), "response_id_digest_sha256": opt(a.ResponseIDDigest),
		"response_stop_classification":      opt(a.ResponseStopClassification),
		"response_normalized_digest_sha256": opt(a.ResponseNormalizedDigest),
	}
}

// Map renders d as its JSON object.
func (d Decision) Map() map[string]any {
	return map[string]any{"kind": d.Kind, "decision_digest_sha256": d.DecisionDigest, "classification_code": opt(d.ClassificationCode)}
}

// Map renders t as its JSON object.
func (t Terminal) Map() map[string]any {
	return map[string]any{
		"kind": t.Kind, "ended_at": t.EndedAt, "exclusion_code": opt(t.ExclusionCode),
		"exclusion_detail": t.ExclusionDetail, "totals": t.Totals.Map(),
	}
}

// ---------------------------------------------------------------- validation

// check accumulates the first refusal; every getter is a no-op after one.
type check struct{ err error }

func (c *check) fail(class *refusal.Refusal, format string, args ...any) {
	if c.err == nil {
		c.err = refusal.New(class, format, args...)
	}
}

// record reads v as an object of exactly the fields names.
func (c *check) record(v any, names []string, where string, version int) map[string]any {
	m := c.object(v, where)
	if c.err != nil {
		return m
	}
	if missing := jsonfield.Missing(m, names); missing != nil {
		c.fail(ErrSchema, "%s: missing required field(s) %s", where, strings.Join(missing, ", "))
	} else if unknown := jsonfield.Unknown(m, names); unknown != nil {
		// Unknown names are not echoed: they are input.
		c.fail(ErrSchema, "%s: %d field(s) are not part of execution ledger version %d", where, len(unknown), version)
	}
	return m
}

func (c *check) object(v any, where string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok && c.err == nil {
		c.fail(ErrSchema, "%s: expected a JSON object", where)
	}
	return m
}

func (c *check) count(v any, where string, min int64) int64 {
	n, ok := v.(int64)
	if (!ok || n < min) && c.err == nil {
		c.fail(ErrSchema, "%s: expected an integer of at least %d", where, min)
	}
	return n
}

// orNull is read(v), or nil when v is null: the reading of an optional
// field.
func orNull[T any](v any, read func(v any) T) *T {
	if v == nil {
		return nil
	}
	x := read(v)
	return &x
}

func (c *check) optCount(v any, where string, min int64) *int64 {
	return orNull(v, func(v any) int64 { return c.count(v, where, min) })
}

func (c *check) flag(v any, where string) bool {
	b, ok := v.(bool)
	if !ok {
		c.fail(ErrSchema, "%s: expected true or false", where)
	}
	return b
}

func (c *check) seconds(v any, where string) any {
	if s, ok := seconds(v); ok && s < 0 {
		c.fail(ErrSchema, "%s: a duration is never negative", where)
	} else if !ok && v != nil {
		c.fail(ErrSchema, "%s: expected a number of seconds or null", where)
	}
	return v
}

func (c *check) str(v any, where string) string {
	s, ok := v.(string)
	if !ok {
		c.fail(ErrSchema, "%s: expected a string", where)
	}
	return s
}

func (c *check) token(v any, where string) string {
	s, ok := v.(string)
	if !ok || !isToken(s) {
		c.fail(ErrSchema, "%s: expected a bounded identifier with no whitespace", where)
	}
	return s
}

func (c *check) optToken(v any, where string) *string {
	return orNull(v, func(v any) string { return c.token(v, where) })
}

func (c *check) digest(v any, where string) string {
	s, ok := v.(string)
	if !ok || !IsDigest(s) {
		c.fail(ErrSchema, "%s: expected a 64-character lowercase SHA-256 digest", where)
	}
	return s
}

func (c *check) optDigest(v any, where string) *string {
	return orNull(v, func(v any) string { return c.digest(v, where) })
}

func (c *check) member(v any, allowed []string, where string) string {
	s, ok := v.(string)
	if !ok {
		c.fail(ErrSchema, "%s: expected a string from a closed vocabulary", where)
	} else if !slices.Contains(allowed, s) {
		c.fail(ErrVocabulary, "%s: not a value this build writes; allowed: %s", where, strings.Join(allowed, ", "))
	}
	return s
}

func (c *check) optMember(v any, allowed []string, where string) *string {
	return orNull(v, func(v any) string { return c.member(v, allowed, where) })
}

func (c *check) amount(v any, where string) string {
	s, ok := v.(string)
	if !ok {
		c.fail(ErrSchema, "%s: a USD amount is an exact decimal string, not a JSON number", where)
	} else if _, ok := ParseAmount(s); !ok {
		c.fail(ErrSchema, "%s: not the canonical rendering of a finite, non-negative decimal amount", where)
	}
	return s
}

func (c *check) optAmount(v any, where string) *string {
	return orNull(v, func(v any) string { return c.amount(v, where) })
}

func (c *check) instant(v any, where string) (string, int64) {
	s, ok := v.(string)
	t, valid := instant.Parse(s) // "" is no instant
	if !ok {
		c.fail(ErrSchema, "%s: expected an instant YYYY-MM-DDTHH:MM:SSZ", where)
	} else if !valid {
		c.fail(ErrSchema, "%s: not a real instant in the form YYYY-MM-DDTHH:MM:SSZ", where)
	}
	return s, t
}

// rate reads a pinned per-million-token rate: a decimal string, finite, ≥ 0.
func (c *check) rate(v any, where string) Decimal {
	s, ok := v.(string)
	d, valid := ParseDecimal(s) // "" is no decimal
	if !ok {
		c.fail(ErrSchema, "%s: a rate is an exact decimal string", where)
	} else if !valid || d.Sign() < 0 {
		c.fail(ErrSchema, "%s: a rate is a finite, non-negative decimal", where)
	}
	return d
}

var (
	envelopeBase = []string{"ledger_version", "row_index", "row_kind", "previous_row_digest_sha256", "row_digest_sha256"}
	headerFields = []string{
		"execution_run_id", "operation_instance_id", "operation_id", "scenario_id", "agent_id", "agent_kind",
		"spec_digest_sha256", "engine_version", "intended_artifact_version", "started_at", "provider", "controls",
	}
	providerFields = []string{
		"provider", "api", "model", "implementation", "request_mapping", "protocol_version", "sdk",
		"sdk_version", "base_url", "settings", "settings_digest_sha256",
	}
	controlsFields = []string{
		"max_provider_calls", "max_attempts_per_call", "expected_provider_calls", "token_hard_cap",
		"max_output_tokens", "cost_cap_usd", "cost_cap_policy", "turn_deadline_seconds",
		"wall_clock_deadline_seconds", "pricing", "pricing_digest_sha256",
	}
	callFields = []string{
		"call_index", "invocation_index", "turn_index", "request_digest_sha256", "prompt_digest_sha256",
		"observation_digest_sha256", "payload_digest_sha256", "wire_request_digest_sha256",
		"wire_request_bytes", "wire_request_method", "wire_request_url", "input_token_upper_bound",
		"started_at", "ended_at", "turn_latency_seconds", "terminal_reason", "attempts", "decision",
	}
	attemptFields = []string{
		"attempt_index", "outcome", "fault", "http_status", "latency_seconds", "response_received",
		"usage_reported", "cost_reservation_usd", "cost_settlement", "cost_measured_usd",
		"cost_forfeited_usd", "input_tokens", "output_tokens", "response_model",
		"response_id_digest_sha256", "response_stop_classification", "response_normalized_digest_sha256",
	}
	decisionFields = []string{"kind", "decision_digest_sha256", "classification_code"}
	terminalFields = []string{"kind", "ended_at", "exclusion_code", "exclusion_detail", "totals"}
	totalsFields   = []string{
		"provider_calls", "attempts", "input_tokens", "output_tokens", "measured_cost_usd",
		"forfeited_reservation_usd", "reserved_usd", "fault_counts",
	}
)

// parsedHeader is a validated header with its derived rates.
type parsedHeader struct {
	Header
	rates Rates
}

// decodeHeader reads the header payload v, a tree canon.Parse returned (of
// the reader's line, of the writer's round trip): plain JSON all through.
func decodeHeader(v any, version int) (*parsedHeader, error) {
	var c check
	m := c.record(v, headerFields, "header", version)
	h := &parsedHeader{}
	h.ExecutionRunID = c.str(m["execution_run_id"], "header.execution_run_id")
	if c.err == nil && !isPrefixedID(h.ExecutionRunID, "exec_") {
		c.fail(ErrSchema, "header.execution_run_id: an execution run identity is exec_ and 32 lowercase hex")
	}
	h.OperationInstanceID = c.str(m["operation_instance_id"], "header.operation_instance_id")
	if c.err == nil && !isPrefixedID(h.OperationInstanceID, "opinst_") {
		c.fail(ErrSchema, "header.operation_instance_id: an operation instance identity is opinst_ and 32 lowercase hex")
	}
	h.OperationID = c.token(m["operation_id"], "header.operation_id")
	h.ScenarioID = c.token(m["scenario_id"], "header.scenario_id")
	h.AgentID = c.token(m["agent_id"], "header.agent_id")
	h.AgentKind = c.token(m["agent_kind"], "header.agent_kind")
	h.SpecDigest = c.digest(m["spec_digest_sha256"], "header.spec_digest_sha256")
	h.EngineVersion = c.token(m["engine_version"], "header.engine_version")
	h.IntendedArtefactVersion = c.count(m["intended_artifact_version"], "header.intended_artifact_version", 0)
	if c.err == nil && h.IntendedArtefactVersion != IntendedArtefactVersion {
		c.fail(ErrSchema, "header.intended_artifact_version: this build writes evidence for artefact contract %d", IntendedArtefactVersion)
	}
	h.StartedAt, _ = c.instant(m["started_at"], "header.started_at")

	p := c.record(m["provider"], providerFields, "header.provider", version)
	for _, f := range []struct {
		dst *string
		key string
	}{
		{&h.Provider.Provider, "provider"}, {&h.Provider.API, "api"}, {&h.Provider.Model, "model"},
		{&h.Provider.Implementation, "implementation"}, {&h.Provider.RequestMapping, "request_mapping"},
		{&h.Provider.ProtocolVersion, "protocol_version"}, {&h.Provider.SDK, "sdk"}, {&h.Provider.SDKVersion, "sdk_version"},
	} {
		*f.dst = c.token(p[f.key], "header.provider."+f.key)
	}
	h.Provider.BaseURL = c.str(p["base_url"], "header.provider.base_url")
	if c.err == nil && !isLedgerURL(h.Provider.BaseURL) {
		c.fail(ErrSchema, "header.provider.base_url: a recorded endpoint is a bare https scheme, host and path")
	}
	h.Provider.Settings = c.object(p["settings"], "header.provider.settings")
	h.Provider.SettingsDigest = c.digest(p["settings_digest_sha256"], "header.provider.settings_digest_sha256")
	if c.err != nil {
		return nil, c.err
	}
	if d, err := canon.UpstreamDigest(h.Provider.Settings); err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "header.provider.settings")
	} else if d != h.Provider.SettingsDigest {
		return nil, refusal.New(ErrDerivedDigest, "header.provider: the stated settings digest is not the digest of the settings mapping beside it")
	}

	k := c.record(m["controls"], controlsFields, "header.controls", version)
	ct := &h.Controls
	ct.MaxProviderCalls = c.count(k["max_provider_calls"], "header.controls.max_provider_calls", 1)
	ct.MaxAttemptsPerCall = c.count(k["max_attempts_per_call"], "header.controls.max_attempts_per_call", 1)
	ct.ExpectedProviderCalls = c.count(k["expected_provider_calls"], "header.controls.expected_provider_calls", 1)
	if c.err == nil && ct.ExpectedProviderCalls > ct.MaxProviderCalls {
		c.fail(ErrSchema, "header.controls: expected_provider_calls is more than max_provider_calls")
	}
	ct.TokenHardCap = c.count(k["token_hard_cap"], "header.controls.token_hard_cap", 1)
	ct.MaxOutputTokens = c.count(k["max_output_tokens"], "header.controls.max_output_tokens", 1)
	ct.CostCapUSD = c.str(k["cost_cap_usd"], "header.controls.cost_cap_usd")
	if c.err == nil {
		// An operator-typed cap: any positive decimal ("1.00" and "1" are one
		// authorisation); the writer stores the canonical rendering.
		d, ok := ParseDecimal(ct.CostCapUSD)
		if !ok || d.Sign() <= 0 {
			c.fail(ErrSchema, "header.controls.cost_cap_usd: a cost cap is a finite, positive decimal amount")
		}
	}
	ct.CostCapPolicy = c.member(k["cost_cap_policy"], []string{CostCapPolicy}, "header.controls.cost_cap_policy")
	ct.TurnDeadlineSeconds = c.seconds(k["turn_deadline_seconds"], "header.controls.turn_deadline_seconds")
	ct.WallClockDeadlineSeconds = c.seconds(k["wall_clock_deadline_seconds"], "header.controls.wall_clock_deadline_seconds")
	ct.Pricing = c.object(k["pricing"], "header.controls.pricing")
	ct.PricingDigest = c.digest(k["pricing_digest_sha256"], "header.controls.pricing_digest_sha256")
	if c.err != nil {
		return nil, c.err
	}
	for _, key := range []string{"input_usd_per_mtok", "output_usd_per_mtok"} {
		if _, ok := ct.Pricing[key]; !ok {
			return nil, refusal.New(ErrSchema, "header.controls.pricing: missing required field %s", key)
		}
	}
	h.rates.In = c.rate(ct.Pricing["input_usd_per_mtok"], "header.controls.pricing.input_usd_per_mtok")
	h.rates.Out = c.rate(ct.Pricing["output_usd_per_mtok"], "header.controls.pricing.output_usd_per_mtok")
	if c.err != nil {
		return nil, c.err
	}
	if d, err := canon.UpstreamDigest(ct.Pricing); err != nil {
		return nil, refusal.Wrap(ErrSchema, err, "header.controls.pricing")
	} else if d != ct.PricingDigest {
		return nil, refusal.New(ErrDerivedDigest, "header.controls: the stated pricing digest is not the digest of the pricing mapping beside it")
	}
	if err := settingsCoherent(&h.Header); err != nil {
		return nil, err
	}
	return h, nil
}

func decodeAttempt(v any, where string, version int, vc *vocab) (Attempt, error) {
	var c check
	m := c.record(v, attemptFields, where, version)
	var a Attempt
	a.AttemptIndex = c.count(m["attempt_index"], where+".attempt_index", 1)
	a.Outcome = c.member(m["outcome"], vc.outcomes, where+".outcome")
	a.Fault = c.optMember(m["fault"], vc.faults, where+".fault")
	a.HTTPStatus = c.optCount(m["http_status"], where+".http_status", 100)
	a.LatencySeconds = c.seconds(m["latency_seconds"], where+".latency_seconds")
	a.ResponseReceived = c.flag(m["response_received"], where+".response_received")
	a.UsageReported = c.flag(m["usage_reported"], where+".usage_reported")
	a.CostReservationUSD = c.optAmount(m["cost_reservation_usd"], where+".cost_reservation_usd")
	a.CostSettlement = c.optMember(m["cost_settlement"], vc.settlements, where+".cost_settlement")
	a.CostMeasuredUSD = c.optAmount(m["cost_measured_usd"], where+".cost_measured_usd")
	a.CostForfeitedUSD = c.optAmount(m["cost_forfeited_usd"], where+".cost_forfeited_usd")
	a.InputTokens = c.optCount(m["input_tokens"], where+".input_tokens", 0)
	a.OutputTokens = c.optCount(m["output_tokens"], where+".output_tokens", 0)
	a.ResponseModel = c.optToken(m["response_model"], where+".response_model")
	a.ResponseIDDigest = c.optDigest(m["response_id_digest_sha256"], where+".response_id_digest_sha256")
	a.ResponseStopClassification = c.optMember(m["response_stop_classification"], stopClasses, where+".response_stop_classification")
	a.ResponseNormalizedDigest = c.optDigest(m["response_normalized_digest_sha256"], where+".response_normalized_digest_sha256")
	if c.err != nil {
		return a, c.err
	}
	return a, a.rules(where, vc)
}

// rules are the per-attempt schema rules (spec §5.4, 1–10).
func (a Attempt) rules(where string, vc *vocab) error {
	fail := func(f string, args ...any) error { return refusal.New(ErrSchema, where+": "+f, args...) }
	if (a.Fault != nil) != (a.Outcome == OutcomeFault) {
		return fail("an attempt names a fault exactly when its outcome is %q", OutcomeFault)
	}
	if a.Outcome == OutcomeResponse && !a.ResponseReceived {
		return fail("an attempt whose outcome is a response received one")
	}
	if a.UsageReported && !a.ResponseReceived {
		return fail("counts were reported for an attempt that received no response")
	}
	if (a.CostReservationUSD == nil) != (a.CostSettlement == nil) {
		return fail("a reservation and its settlement are stated together or not at all")
	}
	measured := a.CostSettlement != nil && *a.CostSettlement == SettlementMeasured
	forfeited := a.CostSettlement != nil && *a.CostSettlement == SettlementForfeited
	if measured != (a.CostMeasuredUSD != nil) {
		return fail("a measured settlement states the measured amount, and nothing else may")
	}
	if forfeited != (a.CostForfeitedUSD != nil) {
		return fail("a forfeited settlement states the forfeited reservation, and nothing else may")
	}
	if measured && !a.UsageReported {
		return fail("a measured settlement needs the counts the provider reported")
	}
	if a.UsageReported != (a.InputTokens != nil && a.OutputTokens != nil) {
		return fail("usage_reported is true exactly when both token counts are stated")
	}
	if a.Outcome != OutcomeResponse && (a.ResponseModel != nil || a.ResponseIDDigest != nil || a.ResponseStopClassification != nil || a.ResponseNormalizedDigest != nil) {
		return fail("an attempt that received no answer carries no evidence read out of one")
	}
	if vc.httpStatusNeedsResponse && a.HTTPStatus != nil && !a.ResponseReceived {
		return fail("an HTTP status is typed response evidence in execution ledger version 3 and requires response_received=true")
	}
	return nil
}

func decodeCall(v any, version int) (*Call, error) {
	vc := vocabFor(int64(version))
	var c check
	m := c.record(v, callFields, "call", version)
	call := &Call{}
	call.CallIndex = c.count(m["call_index"], "call.call_index", 0)
	where := "call " + strconv.Itoa(int(call.CallIndex))
	call.InvocationIndex = c.count(m["invocation_index"], where+".invocation_index", 0)
	call.TurnIndex = c.count(m["turn_index"], where+".turn_index", 0)
	call.RequestDigest = c.digest(m["request_digest_sha256"], where+".request_digest_sha256")
	call.PromptDigest = c.digest(m["prompt_digest_sha256"], where+".prompt_digest_sha256")
	call.ObservationDigest = c.digest(m["observation_digest_sha256"], where+".observation_digest_sha256")
	call.PayloadDigest = c.digest(m["payload_digest_sha256"], where+".payload_digest_sha256")
	call.WireRequestDigest = c.optDigest(m["wire_request_digest_sha256"], where+".wire_request_digest_sha256")
	call.WireRequestBytes = c.optCount(m["wire_request_bytes"], where+".wire_request_bytes", 0)
	call.WireRequestMethod = c.optMember(m["wire_request_method"], []string{"POST"}, where+".wire_request_method")
	if u := m["wire_request_url"]; u != nil {
		s := c.str(u, where+".wire_request_url")
		if c.err == nil && !isLedgerURL(s) {
			c.fail(ErrSchema, "%s.wire_request_url: a recorded endpoint is a bare https scheme, host and path", where)
		}
		call.WireRequestURL = &s
	}
	call.InputTokenUpperBound = c.count(m["input_token_upper_bound"], where+".input_token_upper_bound", 0)
	var t0, t1 int64
	call.StartedAt, t0 = c.instant(m["started_at"], where+".started_at")
	call.EndedAt, t1 = c.instant(m["ended_at"], where+".ended_at")
	call.TurnLatencySeconds = c.seconds(m["turn_latency_seconds"], where+".turn_latency_seconds")
	if tr := m["terminal_reason"]; tr != nil {
		s := c.token(tr, where+".terminal_reason")
		if c.err == nil && !slices.Contains(vc.turnReasons, s) {
			c.fail(ErrVocabulary, "%s.terminal_reason: not owned by execution ledger version %d", where, version)
		}
		call.TerminalReason = &s
	}
	if c.err == nil && t1 < t0 {
		c.fail(ErrSchema, "%s: a call ended before it started", where)
	}
	atts, ok := m["attempts"].([]any)
	if c.err == nil && (!ok || len(atts) == 0) {
		c.fail(ErrSchema, "%s: a recorded call made at least one attempt", where)
	}
	if c.err != nil {
		return nil, c.err
	}
	for i, av := range atts {
		a, err := decodeAttempt(av, where+".attempts["+strconv.Itoa(i)+"]", version, vc)
		if err != nil {
			return nil, err
		}
		if a.AttemptIndex != int64(i+1) {
			return nil, refusal.New(ErrSchema, "%s: attempt indexes are contiguous from 1", where)
		}
		call.Attempts = append(call.Attempts, a)
	}
	wire := []bool{call.WireRequestDigest == nil, call.WireRequestBytes == nil, call.WireRequestMethod == nil, call.WireRequestURL == nil}
	if slices.Contains(wire, true) && slices.Contains(wire, false) {
		return nil, refusal.New(ErrSchema, "%s: the exact wire request is stated in full or not at all", where)
	}
	if dv := m["decision"]; dv != nil {
		dm := c.record(dv, decisionFields, where+".decision", version)
		d := &Decision{
			Kind:               c.token(dm["kind"], where+".decision.kind"),
			DecisionDigest:     c.digest(dm["decision_digest_sha256"], where+".decision.decision_digest_sha256"),
			ClassificationCode: c.optToken(dm["classification_code"], where+".decision.classification_code"),
		}
		if c.err != nil {
			return nil, c.err
		}
		call.Decision = d
	}
	return call, call.rules(where, vc)
}

// rules are the per-call rules (spec §5.4, 11–14).
func (call *Call) rules(where string, vc *vocab) error {
	last := call.Attempts[len(call.Attempts)-1]
	for _, a := range call.Attempts[:len(call.Attempts)-1] {
		switch {
		case a.Outcome == OutcomeResponse:
			return refusal.New(ErrSchema, "%s: attempt %d received a response and a later attempt follows it", where, a.AttemptIndex)
		case a.Outcome == OutcomeUnclassified:
			return refusal.New(ErrSchema, "%s: attempt %d ended the turn in an unclassified error and a later attempt follows it", where, a.AttemptIndex)
		case a.Fault != nil && !slices.Contains(vc.retryable, *a.Fault):
			return refusal.New(ErrSchema, "%s: attempt %d met a fault repeating cannot answer and a later attempt follows it", where, a.AttemptIndex)
		}
	}
	if call.TerminalReason != nil {
		tr := *call.TerminalReason
		if (last.Outcome == OutcomeResponse) != (tr == TurnResponse) || (last.Outcome == OutcomeUnclassified) != (tr == TurnUnclassified) {
			return refusal.New(ErrSchema, "%s: the turn's stated exit is not the exit its last attempt produced", where)
		}
	}
	if call.Decision != nil && (last.Outcome != OutcomeResponse || last.ResponseNormalizedDigest == nil) {
		return refusal.New(ErrSchema, "%s: a decision is recorded against a call whose last attempt has no accepted answer", where)
	}
	return nil
}

func decodeTerminal(v any, version int) (*Terminal, error) {
	vc := vocabFor(int64(version))
	var c check
	m := c.record(v, terminalFields, "terminal", version)
	t := &Terminal{}
	t.Kind = c.member(m["kind"], terminalKinds, "terminal.kind")
	t.EndedAt, _ = c.instant(m["ended_at"], "terminal.ended_at")
	t.ExclusionCode = c.optMember(m["exclusion_code"], exclusionCodes, "terminal.exclusion_code")
	t.ExclusionDetail = c.str(m["exclusion_detail"], "terminal.exclusion_detail")
	if c.err != nil {
		return nil, c.err
	}
	switch {
	case t.Kind == TerminalScored && t.ExclusionCode != nil:
		return nil, refusal.New(ErrSchema, "terminal: a scored run carries no exclusion code")
	case t.Kind == TerminalExcluded && t.ExclusionCode == nil:
		return nil, refusal.New(ErrSchema, "terminal: an excluded run names its exclusion code")
	case t.Kind == TerminalAborted && (t.ExclusionCode == nil || *t.ExclusionCode != AbortedCode):
		return nil, refusal.New(ErrSchema, "terminal: an aborted run carries exactly %s", AbortedCode)
	}
	// Upstream replaces an empty detail with the fixed sentence on read; the
	// digest covers the stated bytes either way.
	if t.ExclusionDetail != "" && t.ExclusionDetail != TerminalDetail(t.Kind) {
		return nil, refusal.New(ErrSchema, "terminal.exclusion_detail: not this build's fixed sentence for a %s run", t.Kind)
	}
	tm := c.record(m["totals"], totalsFields, "terminal.totals", version)
	tt := &t.Totals
	tt.ProviderCalls = c.count(tm["provider_calls"], "terminal.totals.provider_calls", 0)
	tt.Attempts = c.count(tm["attempts"], "terminal.totals.attempts", 0)
	tt.InputTokens = c.count(tm["input_tokens"], "terminal.totals.input_tokens", 0)
	tt.OutputTokens = c.count(tm["output_tokens"], "terminal.totals.output_tokens", 0)
	tt.MeasuredCostUSD = c.amount(tm["measured_cost_usd"], "terminal.totals.measured_cost_usd")
	tt.ForfeitedReservationUSD = c.amount(tm["forfeited_reservation_usd"], "terminal.totals.forfeited_reservation_usd")
	tt.ReservedUSD = c.amount(tm["reserved_usd"], "terminal.totals.reserved_usd")
	fc := c.object(tm["fault_counts"], "terminal.totals.fault_counts")
	if c.err != nil {
		return nil, c.err
	}
	tt.FaultCounts = map[string]int64{}
	for k, n := range fc {
		if !slices.Contains(vc.faults, k) {
			return nil, refusal.New(ErrVocabulary, "terminal.totals.fault_counts: a fault not owned by execution ledger version %d", version)
		}
		tt.FaultCounts[k] = c.count(n, "terminal.totals.fault_counts", 1)
	}
	return t, c.err
}
