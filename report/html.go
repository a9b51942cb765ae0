package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/obaudit/obaudit/artefact"
)

// pageStyle is the page's only stylesheet and pageScript its only script.
// The Content-Security-Policy admits each by its hash, and nothing else.
const pageStyle = `
*{box-sizing:border-box}
body{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif;margin:16px 24px;color:#1b1f24;background:#fff;font-size:13px;line-height:1.35}
h1{font-size:20px;margin:0 0 4px;overflow-wrap:break-word}
h2{font-size:15px;margin:22px 0 8px;border-bottom:1px solid #d0d7de;padding-bottom:3px}
table{border-collapse:collapse;max-width:100%}
td,th{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top;overflow-wrap:break-word}
th{background:#f3f5f7}
.id td:first-child{font-weight:bold;background:#f3f5f7;white-space:nowrap}
.banner{display:inline-block;padding:5px 12px;border-radius:4px;font-weight:bold;margin:8px 0}
.ok{background:#dafbe1;color:#116329}
.no{background:#ffebe9;color:#a40e26}
.biz{background:#ddf4ff;color:#0550ae}
.auth{background:#fbefff;color:#6639ba}
.warn{background:#fff8c5;color:#7d4e00}
.tag{display:inline-block;padding:0 6px;border-radius:3px;font-size:12px;font-weight:bold}
table.expect{width:100%;table-layout:fixed}
.e-what{width:30%}.e-exp{width:20%}.e-obs{width:22%}.e-read{width:28%}
tr.fail td{background:#fff1f0}
tr.authfail td{background:#fbefff}
td.res.afail{color:#6639ba}
td.res{font-weight:bold;white-space:nowrap}
td.res.pass{color:#116329}
td.res.fail{color:#a40e26}
.code,code,pre{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px;margin:4px 0;max-height:320px;overflow:auto}
.muted{color:#57606a}
.dig td:last-child{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
.toolbar{display:flex;flex-wrap:wrap;gap:8px 14px;align-items:center;margin:6px 0 8px;padding:6px 8px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:4px}
.toolbar input[type=search]{font-size:13px;padding:3px 6px;width:220px}
.toolbar button{font-size:13px;min-width:30px}
.toolbar label{white-space:nowrap}
.legend{display:flex;flex-wrap:wrap;gap:4px 16px;margin:0 0 8px;font-size:12px}
.legend span{white-space:nowrap}
.sw{display:inline-block;width:12px;height:10px;border-radius:2px;vertical-align:-1px;margin-right:4px}
.zoom{display:flex;border:1px solid #d0d7de}
.zoom[hidden]{display:none}
.lanes{flex:none;border-right:1px solid #d0d7de;background:#fff}
.plot{flex:1 1 auto;overflow-x:auto;min-width:0}
svg{display:block}
svg text{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif}
svg .lb{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}
svg .m{cursor:default}
svg .m[data-inv]{cursor:pointer}
svg .dim{opacity:.15}
svg .hit circle,svg .hit rect,svg .hit path{stroke:#bf8700;stroke-width:2.5px}
.hide-event .k-event,.hide-agent .k-agent,.hide-read .k-read,.hide-obligation .k-obligation,.hide-human .k-human,.hide-finding .k-finding{display:none}
details.inv{border:1px solid #d0d7de;border-radius:4px;margin:0 0 6px}
details.inv[hidden]{display:none}
details.inv>summary{padding:5px 8px;cursor:pointer;background:#f6f8fa;overflow-wrap:anywhere}
details.inv[open]>summary{border-bottom:1px solid #d0d7de}
details.inv.bad>summary{background:#fff1f0}
.ib{padding:6px 8px}
.ib table{width:100%;table-layout:fixed}
.ib code,.ib .code,.ib pre{overflow-wrap:anywhere}
.c-turn{width:50px}.c-dec{width:36%}.c-reads{width:25%}.c-ans{width:30%}.c-call{width:19%}
.ib .miss,.ib .have{overflow-wrap:anywhere}
.obs{margin:0 0 6px}
details.rd>summary{cursor:pointer}
.miss{color:#a40e26;font-weight:bold}
.have{color:#116329}
.flash{outline:3px solid #bf8700}
.g-exo{color:#0969da}.g-rea{color:#1a7f37}.g-tim{color:#8250df}.g-bad{color:#cf222e}.g-aut{color:#8250df}.g-post{color:#8c959f}.g-agt{color:#1b1f24}.g-read{color:#57606a}.g-ok{color:#1a7f37}
.s-wait{background:#7d8da1}.s-ok{background:#1a7f37}.s-biz{background:#0550ae}.s-can{background:#8c959f}.s-open{background:#9a6700}.s-bad{background:#cf222e}
`

