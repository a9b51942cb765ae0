// Package profile reads model profiles: small JSON files that pin
// everything result-affecting about a model run (lane, exact model
// identifier, output ceiling, the optional request fields sent with fixed
// values and those omitted, the request mapping, the retry policy, the
// deadlines) and name the one environment variable its credential is read
// from. A profile has a digest (the canonical SHA-256 of the file's JSON
// value, recorded in the run's settings); a few are embedded as examples
// ([Names]).
//
// [Parse] is the validator: the named field rules, declared once as one
// tree rule (internal/jsonfield), then each member read from the checked
// tree into the [Profile], then the rules of the profile's lane. The
// published JSON
// Schema (profile.schema.json, [SchemaID]; embedded by the tests, never
// compiled here) is held to the field rules as an oracle by
// TestSchemaOracle: every committed profile and a mutation corpus of them
// get the same verdict from both, save documented exceptions (the lane's
// rules, which the schema cannot state, and an integer written as a
// float), and the field rules never accept what the schema refuses.
//
// It also holds the lane registry ([Lanes], [LaneByID]).
//
// # Refusals
//
// [ErrInvalid] (a profile that is not strict JSON, breaks a field rule, or
// contradicts its lane), [ErrNotFound] (no embedded profile or file of that
// name).
package profile

import (
	"embed"
	"errors"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/chatcompletions"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrInvalid is returned for a profile that is not one strict JSON
	// object, breaks a field rule (the published schema's; an integer
	// written as a float too), names a provider its lane does not
	// bind, a request mapping other than its lane's, an optional field its
	// lane does not know, leaves one of its lane's optional fields
	// undecided, names a credential variable its lane does not read, or
	// waives the response-model check on a vendor's own lane (only a
	// compatibility lane's server may state no model).
	ErrInvalid = refusal.Sentinel("profile/invalid")
	// ErrNotFound is returned for a profile name that is neither embedded
	// nor a readable file.
	ErrNotFound = refusal.Sentinel("profile/not-found")
)

// SchemaID is the profile schema's $id.
const SchemaID = "https://obaudit.dev/schemas/model-profile/v1.json"

//go:embed profiles/*.json
var embedded embed.FS

// Lanes are the lanes this build speaks, by ID.
var Lanes = []lane.Lane{openai.Lane, anthropic.Lane, chatcompletions.Lane}

// LaneIDs are the lane IDs, in [Lanes] order.
func LaneIDs() []string {
	out := make([]string, len(Lanes))
	for i, l := range Lanes {
		out[i] = l.ID()
	}
	return out
}

// LaneByID returns the lane named id.
func LaneByID(id string) (lane.Lane, bool) {
	for _, l := range Lanes {
		if l.ID() == id {
			return l, true
		}
	}
	return nil, false
}

// fixedCredential is the one variable a vendor's own lane reads; the
// compatibility lane reads the variable its profile names, never
// OPENAI_API_KEY (a key meant for OpenAI is not sent elsewhere).
var fixedCredential = map[string]string{openai.ID: "OPENAI_API_KEY", anthropic.ID: "ANTHROPIC_API_KEY"}

// Profile is a read profile.
type Profile struct {
	// Lane is the lane it runs on; Run is what the agent runs under.
	Lane lane.Lane
	Run  lane.Profile
	// CredentialEnv is the environment variable the credential is read
	// from (by cmd, never here); DefaultBaseURL the vendor's API root.
	CredentialEnv, DefaultBaseURL string
	// Name is the embedded name or the file it was read from.
	Name string
}

// Parse reads a profile from data (name labels refusals): strict JSON, then
// the field rules ([profileRule]), then its lane's rules
// ([Profile.fitsLane]).
func Parse(data []byte, name string) (*Profile, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s is not strict JSON", name)
	}
	if err := profileRule()(v, ""); err != nil {
		return nil, named(name, err)
	}
	p, mapping := read(v.(map[string]any), name)
	if p.Run.Digest, err = canon.UpstreamDigest(v); err != nil {
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s", name)
	}
	if err := p.fitsLane(mapping); err != nil {
		return nil, named(name, err)
	}
	return p, nil
}

