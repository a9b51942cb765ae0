package campaign

import (
	"encoding/json"
	"testing"

	"github.com/obaudit/obaudit/refusal"
)

func testFile() map[string]any {
	return map[string]any{
		"format": FileFormat, "name": "t", "origin": "obaudit.example/campaign/t", "seed": "s",
		"engine_version": "e1", "variants": []string{"V1", "V2"}, "agents": []string{"a", "b", "c"},
		"model_profiles": []any{}, "arms": []string{ArmFullLifecycle}, "trials": 3, "stability_k": 2,
		"comparisons": [][2]string{{"a", "b"}},
		"bounds": map[string]any{
			"per_trial": map[string]any{"calls": 0, "tokens": 0, "cost_usd": "0", "wall_seconds": 0},
			"aggregate": map[string]any{"calls": 0, "tokens": 0, "cost_usd": "0", "wall_seconds": 0},
		},
		"rates": map[string]any{"input_usd_per_mtok": "0", "output_usd_per_mtok": "0", "pricing_policy_id": "none"},
	}
}

var testCatalog = Catalog{
	Variant: func(id string) (Variant, bool) {
		if id != "V1" && id != "V2" {
			return Variant{}, false
		}
		return Variant{ID: id, SemanticScenario: "s1", SpecDigest: "d" + id}, true
	},
	Agent:   func(id string) bool { return id == "a" || id == "b" || id == "c" },
	Lanes:   []string{"loopback-scripted"},
	Arms:    []string{ArmFullLifecycle},
	Engines: []string{"e1"},
}

func parse(t *testing.T, f map[string]any) (*File, error) {
	b, _ := json.Marshal(f)
	return ParseFile(b)
}

func TestExpand(t *testing.T) {
	f, err := parse(t, testFile())
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(f, testCatalog, "key")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Trials) != 2*3*3 {
		t.Fatalf("Expand: %d trials, want 18", len(p.Trials))
	}
	// Counterbalanced: within a variant, over 3 repeats (as many as the
	// cells), every subject takes every position once; ids and seeds are
	// distinct.
	seen := map[string]bool{}
	for _, v := range []string{"V1", "V2"} {
		pos := map[string]map[int]bool{}
		for _, tr := range p.Trials {
			if tr.Variant != v {
				continue
			}
			if pos[tr.Subject] == nil {
				pos[tr.Subject] = map[int]bool{}
			}
			pos[tr.Subject][tr.Position] = true
			if seen[tr.Seed] || seen[tr.OperationInstanceID] {
				t.Errorf("seed or instance id of %s repeated", tr.ID)
			}
			seen[tr.Seed], seen[tr.OperationInstanceID] = true, true
		}
		for s, ps := range pos {
			if len(ps) != 3 {
				t.Errorf("variant %s: subject %s took positions %v, want all of 0..2", v, s, ps)
			}
		}
	}
	// The same file expands to the same plan, byte for byte; another seed
	// to other identities.
	b1, _ := p.Encode()
	p2, _ := Expand(f, testCatalog, "key")
	b2, _ := p2.Encode()
	if string(b1) != string(b2) {
		t.Error("Expand is not deterministic")
	}
	if _, err := DecodePlan(b1); err != nil {
		t.Errorf("DecodePlan(Encode) = %v", err)
	}
	g := testFile()
	g["seed"] = "other"
	f3, _ := parse(t, g)
	p3, _ := Expand(f3, testCatalog, "key")
	if p3.Trials[0].Seed == p.Trials[0].Seed {
		t.Error("another seed gave the same trial seed")
	}
}

func TestParseAndExpandRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(f map[string]any)
		want refusal.Class
	}{
		{"unknown field", func(f map[string]any) { f["extra"] = 1 }, ErrFileInvalid.Class},
		{"k above trials", func(f map[string]any) { f["stability_k"] = 4 }, ErrFileInvalid.Class},
		{"duplicate agent", func(f map[string]any) { f["agents"] = []string{"a", "a"} }, ErrFileInvalid.Class},
		{"zero trials", func(f map[string]any) { f["trials"] = 0 }, ErrFileInvalid.Class},
		{"unknown agent", func(f map[string]any) { f["agents"] = []string{"a", "b", "zz"} }, ErrUnknownName.Class},
		{"unknown variant", func(f map[string]any) { f["variants"] = []string{"V9"} }, ErrUnknownName.Class},
		{"unknown arm", func(f map[string]any) { f["arms"] = []string{"stateful_time_removed"} }, ErrUnknownName.Class},
		{"aggregate below worst case", func(f map[string]any) {
			f["model_profiles"] = []any{map[string]any{"id": "m", "lane": "loopback-scripted", "model": "x", "latency_ms": 0}}
			f["rates"] = map[string]any{"input_usd_per_mtok": "1", "output_usd_per_mtok": "1", "pricing_policy_id": "p"}
			f["bounds"] = map[string]any{
				"per_trial": map[string]any{"calls": 10, "tokens": 10, "cost_usd": "1.5", "wall_seconds": 10},
				"aggregate": map[string]any{"calls": 60, "tokens": 60, "cost_usd": "8.99", "wall_seconds": 0},
			}
		}, ErrBoundsExceeded.Class},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := testFile()
			c.edit(f)
			pf, err := parse(t, f)
			if err == nil {
				_, err = Expand(pf, testCatalog, "key")
			}
			if got, _ := refusal.ClassOf(err); got != c.want {
				t.Errorf("ParseFile/Expand = %v, want class %s", err, c.want)
			}
		})
	}
}

// A trial's directory name is read whole: beyond t99999 the identity has six
// digits or more, and t100000 must not be read as t10000.
func TestTrialOf(t *testing.T) {
	p := &Plan{Trials: make([]Trial, 100001)}
	for i := range p.Trials {
		p.Trials[i].ID = trialID(i)
	}
	for name, want := range map[string]int{"t00000": 0, "t00042": 42, "t10000": 10000, "t99999": 99999, "t100000": 100000} {
		if i, ok := p.trialOf(name); !ok || i != want {
			t.Errorf("trialOf(%q) = %d, %v; want %d, true", name, i, ok, want)
		}
	}
	for _, name := range []string{"t100001", "t0", "t042", "t+0042", "t010000", "t-1", "x00001", "t00001x", "t", ""} {
		if i, ok := p.trialOf(name); ok {
			t.Errorf("trialOf(%q) = %d, true; want no trial", name, i)
		}
	}
}

// Two common outcomes are the same only when their predicate verdicts are
// the same map: a verdict under another predicate's name is a difference,
// whatever the values.
func TestSameCommon(t *testing.T) {
	mk := func(v map[string]string) *CommonOutcome {
		return &CommonOutcome{Status: "completed", FindingCodes: []string{"F1"}, PredicateVerdicts: v}
	}
	a := mk(map[string]string{"p1": "PASS", "p2": "FAIL"})
	for _, c := range []struct {
		b    *CommonOutcome
		want bool
	}{
		{mk(map[string]string{"p1": "PASS", "p2": "FAIL"}), true},
		{mk(map[string]string{"p1": "PASS", "p2": "PASS"}), false},
		{mk(map[string]string{"p1": "PASS", "p3": "FAIL"}), false},
		{mk(map[string]string{"p1": "PASS"}), false},
		{nil, false},
	} {
		if got := sameCommon(a, c.b); got != c.want {
			t.Errorf("sameCommon(%v, %v) = %v, want %v", a, c.b, got, c.want)
		}
	}
	if sameCommon(mk(map[string]string{"x": ""}), mk(map[string]string{"y": "PASS"})) {
		t.Error("a verdict missing on one side read as the empty verdict")
	}
}