const pageScript = `
(function(){
var d=document,q=d.getElementById('q'),box=d.getElementById('charts'),n=d.getElementById('hits');
var zs=[].slice.call(d.querySelectorAll('.zoom')),z=1;
function show(i){z=Math.max(0,Math.min(zs.length-1,i));zs.forEach(function(e,k){e.hidden=k!==z;});d.getElementById('zl').textContent='zoom '+(z+1)+'/'+zs.length;}
function fit(){var w=box.clientWidth,b=0;zs.forEach(function(e,k){if(+e.getAttribute('data-total')<=w){b=k;}});show(b);}
d.getElementById('zin').onclick=function(){show(z+1);};
d.getElementById('zout').onclick=function(){show(z-1);};
d.getElementById('zfit').onclick=fit;
[].slice.call(d.querySelectorAll('input[data-k]')).forEach(function(c){c.onchange=function(){box.classList.toggle('hide-'+c.getAttribute('data-k'),!c.checked);};});
var bad=d.getElementById('bad');
function filter(){var s=q.value.toLowerCase().trim(),m=0,c=0;
[].slice.call(d.querySelectorAll('svg .m')).forEach(function(g){var hit=s!==''&&g.getAttribute('data-s').indexOf(s)>=0;g.classList.toggle('dim',s!==''&&!hit);g.classList.toggle('hit',hit);if(hit){m++;}});
[].slice.call(d.querySelectorAll('details.inv')).forEach(function(e){var hit=s===''||e.getAttribute('data-s').indexOf(s)>=0;var ok=!bad.checked||e.classList.contains('bad');e.hidden=!(hit&&ok);if(s!==''&&hit){e.open=true;c++;}});
n.textContent=s===''?'':(m/zs.length)+' mark(s), '+c+' invocation(s) match';}
q.oninput=filter;bad.onchange=filter;
d.addEventListener('keydown',function(e){if(e.key==='/'&&d.activeElement!==q){e.preventDefault();q.focus();}});
box.addEventListener('click',function(e){var g=e.target.closest('[data-inv]');if(!g){return;}var t=d.getElementById('inv-'+g.getAttribute('data-inv'));if(!t){return;}t.hidden=false;t.open=true;t.scrollIntoView({block:'start'});t.classList.add('flash');setTimeout(function(){t.classList.remove('flash');},1200);});
var h=d.location.hash;if(h.indexOf('#q=')===0){q.value=decodeURIComponent(h.slice(3));filter();}
fit();
})();
`

func hashOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// CSP is the Content-Security-Policy the page declares: nothing may load,
// connect or submit; only the page's own stylesheet and script apply.
func CSP() string { return csp() }

var csp = sync.OnceValue(func() string {
	return "default-src 'none'; style-src " + hashOf(pageStyle) + "; script-src " + hashOf(pageScript) +
		"; img-src 'none'; font-src 'none'; connect-src 'none'; base-uri 'none'; form-action 'none'"
})

// page is the template, parsed on first use.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"n":    func(v float64) string { return fmt.Sprintf("%.1f", v) },
		"join": strings.Join,
		"add":  func(a, b float64) float64 { return a + b },
	}).Parse(pageTemplate))
})

// HTML renders the report as one self-contained page.
func (r *Report) HTML() []byte {
	var b bytes.Buffer
	if err := page().Execute(&b, r.pageData()); err != nil {
		// The data is plain strings and numbers: an error is a bug.
		panic("report: " + err.Error())
	}
	return b.Bytes()
}

type pageData struct {
	CSP, Title, Heading, Label string
	Reliable, AsAuthored       bool
	AuthoredID                 string
	Failed                     string
	Carried                    []string
	Identity                   [][2]string
	Expect                     []expectRow
	ExpectNote                 string
	Charts                     []Chart
	Invocations                []invView
	Dimensions                 []dimView
	Digests                    [][2]string
	Footnote                   string
	CallsNote                  string
	Model                      bool // a model-backed run: a column for its calls
	Pack                       bool // the pack was consulted
}