// fields holds a profile's values to the tree rules (internal/jsonfield)
// with this package's class; a refusal's detail is led by the pointer of
// the value it is about (nothing for the profile itself).
var fields = &jsonfield.Reader{Bad: ErrInvalid, Unknown: ErrInvalid, UnknownField: ErrInvalid, MissingField: ErrInvalid}

// profileRule is the profile's field rules, the published schema's (an
// integer written as an integer too), built on first use (nothing,
// regular expressions included, at init).
var profileRule = sync.OnceValue(func() jsonfield.Rule {
	r, f := fields, jsonfield.Field
	pattern := func(want, expr string) jsonfield.Rule { return r.Match(want, regexp.MustCompile(expr).MatchString) }
	return r.Closed(
		f("profile_version", r.Integer(1, 1)),
		f("lane", r.Enum(LaneIDs()...)),
		f("provider", r.Enum(boundProviders()...)),
		f("model", pattern("a model identifier (a letter or digit, then at most 127 of A-Z a-z 0-9 . _ : / -)", `^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`)),
		f("max_output_tokens", r.Integer(1, 4096)),
		f("send", r.Open()),
		f("omit", r.Distinct(r.String)),
		f("request_mapping", r.Text),
		f("retry", r.Enum("none")),
		f("turn_deadline_seconds", seconds(600)),
		f("wall_clock_deadline_seconds", seconds(86400)),
		f("credential_env", pattern("an environment variable name (A-Z, then at most 63 of A-Z 0-9 _)", `^[A-Z][A-Z0-9_]{0,63}$`)),
		f("default_base_url", pattern("https://host[:port][/path] (host: A-Z a-z 0-9 . -; path: A-Z a-z 0-9 . _ ~ / -)", `^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$`)),
		f("model_stated_in_response", r.Flag),
		f("identifier_limitation", jsonfield.OrNull(r.Chars(1, 256))))
})

// seconds is a number of seconds above 0 and at most most.
func seconds(most float64) jsonfield.Rule {
	return func(x any, p string) error {
		if s, ok := float(x).(float64); !ok || !(s > 0 && s <= most) {
			return fields.Refuse(ErrInvalid, p, "must be a number of seconds above 0 and at most %g, got %s", most, jsonfield.Show(x))
		}
		return nil
	}
}

// float is x, an integer written as a float64.
func float(x any) any {
	if n, ok := x.(int64); ok {
		return float64(n)
	}
	return x
}

// read fills a Profile from the profile m that profileRule holds, and
// returns its request mapping.
func read(m map[string]any, name string) (*Profile, string) {
	// profileRule has established every assertion below: each member is
	// present and of its kind, the lane one this build speaks.
	l, _ := LaneByID(m["lane"].(string))
	var omit []string
	for _, o := range m["omit"].([]any) {
		omit = append(omit, o.(string))
	}
	note, _ := m["identifier_limitation"].(string) // null reads as ""
	return &Profile{
		Lane: l, Name: name,
		Run: lane.Profile{
			Provider:                 m["provider"].(string),
			Model:                    m["model"].(string),
			MaxOutputTokens:          m["max_output_tokens"].(int64),
			Send:                     m["send"].(map[string]any),
			Omit:                     omit,
			TurnDeadlineSeconds:      float(m["turn_deadline_seconds"]).(float64),
			WallClockDeadlineSeconds: float(m["wall_clock_deadline_seconds"]).(float64),
			ModelStated:              m["model_stated_in_response"].(bool),
			IdentifierLimitation:     note,
		},
		CredentialEnv:  m["credential_env"].(string),
		DefaultBaseURL: m["default_base_url"].(string),
	}, m["request_mapping"].(string)
}

