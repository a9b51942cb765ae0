package campaign

import (
	"regexp"
	"slices"
	"sync"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"
)

// FileFormat names version 1 of the campaign file schema.
const FileFormat = "obaudit-campaign/v1"

// MaxFileBytes bounds a campaign file.
const MaxFileBytes = 1 << 20

// MaxTrials bounds the assigned identities of one plan.
const MaxTrials = 1 << 20

// ArmFullLifecycle is the reference arm (Measurement RFC v2 §1); its
// treatment twin is [ArmNoTime].
const ArmFullLifecycle = "full_lifecycle"

// File is a campaign file: what an operator preregisters. It is decoded
// once, strictly ([ParseFile]), and carried verbatim inside the sealed plan.
type File struct {
	Format string `json:"format"`
	// Name is a human label; Origin names the campaign log (its
	// checkpoints' origin line and note key name).
	Name   string `json:"name"`
	Origin string `json:"origin"`
	// Seed is the campaign's randomization seed (any string); every
	// per-trial seed and identity is derived from it.
	Seed string `json:"seed"`
	// EngineVersion is the engine every trial runs and is graded under.
	EngineVersion string `json:"engine_version"`
	// Variants are scenario variants of the operation (V1, V2, V3); the
	// Semantic Scenario each belongs to is resolved at plan time.
	Variants []string `json:"variants"`
	// Agents are registered deterministic agents; ModelProfiles are
	// model-backed subjects. At least one subject in all.
	Agents        []string       `json:"agents"`
	ModelProfiles []ModelProfile `json:"model_profiles"`
	// Arms are the arms: full_lifecycle and/or stateful_time_removed (with
	// both, the report gives δ).
	Arms []string `json:"arms"`
	// Trials is the number of trials per cell (subject × arm × variant).
	Trials int `json:"trials"`
	// StabilityK is the k of pass^k (Stability@k); at most Trials.
	StabilityK int `json:"stability_k"`
	// Comparisons are ordered pairs of subjects whose paired differences
	// the report gives (A minus B over the same variant × trial).
	Comparisons [][2]string `json:"comparisons"`
	Bounds      Bounds      `json:"bounds"`
	Rates       Rates       `json:"rates"`
}

// ModelProfile is one model-backed subject: a provider lane and the model
// it pins. The lane names the transport; this build carries one lane,
// "loopback-scripted" (the preflight's scripted provider on loopback), and
// the lanes package of a later build adds vendors under the same fields.
type ModelProfile struct {
	ID    string `json:"id"`
	Lane  string `json:"lane"`
	Model string `json:"model"`
	// LatencyMS is latency the loopback lane injects per call (0: none).
	LatencyMS int `json:"latency_ms"`
}

// Bounds are the per-trial and aggregate limits. Zero means "no calls /
// tokens / money" for per-trial limits of a model-backed trial, and is
// refused there; deterministic trials make no provider calls.
type Bounds struct {
	PerTrial  Limit `json:"per_trial"`
	Aggregate Limit `json:"aggregate"`
}

// Limit is one set of bounds. CostUSD is an exact decimal string.
type Limit struct {
	Calls       int64  `json:"calls"`
	Tokens      int64  `json:"tokens"`
	CostUSD     string `json:"cost_usd"`
	WallSeconds int64  `json:"wall_seconds"`
}

// Rates are the operator's pinned token rates (not a vendor price claim).
type Rates struct {
	InputUSDPerMTok  string `json:"input_usd_per_mtok"`
	OutputUSDPerMTok string `json:"output_usd_per_mtok"`
	PricingPolicyID  string `json:"pricing_policy_id"`
}

// subjects are the file's subject ids in file order: agents, then model
// profiles.
func (f *File) subjects() []string {
	out := slices.Clone(f.Agents)
	for _, m := range f.ModelProfiles {
		out = append(out, m.ID)
	}
	return out
}

// The field patterns, compiled on first use, not at start-up.
var (
	decimalRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$`) })
	idRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })
	originRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*(/[A-Za-z0-9._-]+)+$`) })
)