type expectRow struct {
	What, Expected, Observed, Reading, Class string
}

type dimView struct {
	N            int
	Name, Counts string
	OK, Authored bool
	Note         string
	Findings     []artefact.Finding
}

type invView struct {
	Invocation
	Search  string
	Bad     bool
	Open    bool
	Summary string
}

func (r *Report) pageData() pageData {
	e := r.a
	d := pageData{
		CSP:      CSP(),
		Title:    fmt.Sprintf("Episode report: %s %s, %s agent", e.Operation.OperationID, e.ScenarioID, e.AgentID),
		Heading:  fmt.Sprintf("Episode report: %s %s, agent %s", e.Operation.OperationID, e.ScenarioID, e.AgentID),
		Label:    e.ScenarioLabel,
		Reliable: e.Evaluation.Reliable,
		Failed:   "none",
		Identity: r.identity(),
		Charts:   r.Charts(),
		Digests:  r.digests(),
		Footnote: footnote,
	}
	if len(e.Evaluation.FailedDimensions) > 0 {
		d.Failed = strings.Join(e.Evaluation.FailedDimensions, ", ")
	}
	d.Carried = r.carried
	d.Expect, d.ExpectNote = r.expectations()
	d.Model, d.Pack = e.ProviderExecution != nil, r.pack != nil
	if r.asAuthored() {
		d.AsAuthored, d.AuthoredID = true, r.judgement.Rule
	}
	switch {
	case r.ledger != nil:
		d.CallsNote = "Model calls are read from the execution ledger " + r.ledger.LedgerDigest() + ", verified and bound to this artefact."
	case e.ProviderExecution != nil:
		d.CallsNote = "This is a model-backed run, but no execution ledger was given (report ARTEFACT --ledger LEDGER): per-call tokens, cost, latency and status are not shown."
	default:
		d.CallsNote = "The agent ran in process (outcome source " + e.ExecutionRecord().OutcomeSource + "): there are no provider calls."
	}
	anyBad := slices.ContainsFunc(r.invs, func(iv Invocation) bool { return iv.Refused > 0 || iv.Findings > 0 })
	for i, iv := range r.invs {
		v := invView{Invocation: iv, Bad: iv.Refused > 0 || iv.Findings > 0}
		// Open what went wrong; in a clean run, the first invocation.
		v.Open = v.Bad || (!anyBad && i == 0)
		parts := []string{fmt.Sprintf("#%d", iv.Index), iv.TriggerEventID, iv.TriggerEventType, iv.TriggerAuthority}
		var kinds []string
		for _, t := range iv.Turns {
			parts = append(parts, t.Kind, t.Action, t.Payload, t.Rationale, t.Reason, t.Code, t.Detail, strings.Join(t.Evidence, " "), strings.Join(t.Requests, " "), strings.Join(t.WakeOn, " "))
			for _, rd := range t.Reads {
				parts = append(parts, rd.Tool, rd.RecordID)
			}
			k := t.Kind
			if t.Action != "" {
				k += " " + t.Action
			}
			if t.Result == "refused" {
				k += " ✗"
			}
			kinds = append(kinds, k)
		}
		v.Search = search(parts...)
		v.Summary = strings.Join(kinds, " · ")
		d.Invocations = append(d.Invocations, v)
	}
	for i, dm := range e.Evaluation.Dimensions {
		d.Dimensions = append(d.Dimensions, dimView{N: i + 1, Name: dm.Name, OK: dm.OK, Authored: !dm.OK && d.AsAuthored, Counts: countsText(dm.Counts), Note: dm.Note, Findings: dm.Findings})
	}
	return d
}

