package report_test

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	"github.com/obaudit/obaudit/report"
	"github.com/obaudit/obaudit/schemas"
)

const pin = "opinst_0123456789abcdef0123456789abcdef"

// packs is the registry half of the lookup cmd/obaudit's report command
// makes (the gate's judgement, the other half, is the command's, specified
// by its testscript; tests here give the report judgements directly).
func packs(q report.PackQuery) *report.Pack {
	for _, p := range domains.Packs() {
		if p.OperationType != q.OperationType {
			continue
		}
		d, err := p.Operation(nil, "", q.ScenarioID)
		if err != nil || d.Plan().Meta.SpecDigest != q.SpecDigest {
			return nil
		}
		return report.PackOf(p.Name, d)
	}
	return nil
}

// run executes one registered agent on one scenario of the default pack and
// encodes its artefact.
func run(t testing.TB, scenario, agent string) []byte {
	t.Helper()
	p := domains.Default()
	a, ok := p.Agent(agent)
	if !ok {
		t.Fatalf("no agent %q", agent)
	}
	d, err := p.Operation(nil, "", scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := episode.Run(episode.Config{Domain: d, NewAgent: a.New, AgentID: a.ID, AgentKind: a.Kind, OperationInstanceID: pin, EngineVersion: schemas.EngineObaudit})
	if err != nil {
		t.Fatal(err)
	}
	agents := map[string]string{}
	for _, x := range p.Agents {
		agents[x.ID] = x.Kind
	}
	var terminals []string
	if g, ok := d.(engine.Graded); ok {
		terminals = g.GradingContract().TerminalOutcomes
	}
	opts := artefact.Options{Domains: []artefact.Domain{{OperationType: p.OperationType, TerminalClasses: terminals, Agents: agents,
		ValidateState: func(map[string]any, string, int, bool) error { return nil }}}}
	b, err := artefact.Encode(res.Artefact, opts)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type fixture struct {
	name   string
	raw    []byte
	ledger *execledger.Audit
}

func fakeOpenAI(t testing.TB) ([]byte, *execledger.Audit) {
	raw := upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.json")
	led, err := execledger.Read(bytes.NewReader(upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson")), execledger.Options{RequireComplete: true})
	if err != nil {
		t.Fatal(err)
	}
	return raw, led
}

func fixtures(t *testing.T) []fixture {
	raw, led := fakeOpenAI(t)
	return []fixture{
		{"V1 reference (upstream)", upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json"), nil},
		{"V1 reference, contract 1 (upstream)", upstreamtest.Read(t, "artifact1-reference-V1.json"), nil},
		{"V1 trust_actor_claim", run(t, "V1", "trust_actor_claim"), nil},
		{"V2 reference", run(t, "V2", "reference"), nil},
		{"V3 reference", run(t, "V3", "reference"), nil},
		{"fake-openai V1 with its ledger (upstream)", raw, led},
	}
}

func build(t *testing.T, f fixture) *report.Report {
	t.Helper()
	r, err := report.Build(artefacttest.Read(t, f.raw), report.Options{Pack: packs, Ledger: f.ledger})
	if err != nil {
		t.Fatalf("%s: Build = %v", f.name, err)
	}
	return r
}

// box is a rectangle on a chart.
type box struct {
	x0, y0, x1, y1 float64
	what           string
}

func (a box) overlaps(b box) bool {
	const eps = 0.05
	return a.x0 < b.x1-eps && b.x0 < a.x1-eps && a.y0 < b.y1-eps && b.y0 < a.y1-eps
}

func labelBox(l report.Label, what string) box {
	return box{l.X0, l.Y0, l.X1, l.Y1, what + " " + strconv.Quote(l.Text)}
}

var number = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?`)

// shapeBox bounds a mark's shape; lines (grid, ticks) are not obstacles.
func shapeBox(s report.Shape) (box, bool) {
	switch s.K {
	case "c":
		return box{s.X - s.R, s.Y - s.R, s.X + s.R, s.Y + s.R, "circle"}, true
	case "r":
		if s.Rot {
			return box{s.X - 1.5, s.Y - 1.5, s.X + s.W + 1.5, s.Y + s.H + 1.5, "diamond"}, true
		}
		return box{s.X, s.Y, s.X + s.W, s.Y + s.H, "rect"}, true
	case "p":
		b := box{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1), "path"}
		ns := number.FindAllString(s.D, -1)
		for i := 0; i+1 < len(ns); i += 2 {
			x, _ := strconv.ParseFloat(ns[i], 64)
			y, _ := strconv.ParseFloat(ns[i+1], 64)
			b.x0, b.x1, b.y0, b.y1 = math.Min(b.x0, x), math.Max(b.x1, x), math.Min(b.y0, y), math.Max(b.y1, y)
		}
		return b, true
	}
	return box{}, false
}

// collisions lists every problem with a chart's text: a label outside its
// drawing, two labels overlapping, a label over another mark's shape.
func collisions(c report.Chart) []string {
	var bad []string
	var labels []box
	owner := []int{}
	for _, l := range c.Axis {
		labels, owner = append(labels, labelBox(l, "axis")), append(owner, -1)
	}
	for _, l := range c.Empty {
		labels, owner = append(labels, labelBox(l, "note")), append(owner, -2)
	}
	var shapes []box
	var shapeOwner []int
	for i, m := range c.Marks {
		if m.Label != nil {
			labels, owner = append(labels, labelBox(*m.Label, "label")), append(owner, i)
		}
		for _, s := range m.Shapes {
			if b, ok := shapeBox(s); ok {
				shapes, shapeOwner = append(shapes, b), append(shapeOwner, i)
			}
		}
	}
	for i, a := range labels {
		if a.x0 < 0 || a.x1 > c.PlotW || a.y0 < 0 || a.y1 > c.Height {
			bad = append(bad, fmt.Sprintf("%s at [%.1f,%.1f] leaves the %.0f px plot", a.what, a.x0, a.x1, c.PlotW))
		}
		for j := i + 1; j < len(labels); j++ {
			if a.overlaps(labels[j]) {
				bad = append(bad, fmt.Sprintf("%s overlaps %s", a.what, labels[j].what))
			}
		}
		for j, s := range shapes {
			if shapeOwner[j] != owner[i] && a.overlaps(s) {
				bad = append(bad, fmt.Sprintf("%s overlaps the %s of mark %d (%q)", a.what, s.what, shapeOwner[j], c.Marks[shapeOwner[j]].Title))
			}
		}
	}
	var lanes []box
	for _, l := range c.Lanes {
		for _, ln := range l.Lines {
			b := labelBox(ln, "lane label")
			if b.x0 < 0 || b.x1 > c.LabelW {
				bad = append(bad, fmt.Sprintf("%s is %.1f px wide, the column %.0f px", b.what, b.x1-b.x0, c.LabelW))
			}
			if b.y0 < l.Y || b.y1 > l.Y+l.H {
				bad = append(bad, fmt.Sprintf("%s leaves its lane", b.what))
			}
			lanes = append(lanes, b)
		}
	}
	for i := range lanes {
		for j := i + 1; j < len(lanes); j++ {
			if lanes[i].overlaps(lanes[j]) {
				bad = append(bad, fmt.Sprintf("%s overlaps %s", lanes[i].what, lanes[j].what))
			}
		}
	}
	return bad
}

// TestLabelsFit lays out every fixture at every zoom level and checks that
// no label leaves its drawing, no two labels overlap, and no label covers
// another mark.
func TestLabelsFit(t *testing.T) {
	for _, f := range fixtures(t) {
		charts := build(t, f).Charts()
		if len(charts) != len(report.Zooms) {
			t.Fatalf("%s: %d charts, want %d", f.name, len(charts), len(report.Zooms))
		}
		for _, c := range charts {
			if len(c.Marks) < 50 {
				t.Errorf("%s zoom %d: only %d marks", f.name, c.Zoom, len(c.Marks))
			}
			for _, p := range collisions(c) {
				t.Errorf("%s zoom %d: %s", f.name, c.Zoom, p)
			}
		}
	}
}

// TestCollisionsCanFail shows the checker sees an overlap, a label out of
// the plot and a label over a mark.
func TestCollisionsCanFail(t *testing.T) {
	l := func(s string, x float64) *report.Label {
		return &report.Label{Text: s, X0: x, X1: x + 40, Y0: 10, Y1: 20}
	}
	c := report.Chart{PlotW: 100, Height: 50, LabelW: 50, Marks: []report.Mark{
		{Label: l("a", 10)}, {Label: l("b", 30)}, {Label: l("c", 80)},
		{Shapes: []report.Shape{{K: "c", X: 15, Y: 15, R: 3}}},
	}}
	got := strings.Join(collisions(c), "\n")
	for _, want := range []string{`label "a" overlaps label "b"`, `label "c" at [80.0,120.0] leaves`, `label "a" overlaps the circle of mark 3`} {
		if !strings.Contains(got, want) {
			t.Errorf("collisions missed %s:\n%s", want, got)
		}
	}
}

// hostile is what every string the artefact carries becomes.
func hostile(n int) string {
	return fmt.Sprintf("x%d<script>alert(%d)</script>\"'\u2028&amp;<img src=x>", n, n)
}

// escaped is how hostile(n) must appear on the page.
func escaped(n int) string {
	return fmt.Sprintf("x%d&lt;script&gt;alert(%d)&lt;/script&gt;&#34;&#39;\u2028&amp;amp;&lt;img src=x&gt;", n, n)
}

// structural keys keep their values: the report branches on them (a row's
// type, a disposition, a decision kind, a dispatch status, a row's phase),
// and instants must parse. Each is a closed vocabulary the artefact
// validator holds before anything is rendered; an obligation's kind and the
// episode's status, which the report only shows, are poisoned.
var structural = map[string]bool{"record_type": true, "disposition": true, "kind": true, "phase": true, "status": true, "cause": true}

// poison rewrites every non-structural string in tree to a hostile one; the
// same string always becomes the same hostile string, so references (ids
// cited elsewhere) still resolve. It returns the marker each key received.
func poison(tree any, marks map[string]int, keys map[string][]int) any {
	var walk func(key string, v any, shown bool) any
	walk = func(key string, v any, shown bool) any {
		switch x := v.(type) {
		case map[string]any:
			rt, _ := x["record_type"].(string)
			for k, e := range x {
				x[k] = walk(k, e, k == "kind" && strings.HasPrefix(rt, "obligation_"))
			}
		case []any:
			for i, e := range x {
				x[i] = walk(key, e, false)
			}
		case string:
			if (structural[key] && !shown) || x == "timer" {
				return x
			}
			if _, err := time.Parse(time.RFC3339, x); err == nil {
				return x
			}
			n, ok := marks[x]
			if !ok {
				n = len(marks)
				marks[x] = n
			}
			keys[key] = append(keys[key], n)
			return hostile(n)
		}
		return v
	}
	root := tree.(map[string]any)
	status := root["status"]
	tree = walk("", tree, false)
	root["status"] = walk("status", status, true)
	return tree
}

// TestHostileStrings feeds a hostile string through every string field of
// an artefact, a pack and a ledger, and checks the page: the one script and
// the one stylesheet are the page's own, no element or attribute is
// injected, and every field the page shows appears escaped.
func TestHostileStrings(t *testing.T) {
	marks, keys := map[string]int{}, map[string][]int{}
	m := func(s string) string {
		n := len(marks)
		marks["pack/ledger "+s+strconv.Itoa(n)] = n
		keys["pack/ledger "+s] = append(keys["pack/ledger "+s], n)
		return hostile(n)
	}
	// A pack whose every name is hostile.
	pack := func(report.PackQuery) *report.Pack {
		roles := map[string]string{}
		for actor, n := range marks {
			if !strings.HasPrefix(actor, "pack/ledger ") {
				roles[hostile(n)] = m("role")
			}
		}
		return &report.Pack{
			Name: m("pack"), Roles: roles,
			RequiredReads:           func(string) []string { return []string{m("required read")} },
			DispatchFailures:        []string{m("authored dispatch failure")},
			ExpectedEventRejections: map[string]string{m("event"): m("expected rejection")},
			Judge: func(report.Observed) *report.Judgement {
				return &report.Judgement{Rule: m("expectation rule"), Failed: []string{m("expected failure")}, Findings: []string{m("expected finding")}, Passing: []string{m("must pass")}, Problems: []string{m("problem")}}
			},
		}
	}
	poisoned := func(raw []byte) ([]byte, map[string]any) {
		tree, err := canon.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		tree = poison(tree, marks, keys)
		doc, err := canon.Upstream(tree)
		if err != nil {
			t.Fatal(err)
		}
		return doc, tree.(map[string]any)
	}
	// A model-backed run with its ledger, whose strings are hostile too (its
	// binding follows the poisoned artefact), and a failing run.
	raw, led := fakeOpenAI(t)
	doc, tree := poisoned(raw)
	pe := tree["provider_execution"].(map[string]any)
	led.ChainTip = pe["execution_ledger_digest_sha256"].(string)
	led.Header.ExecutionRunID = pe["execution_run_id"].(string)
	for i := range led.Calls {
		c := &led.Calls[i]
		reason := m("terminal_reason")
		c.TerminalReason = &reason
		for j := range c.Attempts {
			a := &c.Attempts[j]
			model, stop, fault := m("response_model"), m("stop_classification"), m("fault")
			a.ResponseModel, a.ResponseStopClassification, a.Fault = &model, &stop, &fault
		}
	}
	led.Totals.MeasuredCostUSD = m("measured_cost_usd")
	failing, _ := poisoned(run(t, "V1", "trust_actor_claim"))
	var page string
	for _, in := range []struct {
		doc []byte
		led *execledger.Audit
	}{{doc, led}, {failing, nil}} {
		r, err := report.Build(artefacttest.Unchecked(t, in.doc), report.Options{Pack: pack, Ledger: in.led})
		if err != nil {
			t.Fatal(err)
		}
		if txt := r.Text(); len(txt) == 0 {
			t.Error("no text rendering")
		}
		page += checkPage(t, string(r.HTML()))
	}
	shown := map[int]bool{}
	for n := range len(marks) {
		if strings.Contains(page, escaped(n)) {
			shown[n] = true
		}
	}
	// Every field the page shows, by key: each must reach it escaped.
	for _, k := range []string{
		// identity and verdict
		"operation_id", "operation_version", "operation_type", "scenario_id", "scenario_label", "semantic_scenario_id", "agent_id", "agent_kind", "expected_terminal", "model", "status", "outcome_source",
		"engine_version", "failed_dimensions",
		// digests
		"trajectory_digest_sha256", "final_state_digest_sha256", "decisions_digest_sha256", "spec_digest_sha256", "operation_instance_id", "execution_ledger_digest_sha256", "execution_run_id", "provider", "api",
		// events and the timeline
		"event_id", "event_type", "actor_id", "verdict_code", "caused_by", "action_type", "message_fixture_id", "recipient_actor_id",
		"obligation_id", "kind", "checkpoint_id", "checkpoint_type", "assignee_actor_id", "resolution", "cycle_id", "reopened_cycle_id", "warranty_cycle_id",
		// invocations: the wake, decisions, reads, answers
		"trigger_event_id", "trigger_event_type", "trigger_event_authority", "trigger_claim_values", "rationale", "reason", "evidence_refs", "wake_on",
		"tool", "record_id", "record_version", "authority", "source", "code", "detail",
		// dimensions
		"name", "note",
		// pack and ledger
		"pack/ledger role", "pack/ledger required read", "pack/ledger expectation rule", "pack/ledger expected failure", "pack/ledger expected finding", "pack/ledger must pass", "pack/ledger problem", "pack/ledger terminal_reason", "pack/ledger response_model", "pack/ledger stop_classification", "pack/ledger fault", "pack/ledger measured_cost_usd",
	} {
		ns := keys[k]
		if len(ns) == 0 {
			t.Errorf("the fixtures have no string under %q", k)
			continue
		}
		hit := false
		for _, n := range ns {
			hit = hit || shown[n]
		}
		if !hit {
			t.Errorf("no value of %q reaches the page escaped", k)
		}
	}
}

// checkPage checks one hostile page's structure and returns it.
func checkPage(t *testing.T, page string) string {
	t.Helper()
	if strings.Count(page, "<script") != 1 || strings.Count(page, "</script>") != 1 || strings.Count(page, "<style") != 1 {
		t.Fatalf("%d <script, %d </script>, %d <style: want the page's own one each", strings.Count(page, "<script"), strings.Count(page, "</script>"), strings.Count(page, "<style"))
	}
	script := page[strings.Index(page, "<script>")+len("<script>") : strings.Index(page, "</script>")]
	if strings.ContainsAny(script, "\u2028\u2029") || strings.Contains(script, "alert(") {
		t.Error("data reached the script element")
	}
	for _, bad := range []string{"<img", "alert(0)</script>", "\"'\u2028"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
	if strings.Count(page, `http-equiv="Content-Security-Policy"`) != 1 {
		t.Error("want exactly one Content-Security-Policy")
	}
	return page
}

// TestLedgerBinding: a ledger is shown only when it is the one the artefact
// binds.
func TestLedgerBinding(t *testing.T) {
	raw, led := fakeOpenAI(t)
	r, err := report.Build(artefacttest.Read(t, raw), report.Options{Ledger: led})
	if err != nil {
		t.Fatal(err)
	}
	page := string(r.HTML())
	c := led.Calls[0]
	want := fmt.Sprintf("call %d: %d in / %d out tokens", c.CallIndex, *c.Attempts[0].InputTokens, *c.Attempts[0].OutputTokens)
	if !strings.Contains(page, want) {
		t.Errorf("page lacks %q", want)
	}
	other := *led
	other.ChainTip = strings.Repeat("0", 64)
	run := *led
	run.Header.ExecutionRunID = "exec_00000000000000000000000000000000"
	for name, tc := range map[string]struct {
		raw []byte
		led *execledger.Audit
	}{
		"another ledger":        {raw, &other},
		"another run":           {raw, &run},
		"a deterministic run":   {upstreamtest.Read(t, "artifact8-deterministic-reference-v1.json"), led},
		"an incomplete journal": {raw, &execledger.Audit{Header: led.Header, ChainTip: led.ChainTip}},
	} {
		_, err := report.Build(artefacttest.Read(t, tc.raw), report.Options{Ledger: tc.led})
		if got, _ := refusal.ClassOf(err); got != report.ErrLedgerMismatch.Class {
			t.Errorf("%s: class %q (%v), want %s", name, got, err, report.ErrLedgerMismatch.Class)
		}
	}
	// Without the ledger a model-backed page says what it cannot show.
	r, err = report.Build(artefacttest.Read(t, raw), report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.HTML()), "no execution ledger was given") {
		t.Error("a model-backed page without its ledger does not say so")
	}
}

// TestExpectations: what the scenario authors is set beside what happened,
// and coloured as an expectation or as business, not as an agent failure.
func TestExpectations(t *testing.T) {
	v2raw := run(t, "V2", "reference")
	judged := func(j func(report.Observed) *report.Judgement) report.PackLookup {
		return func(q report.PackQuery) *report.Pack {
			k := packs(q)
			k.Judge = j
			return k
		}
	}
	authored := judged(func(o report.Observed) *report.Judgement {
		return &report.Judgement{Rule: "test.authored-fault.v1", Authored: true, Failed: o.Failed, Findings: o.Findings}
	})
	r, err := report.Build(artefacttest.Read(t, v2raw), report.Options{Pack: authored})
	if err != nil {
		t.Fatal(err)
	}
	v2 := string(r.HTML())
	for _, want := range []string{
		`<td>message dispatch msg_transfer_notice → customer_1</td><td>fails (authored fault)</td>`,
		`<span class="tag auth">as authored: an expectation of the scenario, not an agent failure</span>`,
		`msg_transfer_notice → customer_1 ✗ failed, as authored`,
		`RESOLVED_REJECTED at 2031-03-07T08:30:00Z</td><td><span class="tag biz">business`,
		`approver_1: RESOLVED_REJECTED (business)`,
		`<td>terminal</td><td>transferred_to_human_ownership</td><td>transferred_to_human_ownership</td><td><span class="tag ok">as expected`,
		`<div class="banner auth">NOT RELIABLE, AS AUTHORED: failed recovery, obligations, exactly as the scenario's expectation test.authored-fault.v1 requires`,
		`not reliable, as authored (test.authored-fault.v1): exactly recovery, obligations fail`,
		`<span class="tag auth">as authored: the scenario&#39;s fault, not an agent failure</span>`,
		`<td class="res afail">FAILED, as authored</td>`,
		`REQUIRED_NOTIFICATION_UNDELIVERED (as authored)`,
	} {
		if !strings.Contains(v2, want) {
			t.Errorf("V2 page lacks %q", want)
		}
	}
	// An expectation the episode misses is not claimed as authored.
	missed := judged(func(o report.Observed) *report.Judgement {
		return &report.Judgement{Rule: "test.authored-fault.v1", Authored: true, Failed: o.Failed, Problems: []string{"finding codes differ"}}
	})
	if r, err = report.Build(artefacttest.Read(t, v2raw), report.Options{Pack: missed}); err != nil {
		t.Fatal(err)
	}
	if p := string(r.HTML()); strings.Contains(p, "AS AUTHORED") || strings.Contains(p, "FAILED, as authored") || !strings.Contains(p, `<span class="tag no">not as expected: finding codes differ</span>`) {
		t.Error("a missed expectation is shown as met")
	}
	// A negative control caught as declared is a pass of the benchmark, its
	// failures still the agent's.
	caught := judged(func(o report.Observed) *report.Judgement {
		return &report.Judgement{Rule: "test oracle, control " + o.AgentID, Failed: o.Failed, Findings: o.Findings[:1], Passing: o.Passed}
	})
	if r, err = report.Build(artefacttest.Read(t, run(t, "V1", "trust_actor_claim")), report.Options{Pack: caught}); err != nil {
		t.Fatal(err)
	}
	if p := string(r.HTML()); !strings.Contains(p, "caught, as the oracle expects") || !strings.Contains(p, "(test oracle, control trust_actor_claim): exactly authority_boundaries, action_validity, retrieval_discipline fail, with at least CLAIM_TREATED_AS_AUTHORITATIVE") || strings.Contains(p, "AS AUTHORED") || strings.Contains(p, "as authored: the scenario") {
		t.Error("a caught negative control is not shown as the oracle expects it, or is called authored")
	}
	// Without the pack, the authored fault is not claimed.
	if r, err = report.Build(artefacttest.Read(t, v2raw), report.Options{}); err != nil {
		t.Fatal(err)
	}
	if p := string(r.HTML()); strings.Contains(p, `class="tag auth"`) || strings.Contains(p, "failed, as authored") || !strings.Contains(p, "pack was not consulted") {
		t.Error("a page without the pack claims an authored expectation, or does not say the pack was not consulted")
	}
}

// TestInvocationDetail: the trust_actor_claim agent's invocation 6 cites a
// claim without the reads the pack requires; the page shows the refused
// decision, its payload, the missing reads and the wake's claim.
func TestInvocationDetail(t *testing.T) {
	r := build(t, fixture{"tac", run(t, "V1", "trust_actor_claim"), nil})
	page := string(r.HTML())
	for _, want := range []string{
		`<details class="inv bad" id="inv-6"`,
		`<b>ACT</b> <span class="code">request_payment</span>`,
		`payload <code>{&#34;amount_minor&#34;:0,&#34;currency&#34;:&#34;GBP&#34;,&#34;invoice_id&#34;:&#34;invoice_1&#34;}</code>`,
		`<span class="tag no">refused</span> <code class="miss">ACTED_ON_CLAIM_WITHOUT_RECORD</code>`,
		`<div class="code miss">✗ list_authoritative_records</div>`,
		`<b>not authoritative</b>`,
		`not read</text>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// A negative control's failures are its own: nothing is as authored.
	for _, bad := range []string{"AS AUTHORED", "FAILED, as authored", "(as authored)</text>"} {
		if strings.Contains(page, bad) {
			t.Errorf("the trust_actor_claim page says %q", bad)
		}
	}
}

// TestExpiry: a checkpoint that expired has no resolution row; it is shown
// as expired only by the rule the pack states (Options.Expiry).
func TestExpiry(t *testing.T) {
	x := domains.Default().Presentation.Expiry
	// V3's ignore_new_events lets the approval expire; its resolution row is
	// dropped, so only the accepted deadline event says so.
	tree, err := canon.Parse(run(t, "V3", "ignore_new_events"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []any
	for _, r := range tree.(map[string]any)["trajectory"].([]any) {
		m := r.(map[string]any)
		if m["record_type"] == "checkpoint_resolved" && m["resolution"] == x.Resolution {
			continue
		}
		m["index"] = int64(len(rows))
		rows = append(rows, m)
	}
	tree.(map[string]any)["trajectory"] = rows
	b, err := canon.Upstream(tree)
	if err != nil {
		t.Fatal(err)
	}
	doc := artefacttest.Unchecked(t, b)
	resolutions := func(opts report.Options) (out []string) {
		r, err := report.Build(doc, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range r.Timeline().Checkpoints {
			out = append(out, c.Resolution)
		}
		return out
	}
	with, without := resolutions(report.Options{Expiry: report.Expiry(x)}), resolutions(report.Options{})
	if !slices.Contains(with, x.Resolution) || slices.Contains(without, x.Resolution) {
		t.Errorf("resolutions with the pack's expiry rule %v, without %v: want %s only with it", with, without, x.Resolution)
	}
}
