// Package profile reads model profiles: small JSON files that pin
// everything result-affecting about a model run (lane, exact model
// identifier, output ceiling, the optional request fields sent with fixed
// values and those omitted, the request mapping, the retry policy, the
// deadlines) and name the one environment variable its credential is read
// from. A profile has its own JSON Schema ([SchemaJSON]) and digest (the
// canonical SHA-256 of the file's JSON value, recorded in the run's
// settings); a few are embedded as examples ([Names]).
//
// It also holds the lane registry ([Lanes], [LaneByID]).
//
// # Refusals
//
// [ErrInvalid] (a profile that is not strict JSON, fails the schema, or
// contradicts its lane), [ErrNotFound] (no embedded profile or file of that
// name).
package profile

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/offlineschema"
	"github.com/obaudit/obaudit/provider"
	"github.com/obaudit/obaudit/provider/anthropic"
	"github.com/obaudit/obaudit/provider/chatcompletions"
	"github.com/obaudit/obaudit/provider/lane"
	"github.com/obaudit/obaudit/provider/openai"
	"github.com/obaudit/obaudit/refusal"
	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Refusal classes.
var (
	// ErrInvalid is returned for a profile that is not one strict JSON
	// object, fails the profile schema, names a provider its lane does not
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

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	c := offlineschema.NewCompiler()
	if err := c.AddResource(SchemaID, bytes.NewReader(schemaJSON)); err != nil {
		return nil, err
	}
	return c.Compile(SchemaID)
})

// Parse reads a profile from data (name labels refusals).
func Parse(data []byte, name string) (*Profile, error) {
	v, err := canon.Parse(data)
	if err != nil {
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s is not strict JSON", name)
	}
	s, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("profile: compile embedded schema: %w", err)
	}
	if err := s.Validate(v); err != nil {
		if leaf, ok := offlineschema.Leaf(err); ok {
			return nil, refusal.New(ErrInvalid, "profile %s: %s violates %s: %s", name, leaf.InstanceLocation, leaf.KeywordLocation, leaf.Message)
		}
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s does not satisfy the profile schema", name)
	}
	m := v.(map[string]any)
	digest, err := canon.UpstreamDigest(m)
	if err != nil {
		return nil, refusal.Wrap(ErrInvalid, err, "profile %s", name)
	}
	l, _ := LaneByID(m["lane"].(string))
	p := &Profile{Lane: l, Name: name, CredentialEnv: m["credential_env"].(string), DefaultBaseURL: m["default_base_url"].(string)}
	limitation, _ := m["identifier_limitation"].(string)
	p.Run = lane.Profile{
		Provider: m["provider"].(string), Model: m["model"].(string),
		MaxOutputTokens: m["max_output_tokens"].(int64),
		Send:            m["send"].(map[string]any),
		ModelStated:     m["model_stated_in_response"].(bool), IdentifierLimitation: limitation,
		TurnDeadlineSeconds: number(m["turn_deadline_seconds"]), WallClockDeadlineSeconds: number(m["wall_clock_deadline_seconds"]),
		Digest: digest,
	}
	for _, o := range m["omit"].([]any) {
		p.Run.Omit = append(p.Run.Omit, o.(string))
	}
	bad := func(format string, a ...any) error {
		return refusal.New(ErrInvalid, "profile %s: "+format, append([]any{name}, a...)...)
	}
	if !slices.Contains(l.Providers(), p.Run.Provider) {
		return nil, bad("lane %s binds providers %v, not %q", l.ID(), l.Providers(), p.Run.Provider)
	}
	if m["request_mapping"] != l.RequestMapping() {
		return nil, bad("names request mapping %v; this build's %s lane speaks %s", m["request_mapping"], l.ID(), l.RequestMapping())
	}
	optional := l.OptionalFields()
	var decided []string
	for k := range p.Run.Send {
		if !slices.Contains(optional, k) {
			return nil, bad("sends %q, which is not one of the %s lane's optional fields %v", k, l.ID(), optional)
		}
		decided = append(decided, k)
	}
	for _, o := range p.Run.Omit {
		if !slices.Contains(optional, o) || p.Run.Send[o] != nil {
			return nil, bad("omits %q, which is not an optional field of the %s lane it does not also send", o, l.ID())
		}
		decided = append(decided, o)
	}
	sort.Strings(decided)
	if !slices.Equal(decided, optional) {
		return nil, bad("decides %v of the %s lane's optional fields %v: each is sent or omitted, explicitly", decided, l.ID(), optional)
	}
	if want, ok := fixedCredential[l.ID()]; ok && p.CredentialEnv != want {
		return nil, bad("the %s lane reads its credential from %s only", l.ID(), want)
	}
	if _, vendorOwn := fixedCredential[l.ID()]; vendorOwn && !p.Run.ModelStated {
		return nil, bad("the %s lane's vendor states the model in every response: it is checked, never waived", l.ID())
	}
	if p.CredentialEnv == "OPENAI_API_KEY" && p.Run.Provider != openai.ProviderName {
		return nil, bad("a key meant for OpenAI is never sent to %s", p.Run.Provider)
	}
	if p.Run.MaxOutputTokens > provider.MaxOutputTokens {
		return nil, bad("an output ceiling of %d passes the build's %d", p.Run.MaxOutputTokens, provider.MaxOutputTokens)
	}
	if _, err := lane.ParseBaseURL(p.DefaultBaseURL); err != nil {
		return nil, bad("default_base_url is not an https endpoint")
	}
	return p, nil
}

func number(v any) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
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