// ParseFile decodes a campaign file strictly: RFC 8259 JSON that canon
// accepts (no duplicate keys), no unknown fields, every required field.
func ParseFile(b []byte) (*File, error) {
	if len(b) > MaxFileBytes {
		return nil, refusal.New(ErrFileInvalid, "%d bytes is more than %d", len(b), MaxFileBytes)
	}
	if _, err := canon.Parse(b); err != nil {
		return nil, refusal.Wrap(ErrFileInvalid, err, "not strict JSON")
	}
	var f File
	if err := decodeStrict(b, &f); err != nil {
		return nil, refusal.Wrap(ErrFileInvalid, err, "campaign file")
	}
	return &f, f.check()
}

func (f *File) check() error {
	bad := func(format string, args ...any) error { return refusal.New(ErrFileInvalid, format, args...) }
	switch {
	case f.Format != FileFormat:
		return bad("format is %q, want %q", f.Format, FileFormat)
	case f.Name == "" || f.Seed == "" || f.EngineVersion == "":
		return bad("name, seed and engine_version are required")
	case !originRE().MatchString(f.Origin):
		return bad("origin %q is not a host/path name (e.g. obaudit.example/campaign/2031-03)", f.Origin)
	case len(f.Variants) == 0:
		return bad("no variants")
	case len(f.Agents)+len(f.ModelProfiles) == 0:
		return bad("no agents and no model profiles")
	case len(f.Arms) == 0:
		return bad("no arms")
	case f.Trials < 1:
		return bad("trials is %d, want at least 1", f.Trials)
	case f.StabilityK < 1 || f.StabilityK > f.Trials:
		return bad("stability_k is %d, want 1..trials (%d)", f.StabilityK, f.Trials)
	}
	subjects := map[string]bool{}
	for _, a := range f.Agents {
		if !idRE().MatchString(a) || subjects[a] {
			return bad("agent %q: not an id, or listed twice", a)
		}
		subjects[a] = true
	}
	for _, p := range f.ModelProfiles {
		if !idRE().MatchString(p.ID) || subjects[p.ID] {
			return bad("model profile %q: not an id, or a subject listed twice", p.ID)
		}
		if p.Lane == "" || p.Model == "" || p.LatencyMS < 0 || p.LatencyMS > 60000 {
			return bad("model profile %q: lane and model are required, latency_ms 0..60000", p.ID)
		}
		subjects[p.ID] = true
	}
	for _, list := range [][]string{f.Variants, f.Arms} {
		for i, v := range list {
			if !idRE().MatchString(v) || slices.Contains(list[:i], v) {
				return bad("%q: not an id, or listed twice", v)
			}
		}
	}
	for _, c := range f.Comparisons {
		if !subjects[c[0]] || !subjects[c[1]] || c[0] == c[1] {
			return bad("comparison %v: two different subjects of this campaign", c)
		}
	}
	for _, l := range []Limit{f.Bounds.PerTrial, f.Bounds.Aggregate} {
		if l.Calls < 0 || l.Tokens < 0 || l.WallSeconds < 0 || !decimalRE().MatchString(l.CostUSD) {
			return bad("bounds: counts are non-negative, cost_usd an exact decimal string")
		}
	}
	if len(f.ModelProfiles) > 0 {
		r := f.Rates
		if !decimalRE().MatchString(r.InputUSDPerMTok) || !decimalRE().MatchString(r.OutputUSDPerMTok) || r.PricingPolicyID == "" {
			return bad("rates: a model-backed campaign states both rates as exact decimals and a pricing_policy_id")
		}
		p := f.Bounds.PerTrial
		if p.Calls == 0 || p.Tokens == 0 || p.WallSeconds == 0 {
			return bad("bounds.per_trial: a model-backed campaign bounds calls, tokens and wall time per trial")
		}
	}
	n := len(f.Variants) * (len(f.Agents) + len(f.ModelProfiles)) * len(f.Arms) * f.Trials
	if n > MaxTrials {
		return bad("%d assigned trials is more than %d", n, MaxTrials)
	}
	return nil
}
