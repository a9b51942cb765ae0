// Package lane is the model-backed agent and what every provider lane
// shares: the [Lane] interface a vendor's wire form implements, the
// request identity, the tools, the reading of an answer into a decision,
// the fault vocabulary, the profile a run is made under, and the one agent
// loop ([Agent]) every lane's calls go through.
//
// Per turn the agent builds the request from the observation (the model
// projection's canonical JSON is the user message; six function tools, one
// per decision kind; one call per turn, tool use required), checks the
// run's call bound and wall-clock deadline, reserves the request's worst
// case with the cost guard ([provider.Guard]) before dispatch, sends it,
// and reads the answer through its lane. The call row it appends carries
// the request identity digest (what the build pins about the request)
// beside the wire digest (SHA-256 of the exact bytes handed to the
// transport), the one attempt with its HTTP status, fault class, usage,
// measured or forfeited amount, response-id digest and normalized-response
// digest, and the decision's digest. Latencies and instants come from the
// injected clock.
//
// What the agent does with an answer:
//
//   - a 200 body the lane reads as an answer from the pinned model becomes
//     a decision: exactly one call of an offered function with exactly
//     that function's arguments, or a classified MALFORMED (no call,
//     several calls, unknown function, malformed arguments, output
//     truncated at the ceiling);
//   - a 200 body the lane declines (not one strict JSON object, another
//     model, a stop it does not read) is provider_response_invalid: the
//     response was received, nothing was taken from it;
//   - any other status is a typed fault (the lane's [Lane.StatusFault]);
//   - a transport error, or a body cut off mid-read, is
//     provider_network_error (provider_timeout on a deadline).
//
// A fault or a control stop ends the run with a [*Failure]: the run is
// excluded and writes no artefact. The agent makes one attempt per call
// (no retries), refuses redirects, and never consults proxy settings. It
// reads no credential: a credential value, if any, is handed in by cmd and
// placed in the lane's header; it is written nowhere.
//
// # Refusals
//
// [ErrEndpoint] (a base URL the ledger cannot record), [ErrWireDispatch]
// (the transport was handed something other than the one body the turn
// records) and [ErrRunIdentity] (an episode of another operation instance).
package lane

import (
	"maps"
	"net/http"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/instant"
	"github.com/obaudit/obaudit/refusal"
)

// Lane is one provider API's wire form: how a prompt becomes a request
// body, which headers carry the credential, and how a response body is
// read. Everything else (identity, bounds, guard, ledger rows, decisions)
// is the agent's, the same for every lane.
type Lane interface {
	// ID is the lane's name on the command line and in profiles, e.g.
	// "anthropic-messages".
	ID() string
	// API is the provider API recorded in the ledger header and binding.
	API() string
	// Providers are the providers a profile of this lane may name.
	Providers() []string
	// Implementation names this adapter in the ledger header: a run
	// through a compatibility layer is never read as the vendor's own API.
	Implementation() string
	// RequestMapping names how a prompt becomes this lane's body; moving
	// anything in that mapping is a new name.
	RequestMapping() string
	// Path is appended to the base URL's path.
	Path() string
	// Payload is the request body's mapping fields (the profile's Send
	// fields are added by the agent).
	Payload(p Profile, pr Prompt) map[string]any
	// MappingFields are the top-level fields Payload always sends.
	MappingFields() []string
	// OptionalFields are the sampling and reasoning fields a profile must
	// decide: each is either sent with a fixed value or omitted.
	OptionalFields() []string
	// Headers sets the lane's fixed headers and, when credential is not
	// empty, its authentication header.
	Headers(h http.Header, credential string)
	// ParseAnswer reads a 200 body as an answer from model, or declines it
	// with [ErrNotAnAnswer].
	ParseAnswer(body []byte, model string) (*Answer, error)
	// StatusFault classifies a status other than 200 (body is what was
	// read of the response; never recorded).
	StatusFault(status int, body []byte) string
	// Settings are the lane's own settings keys (tool choice and the like).
	Settings() map[string]any
}

// Spec is the part of a [Lane] that is data: its names and the fields
// its requests carry. A lane's type embeds one and answers ID, API,
// Providers, Implementation, RequestMapping, Path, MappingFields and
// OptionalFields from it (each slice a fresh copy).
type Spec struct {
	Name          string   // [Lane.ID]
	APIName       string   // [Lane.API]
	ProviderNames []string // [Lane.Providers]
	Adapter       string   // [Lane.Implementation]
	Mapping       string   // [Lane.RequestMapping]
	URLPath       string   // [Lane.Path]
	Mapped        []string // [Lane.MappingFields], sorted
	Optional      []string // [Lane.OptionalFields], sorted
}

func (i Spec) ID() string               { return i.Name }
func (i Spec) API() string              { return i.APIName }
func (i Spec) Providers() []string      { return slices.Clone(i.ProviderNames) }
func (i Spec) Implementation() string   { return i.Adapter }
func (i Spec) RequestMapping() string   { return i.Mapping }
func (i Spec) Path() string             { return i.URLPath }
func (i Spec) MappingFields() []string  { return slices.Clone(i.Mapped) }
func (i Spec) OptionalFields() []string { return slices.Clone(i.Optional) }

// BearerAuth is the OpenAI-shaped lanes' [Lane.Headers]: the credential,
// when not empty, as "Authorization: Bearer".
func BearerAuth(h http.Header, credential string) {
	if credential != "" {
		h.Set("Authorization", "Bearer "+credential)
	}
}

