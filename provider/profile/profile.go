// Package profile reads model profiles: small JSON files that pin
// everything result-affecting about a model run (lane, exact model
// identifier, output ceiling, the optional request fields sent with fixed
// values and those omitted, the request mapping, the retry policy, the
// deadlines) and name the one environment variable its credential is read
// from. A profile has a digest (the canonical SHA-256 of the file's JSON
// value, recorded in the run's settings); a few are embedded as examples
// ([Names]).
//
// [Parse] is the validator: named field rules, each member read once into
// the [Profile], then the rules of the profile's lane. The published JSON
// Schema (profile.schema.json, [SchemaID]; embedded as bytes, never
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
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

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

//go:embed profile.schema.json
var schemaJSON []byte

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

// members are a profile's members, in the schema's order: each is
// required and no other is allowed.
var members = []string{"profile_version", "lane", "provider", "model", "max_output_tokens", "send", "omit", "request_mapping", "retry",
	"turn_deadline_seconds", "wall_clock_deadline_seconds", "credential_env", "default_base_url", "model_stated_in_response", "identifier_limitation"}

// The published schema's patterns, compiled on first use (never at init).
var (
	modelRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$`) })
	credentialRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z0-9_]{0,63}$`) })
	baseURLRE    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$`)
	})
)

// Parse reads a profile from data (name labels refusals): strict JSON, then
// the field rules ([read]), then its lane's rules ([Profile.fitsLane]).
func Parse(data []byte, name string) (*Profile, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s is not strict JSON", name)
	}
	p, mapping, err := read(v, name)
	if err != nil {
		return nil, err
	}
	if err := p.fitsLane(mapping); err != nil {
		return nil, err
	}
	return p, nil
}

// read holds v to the profile's field rules (the published schema's, each
// member read once by its rule) and fills a Profile from it; mapping is
// its request mapping.
func read(v any, name string) (p *Profile, mapping string, err error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, "", invalid(name, fieldRule, "", "must be a JSON object, got %s", jsonfield.Kind(v))
	}
	if unknown := jsonfield.Unknown(m, members); unknown != nil {
		return nil, "", invalid(name, fieldRule, jsonfield.Key("", unknown[0]), "is not a profile member (a profile has exactly %v)", members)
	}
	if missing := jsonfield.Missing(m, members); missing != nil {
		return nil, "", invalid(name, fieldRule, "", "lacks the member(s) %v", missing)
	}
	f := &fields{m: m, name: name}
	f.is("profile_version", int64(1))
	l, _ := LaneByID(f.text("lane", fmt.Sprintf("one of %v", LaneIDs()), func(s string) bool { _, ok := LaneByID(s); return ok }))
	providers := boundProviders()
	p = &Profile{
		Lane: l, Name: name,
		Run: lane.Profile{
			Provider:                 f.text("provider", fmt.Sprintf("one of %v", providers), func(s string) bool { return slices.Contains(providers, s) }),
			Model:                    f.text("model", "a model identifier (a letter or digit, then at most 127 of A-Z a-z 0-9 . _ : / -)", modelRE().MatchString),
			MaxOutputTokens:          f.integer("max_output_tokens", 1, 4096),
			Send:                     as[map[string]any](f, "send", "a JSON object"),
			Omit:                     f.distinct("omit"),
			TurnDeadlineSeconds:      f.seconds("turn_deadline_seconds", 600),
			WallClockDeadlineSeconds: f.seconds("wall_clock_deadline_seconds", 86400),
			ModelStated:              as[bool](f, "model_stated_in_response", "true or false"),
			IdentifierLimitation:     f.note("identifier_limitation", 256),
		},
		CredentialEnv:  f.text("credential_env", "an environment variable name (A-Z, then at most 63 of A-Z 0-9 _)", credentialRE().MatchString),
		DefaultBaseURL: f.text("default_base_url", "https://host[:port][/path] (host: A-Z a-z 0-9 . -; path: A-Z a-z 0-9 . _ ~ / -)", baseURLRE().MatchString),
	}
	mapping = f.text("request_mapping", "a non-empty string", func(s string) bool { return s != "" })
	f.is("retry", "none")
	if f.err != nil {
		return nil, "", f.err
	}
	if p.Run.Digest, err = canon.UpstreamDigest(m); err != nil {
		return nil, "", refusal.Wrap(ErrInvalid, err, "profile %s", name)
	}
	return p, mapping, nil
}

// fitsLane holds p, read with request mapping mapping, to its lane's rules,
// which the schema cannot state: the providers the lane binds, its request
// mapping, its optional fields (each decided once), the credential
// variable it reads, the response-model check, the build's output ceiling
// and an endpoint it accepts.
func (p *Profile) fitsLane(mapping string) error {
	l := p.Lane
	bad := func(pointer, format string, a ...any) error { return invalid(p.Name, laneRule, pointer, format, a...) }
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

// The two kinds of rule an ErrInvalid refusal about a value names: a field
// rule (the published schema's) or a rule of the profile's lane.
const (
	fieldRule = "field"
	laneRule  = "lane"
)

// at is the cause of an ErrInvalid refusal about one value: its RFC 6901
// pointer ("" the profile itself) and the kind of rule it breaks.
type at struct{ pointer, rule string }

func (a *at) Error() string { return a.rule + " rule at " + a.pointer }

// invalid is the ErrInvalid refusal of profile name about the value at
// pointer under a rule of kind rule.
func invalid(name, rule, pointer, format string, a ...any) error {
	detail := fmt.Sprintf(format, a...)
	if pointer != "" {
		detail = pointer + " " + detail
	}
	return &refusal.Refusal{Class: ErrInvalid.Class, Detail: "profile " + name + ": " + detail, Err: &at{pointer, rule}}
}

// fields reads the members of one profile object, each by its field rule.
// The first rule broken is kept in err; a read after it returns what it
// can, and the profile is refused.
type fields struct {
	m    map[string]any
	name string
	err  error
}

func (f *fields) fail(pointer, format string, a ...any) {
	if f.err == nil {
		f.err = invalid(f.name, fieldRule, pointer, format, a...)
	}
}

// is holds the member key to the one value want.
func (f *fields) is(key string, want any) {
	if x := f.m[key]; x != want {
		f.fail("/"+key, "must be %s, got %s", jsonfield.Show(want), jsonfield.Show(x))
	}
}

// text reads the member key as a string that ok admits (want says which).
func (f *fields) text(key, want string, ok func(string) bool) string {
	s, isString := f.m[key].(string)
	if !isString || !ok(s) {
		f.fail("/"+key, "must be %s, got %s", want, jsonfield.Show(f.m[key]))
	}
	return s
}

// integer reads the member key as an integer from lo to hi. An integral
// float (14.0) is not one: a profile writes its integers as integers.
func (f *fields) integer(key string, lo, hi int64) int64 {
	n, ok := f.m[key].(int64)
	if !ok || n < lo || n > hi {
		f.fail("/"+key, "must be an integer from %d to %d, got %s", lo, hi, jsonfield.Show(f.m[key]))
	}
	return n
}

// seconds reads the member key as a number above 0 and at most hi.
func (f *fields) seconds(key string, hi float64) float64 {
	var s float64
	switch n := f.m[key].(type) {
	case int64:
		s = float64(n)
	case float64:
		s = n
	}
	if !(s > 0 && s <= hi) {
		f.fail("/"+key, "must be a number of seconds above 0 and at most %g, got %s", hi, jsonfield.Show(f.m[key]))
	}
	return s
}

// as reads the member key as a T (what names it for a refusal).
func as[T any](f *fields, key, what string) T {
	v, ok := f.m[key].(T)
	if !ok {
		f.fail("/"+key, "must be %s, got %s", what, jsonfield.Show(f.m[key]))
	}
	return v
}

// distinct reads the member key as an array of distinct strings (nil when
// empty).
func (f *fields) distinct(key string) []string {
	a, ok := f.m[key].([]any)
	if !ok {
		f.fail("/"+key, "must be an array of distinct strings, got %s", jsonfield.Kind(f.m[key]))
		return nil
	}
	var out []string
	seen := make(map[string]bool, len(a))
	for i, x := range a {
		s, ok := x.(string)
		switch {
		case !ok:
			f.fail(jsonfield.Index("/"+key, i), "must be a string, got %s", jsonfield.Show(x))
		case seen[s]:
			f.fail(jsonfield.Index("/"+key, i), "repeats %q", s)
		}
		seen[s] = true
		out = append(out, s)
	}
	return out
}

// note reads the member key as null ("") or a string of 1 to most
// characters (code points).
func (f *fields) note(key string, most int) string {
	x := f.m[key]
	if x == nil {
		return ""
	}
	s, ok := x.(string)
	if n := utf8.RuneCountInString(s); !ok || n < 1 || n > most {
		f.fail("/"+key, "must be null or a string of 1 to %d characters, got %s", most, jsonfield.Show(x))
	}
	return s
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
	var b strings.Builder
	for _, r := range strings.ToLower(p.Provider + "-" + p.Model) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
