package report

// pageTemplate is the page. The stylesheet and the script are spliced in as
// literal template text (never as data), so their bytes are the ones the
// Content-Security-Policy hashes.
var pageTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>` + pageStyle + `</style>
</head>
<body>
<h1>{{.Heading}}</h1>
<div class="muted">{{.Label}}</div>
{{if .Carried}}<div class="banner auth">CARRIED, NOT RE-DERIVED: this build did not re-grade this record, so the verdict and these fields are shown as the record states them, unverified: {{range $i, $c := .Carried}}{{if $i}}; {{end}}{{$c}}{{end}}</div>
{{end}}{{if .Reliable}}<div class="banner ok">RELIABLE: legitimate completion, all dimensions hold</div>
{{else if .AsAuthored}}<div class="banner auth">NOT RELIABLE, AS AUTHORED: failed {{.Failed}}, exactly as the scenario's expectation {{.AuthoredID}} requires of a correct agent</div>
{{else}}<div class="banner no">NOT RELIABLE: failed {{.Failed}}</div>
{{end}}<table class="id">
{{range .Identity}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>

<h2>Expected beside observed</h2>
{{if .ExpectNote}}<p class="muted">{{.ExpectNote}}</p>
{{end}}<table class="expect">
<colgroup><col class="e-what"><col class="e-exp"><col class="e-obs"><col class="e-read"></colgroup>
<tr><th>what</th><th>expected (authored)</th><th>observed</th><th>reading</th></tr>
{{range .Expect}}<tr><td>{{.What}}</td><td>{{.Expected}}</td><td>{{.Observed}}</td><td><span class="tag {{.Class}}">{{.Reading}}</span></td></tr>
{{end}}</table>

<h2>Timeline (simulated time, UTC)</h2>
<div class="toolbar">
<input type="search" id="q" placeholder="search ( / ): id, type, tool, code…" title="matches marks and invocations; a page address ending #q=TEXT opens with TEXT searched" aria-label="search the timeline and the invocations">
<span id="hits" class="muted"></span>
<span>show:
<label><input type="checkbox" data-k="event" checked> events</label>
<label><input type="checkbox" data-k="agent" checked> agent</label>
<label><input type="checkbox" data-k="read" checked> reads</label>
<label><input type="checkbox" data-k="obligation" checked> obligations</label>
<label><input type="checkbox" data-k="human" checked> human / close</label>
<label><input type="checkbox" data-k="finding" checked> findings</label></span>
<span><button type="button" id="zout" aria-label="zoom out">−</button> <button type="button" id="zin" aria-label="zoom in">+</button> <button type="button" id="zfit">fit</button> <span id="zl" class="muted">zoom 2/{{len .Charts}}</span></span>
</div>
<div class="legend">
<span><b class="g-exo">●</b> exogenous event (authored, fixed time)</span>
<span><b class="g-rea">●</b> authored reaction</span>
<span><b class="g-tim">●</b> engine timer</span>
<span><b class="g-rea">○</b> audit only (does not wake)</span>
<span><b class="g-bad">✗</b> refused / failed (agent or unexpected)</span>
<span><b class="g-aut">✗</b> as authored (expected fault)</span>
<span><b class="g-post">●</b> after the terminal</span>
<span><b class="g-agt">◆</b> invocation (red: a proposal refused)</span>
<span><b class="g-rea">▲</b> accepted proposal</span>
<span><b class="g-rea">□</b> message delivered</span>
<span><b class="g-read">●</b> read served <b class="g-bad">○</b> required read not fresh</span>
<span><span class="sw s-wait"></span>WAIT</span>
<span><span class="sw s-ok"></span>discharged / finalized</span>
<span><span class="sw s-biz"></span>human decision / reopen (business)</span>
<span><span class="sw s-can"></span>cancelled</span>
<span><span class="sw s-open"></span>open at the end</span>
<span><span class="sw s-bad"></span>breached</span>
<span><b>▼</b> due / deadline / window end</span>
<span><b class="g-bad">■</b> evaluator finding</span>
<span><b class="g-ok">┆</b> terminal</span>
</div>
<div id="charts">
{{range .Charts}}<div class="zoom" data-total="{{n (add .LabelW .PlotW)}}"{{if ne .Zoom 1}} hidden{{end}}>
<div class="lanes"><svg xmlns="http://www.w3.org/2000/svg" width="{{n .LabelW}}" height="{{n .Height}}" viewBox="0 0 {{n .LabelW}} {{n .Height}}" font-size="11">
{{$w := .LabelW}}{{range .Lanes}}{{if .Stripe}}<rect x="0" y="{{n .Y}}" width="{{n $w}}" height="{{n .H}}" fill="#f6f8fa"/>{{end}}<g><title>{{.Title}}</title>{{range .Lines}}<text x="{{n .X}}" y="{{n .Y}}"{{if .Bold}} font-weight="bold"{{end}}>{{.Text}}</text>{{end}}</g>
{{end}}</svg></div>
<div class="plot"><svg xmlns="http://www.w3.org/2000/svg" width="{{n .PlotW}}" height="{{n .Height}}" viewBox="0 0 {{n .PlotW}} {{n .Height}}" font-size="11" role="img">
{{$pw := .PlotW}}{{range .Lanes}}{{if .Stripe}}<rect x="0" y="{{n .Y}}" width="{{n $pw}}" height="{{n .H}}" fill="#f6f8fa"/>
{{end}}{{end}}{{range .Grid}}{{template "shape" .}}{{end}}
{{range .Axis}}{{template "label" .}}{{end}}
{{range .Empty}}{{template "label" .}}{{end}}
{{range .Marks}}<g class="m k-{{.Kind}}" data-s="{{.Search}}"{{if .Inv}} data-inv="{{.Inv}}"{{end}}><title>{{.Title}}</title>{{range .Shapes}}{{template "shape" .}}{{end}}{{with .Label}}{{template "label" .}}{{end}}</g>
{{end}}</svg></div>
</div>
{{end}}</div>

<h2>Invocations</h2>
<p class="muted">{{.CallsNote}} Each invocation shows what woke the agent, every decision with the reads it was served and the reads the pack requires, and the engine's answer. <label><input type="checkbox" id="bad"> only invocations with a refusal or a finding</label></p>
{{range .Invocations}}<details class="inv{{if .Bad}} bad{{end}}" id="inv-{{.Index}}" data-s="{{.Search}}"{{if .Open}} open{{end}}>
<summary><b>#{{.Index}}</b> at {{.AtText}} · woken by {{if .TriggerEventID}}{{.TriggerEventID}} {{.TriggerEventType}}{{else}}nothing{{end}} · {{.Summary}}{{if .Refused}} · <span class="tag no">{{.Refused}} refused</span>{{end}}{{if .Findings}} · <span class="tag no">{{.Findings}} finding(s) at this instant</span>{{end}}</summary>
<div class="ib">
<div class="obs"><b>Observed at the wake:</b> {{if .TriggerEventID}}event {{.TriggerEventID}} ({{.TriggerEventType}}), authority {{.TriggerAuthority}}, {{if .TriggerAuthoritative}}authoritative{{else}}<b>not authoritative</b> (a claim, to be checked against a record){{end}}{{if .TriggerClaims}}; it asserts {{join .TriggerClaims ", "}}{{end}}{{if .TriggerPayload}}; payload <code>{{.TriggerPayload}}</code>{{end}}{{else}}no triggering event{{end}}.</div>
{{if .FindingList}}<div class="obs"><b>Evaluator findings at this instant:</b> {{range $i, $f := .FindingList}}{{if $i}}, {{end}}<span class="code miss">{{$f}}</span>{{end}}</div>
{{end}}
<table>
<colgroup><col class="c-turn"><col class="c-dec"><col class="c-reads"><col class="c-ans">{{if $.Model}}<col class="c-call">{{end}}</colgroup>
<tr><th>turn</th><th>decision</th><th>reads served · required</th><th>answer</th>{{if $.Model}}<th>model call</th>{{end}}</tr>
{{range .Turns}}<tr>
<td>{{.Index}}</td>
<td><b>{{.Kind}}</b>{{if .Action}} <span class="code">{{.Action}}</span>{{end}}
{{if .Payload}}<br>payload <code>{{.Payload}}</code>{{end}}
{{if .Evidence}}<br>cites <code>{{join .Evidence ", "}}</code>{{end}}
{{if .WakeOn}}<br>wake on <code>{{join .WakeOn ", "}}</code>{{end}}
{{if .Reason}}<br><span class="muted">reason:</span> {{.Reason}}{{end}}
{{if .Rationale}}<br><span class="muted">rationale:</span> {{.Rationale}}{{end}}</td>
<td>{{range .Reads}}<details class="rd"><summary><span class="code">{{.Tool}}</span> <span class="muted">{{.Authority}}{{if not .OK}}</span> <span class="miss">not ok{{end}}</span></summary><div class="muted">{{.RecordID}} version {{.Version}} from {{.Source}}</div><pre>{{.Records}}</pre></details>{{end}}
{{if .Proposes}}{{if .Required}}<div>required, fresh at this decision:</div>{{$t := .}}{{range .Required}}<div class="code {{if $t.IsFresh .}}have{{else}}miss{{end}}">{{if $t.IsFresh .}}✓{{else}}✗{{end}} {{.}}</div>{{end}}{{else if not $.Pack}}<div class="muted">required reads: pack not consulted</div>{{end}}<div class="muted">fresh: {{if .Fresh}}{{join .Fresh ", "}}{{else}}none{{end}}</div>{{end}}</td>
<td>{{if eq .Result "refused"}}<span class="tag no">refused</span> <code class="miss">{{.Code}}</code>{{if .Detail}}<br>{{.Detail}}{{end}}{{else if eq .Result "accepted"}}<span class="tag ok">accepted</span>{{if and .Code (ne .Code "ACCEPTED")}} <code>{{.Code}}</code>{{end}}{{else if .Result}}{{.Result}}{{else}}<span class="muted">no answer row</span>{{end}}</td>
{{if $.Model}}<td>{{with .Call}}call {{.CallIndex}}: {{.InputTokens}} in / {{.OutputTokens}} out tokens{{if .CostUSD}}, {{.CostUSD}} USD{{end}}{{if .Latency}}, {{.Latency}}{{end}}<br>{{.Status}}{{if .HTTPStatus}}, HTTP {{.HTTPStatus}}{{end}}{{if .Fault}}, <span class="miss">fault {{.Fault}}</span>{{end}}{{if .Model}}<br><span class="muted">model {{.Model}}, {{.Attempts}} attempt(s)</span>{{end}}{{else}}<span class="muted">not given</span>{{end}}</td>{{end}}
</tr>
{{end}}</table>
</div>
</details>
{{end}}
<h2>Dimensions</h2>
<table>
<tr><th>#</th><th>dimension</th><th>result</th><th>counts</th><th>findings</th></tr>
{{range .Dimensions}}<tr{{if .Authored}} class="authfail"{{else if not .OK}} class="fail"{{end}}><td>{{.N}}</td><td class="code">{{.Name}}</td>{{if .OK}}<td class="res pass">OK</td>{{else if .Authored}}<td class="res afail">FAILED, as authored</td>{{else}}<td class="res fail">FAILED</td>{{end}}<td class="code">{{.Counts}}</td><td>{{if not .Findings}}{{if .Note}}<span class="muted">{{.Note}}</span>{{end}}{{end}}{{range $i, $f := .Findings}}{{if $i}}<br>
{{end}}<span class="code">{{$f.Code}}</span>: {{$f.Detail}} <span class="muted">({{if $f.At}}{{$f.Instant}}{{else}}no instant{{end}})</span>{{end}}</td></tr>
{{end}}</table>

<h2>Digests</h2>
<table class="dig">
{{range .Digests}}<tr><td>{{index . 0}}</td><td>{{index . 1}}</td></tr>
{{end}}</table>
<p class="muted">{{.Footnote}}</p>
<script>` + pageScript + `</script>
</body>
</html>
{{define "shape"}}{{if eq .K "c"}}<circle cx="{{n .X}}" cy="{{n .Y}}" r="{{n .R}}" fill="{{.Fill}}"{{if .Stroke}} stroke="{{.Stroke}}" stroke-width="{{n .SW}}"{{end}}/>{{else if eq .K "r"}}<rect x="{{n .X}}" y="{{n .Y}}" width="{{n .W}}" height="{{n .H}}"{{if .R}} rx="{{n .R}}"{{end}} fill="{{.Fill}}"{{if .Stroke}} stroke="{{.Stroke}}" stroke-width="{{n .SW}}"{{end}}{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}{{if .Rot}} transform="rotate(45 {{n (add .X 3.5)}} {{n (add .Y 3.5)}})"{{end}}/>{{else if eq .K "p"}}<path d="{{.D}}" fill="{{if .Fill}}{{.Fill}}{{else}}none{{end}}"{{if .Stroke}} stroke="{{.Stroke}}" stroke-width="{{n .SW}}"{{end}}/>{{else if eq .K "l"}}<line x1="{{n .X}}" y1="{{n .Y}}" x2="{{n .X2}}" y2="{{n .Y2}}" stroke="{{.Stroke}}" stroke-width="{{n .SW}}"{{if .Dash}} stroke-dasharray="{{.Dash}}"{{end}}/>{{end}}{{end}}
{{define "label"}}<text class="lb" x="{{n .X}}" y="{{n .Y}}"{{if ne .Anchor "start"}} text-anchor="{{.Anchor}}"{{end}}{{if .Fill}} fill="{{.Fill}}"{{end}}{{if .Bold}} font-weight="bold"{{end}}{{if .Italic}} font-style="italic"{{end}}{{if ne .Px 11.0}} font-size="{{n .Px}}"{{end}}>{{.Text}}</text>{{end}}`
