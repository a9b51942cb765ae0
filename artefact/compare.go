package artefact

import (
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/jsonfield"
	"github.com/obaudit/obaudit/refusal"
)

// Reproductions: how a replay obtained the agent's decisions.
const (
	// ReproductionRerun re-executed the registered in-process agent.
	ReproductionRerun = "rerun"
	// ReproductionPlayback took the decisions off the record's own tape.
	ReproductionPlayback = "playback"
)

// ReplayReport is what a re-execution found when its rebuilt artefact was
// compared with the recorded one, section by section, field by field, on
// upstream canonical bytes.
type ReplayReport struct {
	ScenarioID      string
	AgentID         string
	ArtifactVersion int
	EngineVersion   string
	// Reproduction is ReproductionRerun or ReproductionPlayback.
	Reproduction string
	// CarriedForward names every top-level field the rebuilt artefact took
	// from the record instead of re-deriving (sorted). Their verdicts say
	// nothing.
	CarriedForward []string
	// Unverified names what the replay could not check at all, beyond the
	// carried fields (for example, that a model record's request digests are
	// what its recorded identity would send).
	Unverified []string
	// RequestDigestsRebuilt counts a model record's request digests the
	// replay rebuilt from the observations it offered and found equal to
	// the recorded ones (0 when they were not rebuilt: see Unverified).
	RequestDigestsRebuilt int64
	// Sections holds a verdict for every field of the contract, grouped as
	// [Sections] groups them.
	Sections []SectionVerdict
	// FirstDivergence is the first place the two documents part, or nil.
	FirstDivergence *Divergence
	// Differences is one line per differing field.
	Differences []string

	RecordedFinalStateDigest, ReplayedFinalStateDigest string
	RecordedTrajectoryDigest, ReplayedTrajectoryDigest string
	// ProviderCalls counts calls that reached a provider transport during
	// the replay; a replay refuses any, so it is 0 in every report.
	ProviderCalls int64
}

// SectionVerdict is one replay section's result.
type SectionVerdict struct {
	Name    string
	Matches bool
	Fields  []FieldVerdict
}

// FieldVerdict is one top-level field's result.
type FieldVerdict struct {
	Name    string
	Matches bool
	// Carried is true when the field was taken from the record, not derived.
	Carried bool
	// FirstDifference is the JSON pointer of the first differing value
	// inside the field ("" when it matches).
	FirstDifference string
}

// Divergence names where a replay first parted from its record.
type Divergence struct {
	Section  string
	Field    string
	Pointer  string // JSON pointer into the document
	Recorded string // a short rendering of the recorded value there
	Replayed string // and of the replayed one
}

// OK reports whether every field matched.
func (r *ReplayReport) OK() bool {
	return !slices.ContainsFunc(r.Sections, func(s SectionVerdict) bool { return !s.Matches })
}

// TotalComparison reports whether every compared field was re-derived
// rather than carried from the record.
func (r *ReplayReport) TotalComparison() bool { return len(r.CarriedForward) == 0 }

// Section returns the named section's verdict.
func (r *ReplayReport) Section(name string) (SectionVerdict, bool) {
	for _, s := range r.Sections {
		if s.Name == name {
			return s, true
		}
	}
	return SectionVerdict{}, false
}