// Profile pins everything result-affecting about a model run.
type Profile struct {
	// Provider is one of the lane's [Lane.Providers] (the lane itself is
	// the agent's [Config.Lane]).
	Provider string
	// Model is the exact identifier sent and required back: no alias, no
	// default, no prefix matching.
	Model string
	// MaxOutputTokens is the output ceiling every request names.
	MaxOutputTokens int64
	// Send are the optional fields sent, with their fixed values; Omit the
	// optional fields deliberately left out. Together they are the lane's
	// [Lane.OptionalFields].
	Send map[string]any
	Omit []string
	// ModelStated is false for a vendor whose response states no model
	// (its answers are then taken without the echo check and the
	// limitation is recorded); IdentifierLimitation names any other limit
	// of the identifier ("" when none).
	ModelStated          bool
	IdentifierLimitation string
	// TurnDeadlineSeconds and WallClockDeadlineSeconds are the run's
	// deadlines (0: none).
	TurnDeadlineSeconds, WallClockDeadlineSeconds float64
	// Digest is the profile file's digest ("" for a profile built in code).
	Digest string
}

// ErrEndpoint is returned by [New] and [ParseBaseURL] when the base URL is
// not an https URL with a host and nothing else but a path (no user
// information, query or fragment): the ledger records every endpoint in
// that form, so plain http is never accepted, loopback included.
var ErrEndpoint = refusal.Sentinel("provider/endpoint")

// ParseBaseURL accepts an https URL with a host and an optional path.
func ParseBaseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Hostname() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return nil, refusal.New(ErrEndpoint, "the base URL must be https://host[:port][/path] with no user information, query or fragment")
	}
	return u, nil
}

// LedgerURL is how an endpoint is recorded: scheme, "://", host and path.
// The port, query, fragment and headers are never kept.
func LedgerURL(u *url.URL) string {
	return u.Scheme + "://" + u.Hostname() + strings.TrimSuffix(u.EscapedPath(), "/")
}

// SDKVersion is the Go release this binary was built with (the client
// library's version).
func SDKVersion() string {
	v, _, _ := strings.Cut(runtime.Version(), " ")
	return v
}

// Instant formats t as a ledger instant (UTC, whole seconds).
func Instant(t time.Time) string { return t.UTC().Format(instant.Layout) }

// FieldsSent are the request body's top-level fields under p, sorted.
func FieldsSent(l Lane, p Profile) []string {
	f := slices.AppendSeq(l.MappingFields(), maps.Keys(p.Send))
	slices.Sort(f)
	return f
}

// Settings is the header's provider settings mapping: every choice the
// lane and the profile make that is not the observation. Its digest is
// the ledger's settings_digest_sha256 and the binding's. baseURL is the
// ledger form.
func Settings(l Lane, p Profile, baseURL, sdkVersion string) map[string]any {
	omit := slices.Sorted(slices.Values(p.Omit))
	send := map[string]any{}
	maps.Copy(send, p.Send)
	var limitation any
	if p.IdentifierLimitation != "" {
		limitation = p.IdentifierLimitation
	}
	var digest any
	if p.Digest != "" {
		digest = p.Digest
	}
	s := map[string]any{
		"lane": l.ID(), "api": l.API(), "provider": p.Provider, "implementation": l.Implementation(),
		"base_url": baseURL, "model": p.Model, "max_output_tokens": p.MaxOutputTokens,
		"protocol_version": ProtocolVersion, "request_mapping": l.RequestMapping(),
		"request_fields_sent": canon.StringList(FieldsSent(l, p)), "request_fields_omitted": canon.StringList(omit),
		"request_fixed_values": send, "tool_names": canon.StringList(ToolNames),
		"response_contract":      "exactly_one_tool_call",
		"response_model_checked": p.ModelStated,
		"identifier_limitation":  limitation,
		"profile_digest_sha256":  digest,
		"retry":                  map[string]any{"max_attempts": int64(1), "initial_backoff_seconds": 0.0, "backoff_multiplier": 1.0},
		"redirects":              "refused", "proxy": "none", "keep_alive": false,
		"sdk": SDK, "sdk_version": sdkVersion,
		"turn_deadline_seconds": p.TurnDeadlineSeconds, "wall_clock_deadline_seconds": p.WallClockDeadlineSeconds,
	}
	maps.Copy(s, l.Settings())
	return s
}

// SettingsDigest is the canonical digest of [Settings].
func SettingsDigest(l Lane, p Profile, baseURL, sdkVersion string) (string, error) {
	return canon.UpstreamDigest(Settings(l, p, baseURL, sdkVersion))
}

// ProviderIdentity is the ledger header's provider object for a run of l
// under p against baseURL.
func ProviderIdentity(l Lane, p Profile, baseURL string) (execledger.Provider, error) {
	u, err := ParseBaseURL(baseURL)
	if err != nil {
		return execledger.Provider{}, err
	}
	rec := LedgerURL(u)
	return execledger.Provider{
		Provider: p.Provider, API: l.API(), Model: p.Model, Implementation: l.Implementation(),
		RequestMapping: l.RequestMapping(), ProtocolVersion: ProtocolVersion, SDK: SDK, SDKVersion: SDKVersion(),
		BaseURL: rec, Settings: Settings(l, p, rec, SDKVersion()),
	}, nil
}