// fitsLane holds p, read with request mapping mapping, to its lane's rules,
// which the schema cannot state: the providers the lane binds, its request
// mapping, its optional fields (each decided once), the credential
// variable it reads, the response-model check, the build's output ceiling
// and an endpoint it accepts.
func (p *Profile) fitsLane(mapping string) error {
	l := p.Lane
	bad := func(pointer, format string, a ...any) error {
		return errors.Join(errLaneRule, fields.Refuse(ErrInvalid, pointer, format, a...))
	}
	if !slices.Contains(l.Providers(), p.Run.Provider) {
		return bad("/provider", "is %q: lane %s binds providers %v", p.Run.Provider, l.ID(), l.Providers())
	}
	if mapping != l.RequestMapping() {
		return bad("/request_mapping", "names request mapping %s; this build's %s lane speaks %s", mapping, l.ID(), l.RequestMapping())
	}
	optional := l.OptionalFields()
	var decided []string
	for k := range p.Run.Send {
		if !slices.Contains(optional, k) {
			return bad(jsonfield.Key("/send", k), "sends %q, which is not one of the %s lane's optional fields %v", k, l.ID(), optional)
		}
		decided = append(decided, k)
	}
	for i, o := range p.Run.Omit {
		if !slices.Contains(optional, o) || p.Run.Send[o] != nil {
			return bad(jsonfield.Index("/omit", i), "omits %q, which is not an optional field of the %s lane it does not also send", o, l.ID())
		}
		decided = append(decided, o)
	}
	sort.Strings(decided)
	if !slices.Equal(decided, optional) {
		return bad("/omit", "decides %v of the %s lane's optional fields %v: each is sent or omitted, explicitly", decided, l.ID(), optional)
	}
	if want, ok := fixedCredential[l.ID()]; ok && p.CredentialEnv != want {
		return bad("/credential_env", "the %s lane reads its credential from %s only", l.ID(), want)
	}
	if _, vendorOwn := fixedCredential[l.ID()]; vendorOwn && !p.Run.ModelStated {
		return bad("/model_stated_in_response", "the %s lane's vendor states the model in every response: it is checked, never waived", l.ID())
	}
	if p.CredentialEnv == "OPENAI_API_KEY" && p.Run.Provider != openai.ProviderName {
		return bad("/credential_env", "a key meant for OpenAI is never sent to %s", p.Run.Provider)
	}
	if p.Run.MaxOutputTokens > provider.MaxOutputTokens {
		return bad("/max_output_tokens", "an output ceiling of %d passes the build's %d", p.Run.MaxOutputTokens, provider.MaxOutputTokens)
	}
	if _, err := lane.ParseBaseURL(p.DefaultBaseURL); err != nil {
		return bad("/default_base_url", "is not an https endpoint")
	}
	return nil
}

// boundProviders are the providers some lane of this build binds.
func boundProviders() []string {
	var out []string
	for _, l := range Lanes {
		out = append(out, l.Providers()...)
	}
	return out
}

// errLaneRule marks a refusal under a rule of the profile's lane, which the
// schema cannot state (every other refusal about a value is under a field
// rule, the published schema's).
var errLaneRule = errors.New("a rule of the profile's lane")

// named is the refusal err of the profile name.
func named(name string, err error) error {
	return refusal.Because(ErrInvalid, err, "profile %s: %s", name, refusal.Detail(err))
}

// Names are the embedded profiles' names (file names without .json),
// sorted.
func Names() []string {
	es, _ := embedded.ReadDir("profiles")
	var out []string
	for _, e := range es {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(out)
	return out
}

// Embedded reads the embedded profile name.
func Embedded(name string) (*Profile, error) {
	if !slices.Contains(Names(), name) {
		return nil, refusal.New(ErrNotFound, "no embedded profile %q (embedded: %v)", name, Names())
	}
	b, err := embedded.ReadFile(path.Join("profiles", name+".json"))
	if err != nil {
		return nil, err
	}
	return Parse(b, name)
}

// ForLane is the embedded example profile the preflight of lane id runs
// under.
func ForLane(id string) (*Profile, error) {
	name, ok := map[string]string{
		openai.ID: "openai-gpt-5.6-luna", anthropic.ID: "anthropic-claude-haiku-4-5-20251001", chatcompletions.ID: "mistral-small-2603",
	}[id]
	if !ok {
		return nil, refusal.New(ErrNotFound, "no lane %q (lanes: %v)", id, LaneIDs())
	}
	return Embedded(name)
}

// AgentID is the artefact's agent id for a run under p: the provider and
// the model with every character outside [a-z0-9] as "-".
func AgentID(p lane.Profile) string {
	return strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			return r
		}
		return '-'
	}, strings.ToLower(p.Provider+"-"+p.Model))
}