// Compare holds a rebuilt artefact (replayed, a JSON tree of the recorded
// document's contract) against the recorded document, field by field, on
// upstream canonical bytes. carried names the fields the rebuild copied
// from the record.
//
// Equality of canonical bytes is decided by [SameCanonical], an exact
// structural walk that holds exactly when the two canonical encodings are
// equal (same kinds, same float bits, same key sets, same order), without
// encoding either side; a test holds the two definitions together.
//
// The first divergence is the earliest trajectory row that differs when the
// trajectories differ (the trajectory is the append-only record of what
// happened, so its first differing row is where the two runs parted);
// otherwise the first differing field in section order.
func Compare(rec *Document, replayed map[string]any, carried []string) (*ReplayReport, error) {
	for _, name := range Fields(rec.Version()) {
		if _, ok := replayed[name]; !ok {
			return nil, fmt.Errorf("artefact: the rebuilt document lacks %q", name)
		}
	}
	recorded, version := rec.Tree, rec.Version()
	r := &ReplayReport{ArtifactVersion: version, CarriedForward: slices.Sorted(slices.Values(carried))}
	r.ScenarioID, _ = recorded["scenario_id"].(string)
	r.AgentID, _ = recorded["agent_id"].(string)
	r.EngineVersion, _ = recorded["engine_version"].(string)
	r.RecordedFinalStateDigest, _ = recorded["final_state_digest_sha256"].(string)
	r.ReplayedFinalStateDigest, _ = replayed["final_state_digest_sha256"].(string)
	r.RecordedTrajectoryDigest, _ = recorded["trajectory_digest_sha256"].(string)
	r.ReplayedTrajectoryDigest, _ = replayed["trajectory_digest_sha256"].(string)
	var first *Divergence
	for _, sec := range Sections(version) {
		v := SectionVerdict{Name: sec.Name, Matches: true}
		for _, name := range sec.Fields {
			a, b := recorded[name], replayed[name]
			fv := FieldVerdict{Name: name, Matches: SameCanonical(a, b), Carried: slices.Contains(carried, name)}
			if !fv.Matches {
				v.Matches = false
				p, ra, rb := FirstDifference(a, b, "/"+name)
				fv.FirstDifference = p
				r.Differences = append(r.Differences, fmt.Sprintf("%s: %s differs — recorded %s, replayed %s (first at %s)", sec.Name, name, Summarize(a), Summarize(b), p))
				d := &Divergence{Section: sec.Name, Field: name, Pointer: p, Recorded: Summarize(ra), Replayed: Summarize(rb)}
				if first == nil || (name == "trajectory" && first.Field != "trajectory") {
					first = d
				}
			}
			v.Fields = append(v.Fields, fv)
		}
		r.Sections = append(r.Sections, v)
	}
	r.FirstDivergence = first
	return r, nil
}

// SameCanonical reports whether two JSON trees (canon.Parse kinds: nil,
// bool, string, int64, float64, []any, map[string]any; int is taken as
// int64) have the same upstream canonical encoding. It walks both trees
// instead of encoding them: canonical encoding is a function of the tree
// that writes every kind, key and value distinctly (an integer never as a
// float, -0.0 apart from 0.0), so equal encodings are equal trees. A value
// with no canonical form is never the same as anything.
func SameCanonical(a, b any) bool { return same(a, b, 0) }