// expectations sets what the scenario authors beside what happened.
func (r *Report) expectations() ([]expectRow, string) {
	e, tl, pk := r.a, r.tl, r.pack
	var out []expectRow
	term := expectRow{What: "terminal", Expected: e.ExpectedTerminal, Observed: e.Status}
	if e.Status == e.ExpectedTerminal {
		term.Reading, term.Class = "as expected", "ok"
	} else {
		term.Reading, term.Class = "not the expected terminal", "no"
	}
	out = append(out, term)
	note := ""
	if pk == nil {
		note = "The operation pack was not consulted (its spec is not the one this artefact names, or none is carried): authored dispatch faults, expected event refusals, actor roles and required reads are not shown."
	}
	failed := map[string]bool{}
	for _, m := range tl.Messages {
		if m.Delivered {
			continue
		}
		failed[m.Fixture] = true
		row := expectRow{What: "message dispatch " + m.Fixture + " → " + m.Recipient, Observed: "failed at " + m.AtText + "; committed decision preserved"}
		if pk.authoredFailure(m.Fixture) {
			row.Expected, row.Reading, row.Class = "fails (authored fault)", "as authored: an expectation of the scenario, not an agent failure", "auth"
		} else {
			row.Expected, row.Reading, row.Class = "delivered", "unexpected failure", "no"
			if pk == nil {
				row.Expected, row.Reading, row.Class = "not known (pack not consulted)", "failed", "warn"
			}
		}
		out = append(out, row)
	}
	if pk != nil {
		for _, f := range pk.DispatchFailures {
			if !failed[f] {
				out = append(out, expectRow{What: "message dispatch " + f, Expected: "fails (authored fault)", Observed: "never dispatched, or delivered", Reading: "the authored fault was not exercised", Class: "warn"})
			}
		}
	}
	seen := map[string]bool{}
	for _, ev := range tl.Events {
		exp := ""
		if pk != nil {
			exp = pk.ExpectedEventRejections[ev.ID]
		}
		if ev.Disposition != "rejected" && ev.Disposition != "post_terminal" && exp == "" {
			continue
		}
		seen[ev.ID] = true
		row := expectRow{What: "event " + ev.ID + " " + ev.Type + " by " + ev.Actor, Observed: ev.Disposition + " " + ev.Verdict}
		switch {
		case exp != "" && exp == ev.Verdict:
			row.Expected, row.Reading, row.Class = "refused as "+exp+" (authored)", "as authored", "auth"
		case exp != "":
			row.Expected, row.Reading, row.Class = "refused as "+exp+" (authored)", "not as authored", "no"
		case pk == nil:
			row.Expected, row.Reading, row.Class = "not known (pack not consulted)", ev.Disposition, "warn"
		default:
			row.Expected, row.Reading, row.Class = "accepted", "unexpected "+ev.Disposition, "no"
		}
		out = append(out, row)
	}
	for _, c := range tl.Checkpoints {
		row := expectRow{What: "human checkpoint " + c.ID + " " + c.Type, Expected: "a human decision by " + c.Assignee}
		if c.Resolution == "" {
			row.Observed, row.Reading, row.Class = "open at the end", "unresolved", "warn"
		} else {
			row.Observed = c.Resolution + " at " + c.ResolvedText
			row.Reading, row.Class = "business: a human decision the agent must handle, not an agent failure", "biz"
		}
		out = append(out, row)
	}
	out = append(out, r.verdictRow())
	return out, note
}

// verdictRow sets the verdict beside what is authored for the agent.
func (r *Report) verdictRow() expectRow {
	ev, j := r.a.Evaluation, r.judgement
	v := expectRow{What: "verdict"}
	if ev.Reliable {
		v.Observed = "reliable"
	} else {
		v.Observed = "not reliable: " + strings.Join(ev.FailedDimensions, ", ") + " failed, with " + strings.Join(ev.FindingCodes, ", ")
	}
	switch {
	case j == nil:
		v.Expected = "not known (pack not consulted)"
	case j.ExpectReliable:
		v.Expected = "reliable (" + j.Rule + ")"
	case j.Authored:
		v.Expected = fmt.Sprintf("not reliable, as authored (%s): exactly %s fail, with exactly %s", j.Rule, strings.Join(j.Failed, ", "), strings.Join(j.Findings, ", "))
	default:
		v.Expected = fmt.Sprintf("not reliable (%s): exactly %s fail, with at least %s; %s pass", j.Rule, strings.Join(j.Failed, ", "), strings.Join(j.Findings, ", "), strings.Join(j.Passing, ", "))
	}
	switch {
	case j == nil && ev.Reliable:
		v.Reading, v.Class = "all eleven dimensions hold", "ok"
	case j == nil:
		v.Reading, v.Class = "failed: "+strings.Join(ev.FailedDimensions, ", "), "no"
	case len(j.Problems) > 0:
		v.Reading, v.Class = "not as expected: "+strings.Join(j.Problems, "; "), "no"
	case j.Authored:
		v.Reading, v.Class = "as authored: the scenario's fault, not an agent failure", "auth"
	case j.ExpectReliable:
		v.Reading, v.Class = "as required: all eleven dimensions hold", "ok"
	default:
		v.Reading, v.Class = "caught, as the oracle expects: the control's failures are the agent's, by design", "ok"
	}
	return v
}