func same(a, b any, depth int) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y && utf8.ValidString(x)
	case int64:
		y, ok := asInt(b)
		return ok && x == y && x <= canon.MaxSafeInteger && x >= -canon.MaxSafeInteger
	case int:
		y, ok := asInt(b)
		return ok && int64(x) == y && y <= canon.MaxSafeInteger && y >= -canon.MaxSafeInteger
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y) && !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || depth >= canon.MaxDepth {
			return false
		}
		for i := range x {
			if !same(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || depth >= canon.MaxDepth {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !utf8.ValidString(k) || !same(v, w, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

func asInt(b any) (int64, bool) {
	switch y := b.(type) {
	case int64:
		return y, true
	case int:
		return int64(y), true
	}
	return 0, false
}

// FirstDifference returns the JSON pointer (below p) of the first place
// two JSON trees differ in canonical order, and the values found there.
func FirstDifference(a, b any, p string) (string, any, any) {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return p, a, b
		}
		keys := sortedKeys(x)
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			va, okA := x[k]
			vb, okB := y[k]
			if okA != okB {
				return jsonfield.Key(p, k), va, vb
			}
			if !SameCanonical(va, vb) {
				return FirstDifference(va, vb, jsonfield.Key(p, k))
			}
		}
	case []any:
		y, ok := b.([]any)
		if !ok {
			return p, a, b
		}
		for i := 0; i < len(x) && i < len(y); i++ {
			if !SameCanonical(x[i], y[i]) {
				return FirstDifference(x[i], y[i], jsonfield.Index(p, i))
			}
		}
		if len(x) != len(y) {
			n := min(len(x), len(y))
			var va, vb any
			if n < len(x) {
				va = x[n]
			}
			if n < len(y) {
				vb = y[n]
			}
			return jsonfield.Index(p, n), va, vb
		}
	}
	return p, a, b
}

// Summarize renders a value for a refusal detail or a difference line, as
// [FirstDifference]'s callers report it: a container by its size, a scalar
// by its canonical JSON (truncated).
func Summarize(x any) string {
	switch v := x.(type) {
	case map[string]any:
		return fmt.Sprintf("a record of %d field(s)", len(v))
	case []any:
		return fmt.Sprintf("%d entr(y/ies)", len(v))
	}
	b, err := canon.Upstream(x)
	if err != nil {
		return jsonfield.Kind(x)
	}
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// retrievalProvenanceFields are what a replay requires a re-served read to
// reproduce exactly.
var retrievalProvenanceFields = []string{
	"invocation_index", "turn_index", "batch_index", "request_index", "initiated_by", "tool",
	"source", "authority", "record_id", "record_version", "as_of", "schema_id", "records", "ok",
}

// CheckRetrievalProvenance refuses a replay whose re-served reads are not
// the reads the record carries: every retrieval_served row of the recorded
// trajectory must come back, in order, with the same provenance tuple. It
// is a refusal ([ErrRetrievalProvenance]), not a difference: the record
// says a decision rested on a record at a version, and the live operation
// says otherwise.
func CheckRetrievalProvenance(recorded, replayed map[string]any) error {
	was, now := servedRows(recorded), servedRows(replayed)
	if len(was) != len(now) {
		return refusal.New(ErrRetrievalProvenance, "this record carries %d served retrieval row(s) and re-serving its batches against the live operation produces %d; a record that read a different number of times describes a different run", len(was), len(now))
	}
	for i := range was {
		var differing []string
		for _, f := range retrievalProvenanceFields {
			if !SameCanonical(was[i][f], now[i][f]) {
				differing = append(differing, f)
			}
		}
		if len(differing) > 0 {
			return refusal.New(ErrRetrievalProvenance, "served retrieval row %d differs in %v between this record and the same read re-served from the live operation; a replay that accepted a different version would be checking the decision against evidence it never saw", i, differing)
		}
	}
	return nil
}

func servedRows(d map[string]any) []map[string]any {
	var out []map[string]any
	rows, _ := d["trajectory"].([]any)
	for _, r := range rows {
		if m, ok := r.(map[string]any); ok && m["record_type"] == "retrieval_served" {
			out = append(out, m)
		}
	}
	return out
}

// Tree renders the report for --json output.
func (r *ReplayReport) Tree() map[string]any {
	sections := map[string]any{}
	for _, s := range r.Sections {
		fields := map[string]any{}
		for _, f := range s.Fields {
			fv := map[string]any{"matches": f.Matches, "carried": f.Carried}
			if f.FirstDifference != "" {
				fv["first_difference"] = f.FirstDifference
			}
			fields[f.Name] = fv
		}
		sections[s.Name] = map[string]any{"matches": s.Matches, "fields": fields}
	}
	var first any
	if d := r.FirstDivergence; d != nil {
		first = map[string]any{"section": d.Section, "field": d.Field, "pointer": d.Pointer, "recorded": d.Recorded, "replayed": d.Replayed}
	}
	return map[string]any{
		"scenario_id":                        r.ScenarioID,
		"agent_id":                           r.AgentID,
		"artifact_version":                   int64(r.ArtifactVersion),
		"engine_version":                     r.EngineVersion,
		"reproduction":                       r.Reproduction,
		"carried_forward":                    canon.StringList(r.CarriedForward),
		"unverified":                         canon.StringList(r.Unverified),
		"request_digests_rebuilt":            r.RequestDigestsRebuilt,
		"total_comparison":                   r.TotalComparison(),
		"ok":                                 r.OK(),
		"sections":                           sections,
		"first_divergence":                   first,
		"differences":                        canon.StringList(r.Differences),
		"recorded_final_state_digest_sha256": r.RecordedFinalStateDigest,
		"replayed_final_state_digest_sha256": r.ReplayedFinalStateDigest,
		"recorded_trajectory_digest_sha256":  r.RecordedTrajectoryDigest,
		"replayed_trajectory_digest_sha256":  r.ReplayedTrajectoryDigest,
		"provider_calls":                     r.ProviderCalls,
	}
}

// NotReproducible returns the refusal for replaying a document of contract
// version v, or nil when v is reproducible. It is checked before anything
// executes.
func NotReproducible(v int) error {
	if Reproducible(v) {
		return nil
	}
	return refusal.New(ErrNotReproducible, "this record was written under artefact contract %d, and this build reproduces contract(s) [%d]; it is still readable, but replaying it would compare two different contracts and call the difference a divergence", v, Version)
}