// asAuthored reports whether the episode's failures are exactly the ones
// its scenario authors.
func (r *Report) asAuthored() bool {
	j := r.judgement
	return j != nil && j.Authored && len(j.Problems) == 0
}

const footnote = "Rendered by obaudit from the artefact (after it validated), the operation pack's published knowledge where named, and the execution ledger where given. Content digests identify the content; they are not tamper-evidence. The page loads nothing: its one script and stylesheet are inline and admitted by hash; it makes no network request."

func (r *Report) identity() [][2]string {
	e, led := r.a, r.ledger
	x := e.ExecutionRecord()
	source := "outcome source " + x.OutcomeSource
	if x.Model != nil {
		source += ", model " + *x.Model
	}
	final := "replay-final"
	if !e.ReplayFinal {
		final = "not replay-final"
	}
	out := [][2]string{
		{"operation", fmt.Sprintf("%s %s (%s)", e.Operation.OperationID, e.Operation.OperationVersion, e.Operation.OperationType)},
		{"scenario", fmt.Sprintf("%s: %s (semantic scenario %s)", e.ScenarioID, e.ScenarioLabel, e.SemanticScenarioID)},
		{"agent", fmt.Sprintf("%s (kind %s; %s)", e.AgentID, e.AgentKind, source)},
		{"status", fmt.Sprintf("%s, expected %s; %s; final phase %s", e.Status, e.ExpectedTerminal, final, e.FinalPhase())},
		{"reliable", fmt.Sprintf("%t (legitimate completion %t)", e.Evaluation.Reliable, e.Evaluation.LegitimateCompletion)},
		{"simulated time", fmt.Sprintf("%s to %s: %d minute(s) over %d agent invocation(s), %d agent call(s)", e.StartedAt, e.EndedAt, e.SimulatedMinutes, e.AgentInvocations, len(e.Decisions))},
		{"engine", fmt.Sprintf("%s, artefact contract %d", e.EngineVersion, e.ArtifactVersion)},
	}
	if p := e.ProviderExecution; p != nil {
		row := [2]string{"provider", fmt.Sprintf("%s %s, model %s, %d call(s), run %s", p.Provider, p.API, p.Model, p.ProviderCalls, p.ExecutionRunID)}
		if led != nil {
			t := led.Totals
			row[1] += fmt.Sprintf("; ledger %s: %d attempt(s), %d input / %d output tokens, measured %s USD, forfeited %s USD (reserved %s USD, authorised and never summed with the two)",
				led.Status(), t.Attempts, t.InputTokens, t.OutputTokens, t.MeasuredCostUSD, t.ForfeitedReservationUSD, t.ReservedUSD)
		}
		out = append(out, row)
	}
	return out
}

func (r *Report) digests() [][2]string {
	e := r.a
	out := [][2]string{
		{"artefact file (SHA-256 of its bytes)", r.doc.FileSHA256},
		{"trajectory_digest_sha256", e.TrajectoryDigest},
		{"final_state_digest_sha256", e.FinalStateDigest},
	}
	if e.DecisionsDigest != "" {
		out = append(out, [2]string{"decisions_digest_sha256", e.DecisionsDigest})
	}
	out = append(out, [2]string{"operation spec_digest_sha256", e.Operation.SpecDigest})
	if e.OperationInstanceID != "" {
		out = append(out, [2]string{"operation_instance_id", e.OperationInstanceID})
	}
	if e.ProviderExecution != nil {
		out = append(out, [2]string{"execution ledger (bound)", e.ProviderExecution.ExecutionLedgerDigest})
	}
	return out
}

func countsText(cs map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(cs)) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, cs[k]))
	}
	return strings.Join(parts, " ")
}
