package report

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/obaudit/obaudit/internal/episodeview"
)

// pageStyle is the page's only stylesheet. The Content-Security-Policy admits
// it by its hash, and nothing else.
const pageStyle = `
body{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif;margin:18px 24px;color:#1b1f24;background:#fff;font-size:13px}
h1{font-size:20px;margin:0 0 6px}
h2{font-size:15px;margin:22px 0 6px;border-bottom:1px solid #d0d7de;padding-bottom:3px}
table{border-collapse:collapse}
td,th{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f3f5f7}
.id td:first-child{font-weight:bold;background:#f3f5f7;white-space:nowrap}
.banner{display:inline-block;padding:5px 12px;border-radius:4px;font-weight:bold;margin:8px 0}
.ok{background:#dafbe1;color:#116329}
.no{background:#ffebe9;color:#a40e26}
tr.fail td{background:#fff1f0}
td.res{font-weight:bold;white-space:nowrap}
td.res.pass{color:#116329}
td.res.fail{color:#a40e26}
.code{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
.muted{color:#57606a}
.dig td:last-child{font-family:"DejaVu Sans Mono",monospace;font-size:12px}
svg{display:block;max-width:100%;height:auto;border:1px solid #d0d7de}
svg text{font-family:"DejaVu Sans",Arial,Helvetica,sans-serif}
`

// styleHash is the CSP source expression for pageStyle.
var styleHash = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

// CSP is the Content-Security-Policy the page declares: nothing may load,
// connect, run or submit; only the page's own stylesheet applies.
var CSP = "default-src 'none'; style-src " + styleHash + "; img-src 'none'; font-src 'none'; connect-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"

// Geometry of the timeline SVG.
const (
	svgW     = 1280.0
	plotX0   = 250.0
	plotX1   = 1255.0
	rowH     = 17.0
	laneGap  = 6.0
	headH    = 20.0
	charW    = 6.1 // estimated width of one 10px character
	axisH    = 34.0
	markerR  = 4.5
	minWidth = 3.0
	// maxLabelRunes is how much of a lane label fits left of the plot.
	maxLabelRunes = 37
)

// Colours.
const (
	cExogenous = "#0969da"
	cReactive  = "#1a7f37"
	cTimer     = "#8250df"
	cRejected  = "#cf222e"
	cPost      = "#8c959f"
	cAgent     = "#1b1f24"
	cAccepted  = "#1a7f37"
	cWait      = "#7d8da1"
	cBreach    = "#cf222e"
	cOpen      = "#d4a72c"
	cCancelled = "#afb8c1"
	cGrid      = "#eaeef2"
	cStripe    = "#f6f8fa"
)

// HTML renders the report as one self-contained page.
func (r *Report) HTML() []byte {
	e, tl := r.ep, r.tl
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", esc(CSP))
	b.WriteString("<meta name=\"referrer\" content=\"no-referrer\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(fmt.Sprintf("Episode report: %s %s, %s agent", e.Operation.ID, e.ScenarioID, e.AgentID)))
	b.WriteString("<style>" + pageStyle + "</style>\n</head>\n<body>\n")
	fmt.Fprintf(&b, "<h1>Episode report: %s %s, agent %s</h1>\n", esc(e.Operation.ID), esc(e.ScenarioID), esc(e.AgentID))
	fmt.Fprintf(&b, "<div class=\"muted\">%s</div>\n", esc(e.ScenarioLabel))
	if e.Evaluation.Reliable {
		b.WriteString("<div class=\"banner ok\">RELIABLE: legitimate completion, all dimensions hold</div>\n")
	} else {
		failed := "none"
		if len(e.Evaluation.FailedDimensions) > 0 {
			failed = strings.Join(e.Evaluation.FailedDimensions, ", ")
		}
		fmt.Fprintf(&b, "<div class=\"banner no\">NOT RELIABLE: failed %s</div>\n", esc(failed))
	}
	b.WriteString("<table class=\"id\">\n")
	for _, kv := range identity(e) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>\n", esc(kv[0]), esc(kv[1]))
	}
	b.WriteString("</table>\n")

	b.WriteString("<h2>Timeline (simulated time, UTC)</h2>\n")
	b.WriteString(svg(e, tl))

	b.WriteString("<h2>Dimensions</h2>\n<table>\n<tr><th>#</th><th>dimension</th><th>result</th><th>counts</th><th>findings</th></tr>\n")
	for i, d := range e.Evaluation.Dimensions {
		cls, res := "", "OK"
		if !d.OK {
			cls, res = " class=\"fail\"", "FAILED"
		}
		resCls := "res pass"
		if !d.OK {
			resCls = "res fail"
		}
		fmt.Fprintf(&b, "<tr%s><td>%d</td><td class=\"code\">%s</td><td class=\"%s\">%s</td><td class=\"code\">%s</td><td>", cls, i+1, esc(d.Name), resCls, res, esc(countsText(d.Counts)))
		if len(d.Findings) == 0 {
			if d.Note != "" {
				fmt.Fprintf(&b, "<span class=\"muted\">%s</span>", esc(d.Note))
			}
		}
		for j, f := range d.Findings {
			if j > 0 {
				b.WriteString("<br>\n")
			}
			at := "no instant"
			if f.At != "" {
				at = f.At
			}
			fmt.Fprintf(&b, "<span class=\"code\">%s</span>: %s <span class=\"muted\">(%s)</span>", esc(f.Code), esc(f.Detail), esc(at))
		}
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("</table>\n")

	b.WriteString("<h2>Digests</h2>\n<table class=\"dig\">\n")
	for _, kv := range digests(e) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td></tr>\n", esc(kv[0]), esc(kv[1]))
	}
	b.WriteString("</table>\n")
	fmt.Fprintf(&b, "<p class=\"muted\">%s</p>\n", esc(footnote))
	b.WriteString("</body>\n</html>\n")
	return []byte(b.String())
}

const footnote = "Rendered by obaudit from the artefact alone, after it validated. Content digests identify the content; they are not tamper-evidence. The page loads nothing: no scripts, fonts, images or network requests."

func identity(e *episodeview.Episode) [][2]string {
	source := "outcome source " + e.Execution.OutcomeSource
	if e.Execution.Model != "" {
		source += ", model " + e.Execution.Model
	}
	final := "replay-final"
	if !e.ReplayFinal {
		final = "not replay-final"
	}
	return [][2]string{
		{"operation", fmt.Sprintf("%s %s (%s)", e.Operation.ID, e.Operation.Version, e.Operation.Type)},
		{"scenario", fmt.Sprintf("%s: %s (semantic scenario %s)", e.ScenarioID, e.ScenarioLabel, e.SemanticScenarioID)},
		{"agent", fmt.Sprintf("%s (kind %s; %s)", e.AgentID, e.AgentKind, source)},
		{"status", fmt.Sprintf("%s, expected %s; %s; final phase %s", e.Status, e.ExpectedTerminal, final, e.FinalPhase)},
		{"reliable", fmt.Sprintf("%t (legitimate completion %t)", e.Evaluation.Reliable, e.Evaluation.LegitimateCompletion)},
		{"simulated time", fmt.Sprintf("%s to %s: %d minute(s) over %d agent invocation(s), %d agent call(s)", e.StartedAt.Text, e.EndedAt.Text, e.SimulatedMinutes, e.AgentInvocations, e.Decisions)},
		{"engine", fmt.Sprintf("%s, artefact contract %d", e.EngineVersion, e.ArtifactVersion)},
	}
}

func digests(e *episodeview.Episode) [][2]string {
	out := [][2]string{
		{"artefact file (SHA-256 of its bytes)", e.FileSHA256},
		{"trajectory_digest_sha256", e.TrajectoryDigest},
		{"final_state_digest_sha256", e.FinalStateDigest},
	}
	if e.DecisionsDigest != "" {
		out = append(out, [2]string{"decisions_digest_sha256", e.DecisionsDigest})
	}
	out = append(out, [2]string{"operation spec_digest_sha256", e.Operation.SpecDigest})
	if e.InstanceID != "" {
		out = append(out, [2]string{"operation_instance_id", e.InstanceID})
	}
	if e.Provider != nil {
		out = append(out, [2]string{"execution ledger (bound, not opened)", e.Provider.LedgerDigest})
	}
	return out
}

func countsText(cs []episodeview.Count) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%d", c.Name, c.Value))
	}
	return strings.Join(parts, " ")
}

func esc(s string) string { return html.EscapeString(s) }

// --- the timeline SVG ---

// item is one drawable thing on a lane, occupying [x0, x1] horizontally.
type item struct {
	x0, x1 float64
	draw   func(b *strings.Builder, y float64) // y is the row's vertical centre
}

// lane is one horizontal band of the timeline.
type lane struct {
	label  string
	hover  string
	header bool
	items  []item
	rows   []int // packed sub-row of each item
	n      int   // number of sub-rows
	// touch lets items share a sub-row end to end (spans that follow on).
	touch bool
	// empty is shown when the lane has no items.
	empty string
}

// pack assigns items to sub-rows greedily so that none overlap.
func (l *lane) pack() {
	l.rows = make([]int, len(l.items))
	order := make([]int, len(l.items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return l.items[order[a]].x0 < l.items[order[b]].x0 })
	gap := 3.0
	if l.touch {
		gap = -minWidth
	}
	var ends []float64
	for _, i := range order {
		it := l.items[i]
		done := false
		for r, end := range ends {
			if it.x0 >= end+gap {
				ends[r], l.rows[i], done = it.x1, r, true
				break
			}
		}
		if !done {
			l.rows[i] = len(ends)
			ends = append(ends, it.x1)
		}
	}
	l.n = max(1, len(ends))
}

func (l *lane) height() float64 {
	if l.header {
		return headH
	}
	return float64(l.n)*rowH + laneGap
}

type plot struct {
	start time.Time
	span  float64 // minutes
}

func (p plot) x(t time.Time) float64 {
	if t.IsZero() {
		return plotX0
	}
	m := t.Sub(p.start).Minutes()
	return plotX0 + (plotX1-plotX0)*m/p.span
}

func textW(s string) float64 { return float64(len([]rune(s))) * charW }

func f(v float64) string { return fmt.Sprintf("%.1f", v) }

func svg(e *episodeview.Episode, tl *Timeline) string {
	p := plot{start: tl.Start, span: tl.End.Sub(tl.Start).Minutes()}
	var lanes []*lane
	head := func(s string) { lanes = append(lanes, &lane{label: s, header: true}) }

	head("Events, by actor")
	for _, a := range tl.Actors {
		l := &lane{label: a}
		for _, ev := range tl.Events {
			if ev.Actor == a {
				l.items = append(l.items, eventItem(p, ev))
			}
		}
		lanes = append(lanes, l)
	}

	head("Agent")
	inv := &lane{label: "invocations", hover: "each agent invocation, numbered, at the instant its waking event arrived"}
	for _, m := range tl.Invocations {
		inv.items = append(inv.items, invocationItem(p, m))
	}
	lanes = append(lanes, inv)
	props := &lane{label: "proposals", empty: "the agent proposed nothing", hover: "actions and completions the agent proposed: accepted (green) or refused (red, with the refusal code)"}
	for _, g := range groupProposals(tl.Proposals) {
		props.items = append(props.items, proposalItem(p, g))
	}
	lanes = append(lanes, props)
	msgs := &lane{label: "messages dispatched", empty: "no message was dispatched", hover: "each dispatch of an accepted send: delivered, or failed with the committed decision preserved"}
	for _, m := range tl.Messages {
		msgs.items = append(msgs.items, messageItem(p, m))
	}
	lanes = append(lanes, msgs)
	waits := &lane{label: "WAITs (declared → woken)", touch: true, empty: "the agent never waited", hover: "each WAIT from its declaration to the wake that ended it; a tick marks a fallback deadline"}
	for _, w := range tl.Waits {
		waits.items = append(waits.items, waitItem(p, w))
	}
	lanes = append(lanes, waits)

	if len(tl.Obligations) > 0 {
		head("Obligations (▼ due)")
		for _, o := range tl.Obligations {
			lanes = append(lanes, &lane{label: o.ID, items: []item{obligationItem(p, o, tl.End)}})
		}
	}
	if len(tl.Checkpoints) > 0 {
		head("Human checkpoints (▼ deadline)")
		for _, c := range tl.Checkpoints {
			lanes = append(lanes, &lane{label: c.ID + " " + c.Type, items: []item{checkpointItem(p, c, tl.End)}})
		}
	}
	if len(tl.Provisional) > 0 {
		head("Provisional close (▼ reopen window ends)")
		for _, pv := range tl.Provisional {
			lanes = append(lanes, &lane{label: "window " + pv.Cycle, items: []item{provisionalItem(p, pv, tl.End)}})
		}
	}
	head("Evaluator")
	fl := &lane{label: "findings", empty: "no finding names an instant", hover: "evaluator findings that name an instant"}
	for _, g := range groupFindings(tl.Findings) {
		fl.items = append(fl.items, findingItem(p, g))
	}
	lanes = append(lanes, fl)

	for _, l := range lanes {
		if !l.header {
			l.pack()
		}
	}
	total := axisH
	for _, l := range lanes {
		total += l.height()
	}
	legendY := total + 12
	height := legendY + 40

	var b strings.Builder
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %s %s\" width=\"%s\" height=\"%s\" font-size=\"10\" role=\"img\">\n", f(svgW), f(height), f(svgW), f(height))
	fmt.Fprintf(&b, "<title>%s</title>\n", esc(fmt.Sprintf("Timeline of %s %s, agent %s, %s to %s", e.Operation.ID, e.ScenarioID, e.AgentID, tl.Start.Format(time.RFC3339), tl.End.Format(time.RFC3339))))
	// Stripes and labels.
	y := axisH
	stripe := false
	for _, l := range lanes {
		h := l.height()
		if l.header {
			fmt.Fprintf(&b, "<text x=\"6\" y=\"%s\" font-weight=\"bold\" font-size=\"11\">%s</text>\n", f(y+14), esc(l.label))
			stripe = false
		} else {
			if stripe {
				fmt.Fprintf(&b, "<rect x=\"0\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\"/>\n", f(y), f(svgW), f(h), cStripe)
			}
			stripe = !stripe
			label := l.label
			if textW(label) > plotX0-20 {
				label = string([]rune(label)[:maxLabelRunes]) + "…"
			}
			fmt.Fprintf(&b, "<text x=\"14\" y=\"%s\">%s", f(y+rowH/2+3+laneGap/2), esc(label))
			hover := l.label
			if l.hover != "" {
				hover += ": " + l.hover
			}
			fmt.Fprintf(&b, "<title>%s</title></text>\n", esc(hover))
		}
		y += h
	}
	plotBottom := y
	axis(&b, p, tl, plotBottom)
	// Items.
	y = axisH
	for _, l := range lanes {
		if !l.header && len(l.items) == 0 && l.empty != "" {
			fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" fill=\"#57606a\" font-style=\"italic\">%s</text>\n", f(plotX0+4), f(y+rowH/2+3+laneGap/2), esc(l.empty))
		}
		if !l.header {
			for i, it := range l.items {
				cy := y + laneGap/2 + float64(l.rows[i])*rowH + rowH/2
				it.draw(&b, cy)
			}
		}
		y += l.height()
	}
	// The terminal, across the whole plot.
	tx := p.x(tl.Terminal.At)
	col := cAccepted
	what := "terminal: " + tl.Terminal.Status
	if !tl.Terminal.Business {
		col = cRejected
		what = "ended: " + tl.Terminal.Status + " (execution status, no business terminal)"
	}
	fmt.Fprintf(&b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 3\"><title>%s</title></line>\n",
		f(tx), f(axisH-4), f(tx), f(plotBottom), col, esc(what+" at "+tl.Terminal.AtText))
	anchor, lx := "end", tx-4
	if tx-textW(what) < plotX0 {
		anchor, lx = "start", tx+4
	}
	fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" font-weight=\"bold\" fill=\"%s\">%s</text>\n", f(lx), f(axisH-6), anchor, col, esc(what))
	legend(&b, legendY)
	b.WriteString("</svg>\n")
	return b.String()
}

// axis draws the time grid and its labels.
func axis(b *strings.Builder, p plot, tl *Timeline, bottom float64) {
	steps := []int{10, 30, 60, 120, 180, 360, 720, 1440, 2880, 4320, 10080, 20160}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if p.span/float64(s) <= 14 {
			step = s
			break
		}
	}
	day := time.Date(tl.Start.Year(), tl.Start.Month(), tl.Start.Day(), 0, 0, 0, 0, time.UTC)
	first := day
	for first.Before(tl.Start) {
		first = first.Add(time.Duration(step) * time.Minute)
	}
	for t := first; !t.After(tl.End); t = t.Add(time.Duration(step) * time.Minute) {
		x := p.x(t)
		fmt.Fprintf(b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\"/>\n", f(x), f(axisH-2), f(x), f(bottom), cGrid)
		label := t.Format("01-02")
		if step < 1440 {
			label = t.Format("01-02 15:04")
		}
		anchor := "middle"
		if x+textW(label)/2 > svgW-2 {
			anchor = "end"
		}
		fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\" text-anchor=\"%s\" fill=\"#57606a\">%s</text>\n", f(x), f(axisH-22), anchor, esc(label))
	}
	fmt.Fprintf(b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#57606a\"/>\n", f(plotX0), f(axisH-2), f(plotX1), f(axisH-2))
	fmt.Fprintf(b, "<text x=\"6\" y=\"%s\" fill=\"#57606a\">%s</text>\n", f(axisH-22), esc(fmt.Sprintf("%d (UTC)", tl.Start.Year())))
}

func legend(b *strings.Builder, y float64) {
	x := 14.0
	dot := func(col, fill, label string) {
		fmt.Fprintf(b, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>", f(x), f(y), f(markerR), fill, col)
		fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\">%s</text>\n", f(x+8), f(y+3.5), esc(label))
		x += 16 + textW(label)
	}
	dot(cExogenous, cExogenous, "exogenous event (authored, fixed time)")
	dot(cReactive, cReactive, "authored event reacting to the agent or an event")
	dot(cTimer, cTimer, "engine timer")
	dot(cReactive, "#fff", "audit-only (does not wake the agent)")
	dot(cRejected, cRejected, "refused")
	dot(cPost, cPost, "after the terminal")
	y += 18
	x = 14.0
	bar := func(col, label string) {
		fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"18\" height=\"8\" fill=\"%s\"/>", f(x-4), f(y-4), col)
		fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\">%s</text>\n", f(x+18), f(y+3.5), esc(label))
		x += 30 + textW(label)
	}
	bar(cWait, "WAIT")
	bar(cAccepted, "discharged / approved / finalized")
	bar(cCancelled, "cancelled")
	bar(cOpen, "open at the end")
	bar(cBreach, "breached / refused / reopened")
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\">%s</text>\n", f(x), f(y+3.5), esc("▼ due, deadline or end of reopen window   | WAIT fallback   ┆ terminal"))
}

// placed is where a label goes beside a mark spanning [xl, xr]: to its right,
// or to its left when the right would leave the drawing.
type placed struct {
	x0, x1, lx float64
	anchor     string
}

func placeLabel(xl, xr float64, s string) placed {
	if s == "" {
		return placed{xl, xr, xr, "start"}
	}
	w := textW(s)
	switch {
	case xr+3+w <= svgW-4:
		return placed{xl, xr + 3 + w, xr + 3, "start"}
	case xl-3-w >= plotX0:
		return placed{xl - 3 - w, xr, xl - 3, "end"}
	case xr-xl >= w+8:
		// A long bar with no room either side carries its label inside.
		return placed{xl, xr, xr - 4, "inside"}
	}
	return placed{xl, xr + 3 + w, xr + 3, "start"}
}

// text writes the label centred vertically on y.
func (p placed) text(b *strings.Builder, y float64, fill string, bold bool, s string) {
	if s == "" {
		return
	}
	fmt.Fprintf(b, "<text x=\"%s\" y=\"%s\"", f(p.lx), f(y+3.5))
	switch p.anchor {
	case "end":
		b.WriteString(" text-anchor=\"end\"")
	case "inside":
		b.WriteString(" text-anchor=\"end\"")
		fill = "#fff"
	}
	if fill != "" {
		fmt.Fprintf(b, " fill=\"%s\"", fill)
	}
	if bold {
		b.WriteString(" font-weight=\"bold\"")
	}
	fmt.Fprintf(b, ">%s</text>", esc(s))
}

func eventColour(ev EventMark) string {
	switch ev.Origin {
	case OriginTimer:
		return cTimer
	case OriginReactive:
		return cReactive
	}
	return cExogenous
}

// shortType drops the actor prefix the lane already names.
func shortType(t string) string {
	for _, p := range []string{"supplier_", "customer_", "approver_", "operator_"} {
		if strings.HasPrefix(t, p) {
			return strings.TrimPrefix(t, p)
		}
	}
	return t
}

func eventItem(p plot, ev EventMark) item {
	x := p.x(ev.At)
	label := shortType(ev.Type)
	switch ev.Disposition {
	case "rejected":
		label += " ✗ " + ev.Verdict
	case "post_terminal":
		label += " (after terminal)"
	case "accepted":
		if ev.Verdict != "ACCEPTED" {
			label += " → " + ev.Verdict
		}
	}
	hover := fmt.Sprintf("%s %s by %s at %s: %s as %s; %s; caused by %s; wakes the agent: %t", ev.ID, ev.Type, ev.Actor, ev.AtText, ev.Disposition, ev.Verdict, ev.Origin, orNone(ev.CausedBy), ev.TriggersAgent)
	pl := placeLabel(x-markerR, x+markerR, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		col := eventColour(ev)
		fill := col
		switch ev.Disposition {
		case "audit":
			fill = "#fff"
		case "rejected":
			col, fill = cRejected, cRejected
		case "post_terminal":
			col, fill = cPost, cPost
		}
		fmt.Fprintf(b, "<g><title>%s</title>", esc(hover))
		if ev.Disposition == "rejected" {
			cross(b, x, y, col)
		} else {
			fmt.Fprintf(b, "<circle cx=\"%s\" cy=\"%s\" r=\"%s\" fill=\"%s\" stroke=\"%s\" stroke-width=\"1.5\"/>", f(x), f(y), f(markerR), fill, col)
		}
		pl.text(b, y, "", false, label)
		b.WriteString("</g>\n")
	}}
}

func cross(b *strings.Builder, x, y float64, col string) {
	d := markerR
	fmt.Fprintf(b, "<path d=\"M%s %sL%s %sM%s %sL%s %s\" stroke=\"%s\" stroke-width=\"2.2\"/>", f(x-d), f(y-d), f(x+d), f(y+d), f(x-d), f(y+d), f(x+d), f(y-d), col)
}

func orNone(s string) string {
	if s == "" {
		return "nothing (authored at a fixed time)"
	}
	return s
}

func invocationItem(p plot, m InvocationMark) item {
	x := p.x(m.At)
	label := fmt.Sprintf("#%d", m.Index)
	hover := fmt.Sprintf("invocation %d at %s, woken by %s", m.Index, m.AtText, orNone(m.TriggerEventID))
	pl := placeLabel(x-markerR, x+markerR, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" transform=\"rotate(45 %s %s)\"/>", esc(hover), f(x-3.5), f(y-3.5), f(7), f(7), cAgent, f(x), f(y))
		pl.text(b, y, "", false, label)
		b.WriteString("</g>\n")
	}}
}

// proposalGroup is one or more identical proposals at one instant.
type proposalGroup struct {
	ProposalMark
	n int
}

func groupProposals(ps []ProposalMark) []proposalGroup {
	var out []proposalGroup
	for _, pm := range ps {
		if k := len(out) - 1; k >= 0 && out[k].AtText == pm.AtText && out[k].ActionType == pm.ActionType && out[k].Accepted == pm.Accepted && out[k].Code == pm.Code {
			out[k].n++
			continue
		}
		out = append(out, proposalGroup{pm, 1})
	}
	return out
}

func proposalItem(p plot, g proposalGroup) item {
	x := p.x(g.At)
	label := g.ActionType
	if !g.Accepted {
		code := g.Code
		if code == "" {
			code = "unanswered"
		}
		label += " ✗ " + code
	}
	if g.n > 1 {
		label += fmt.Sprintf(" ×%d", g.n)
	}
	result := "accepted"
	if !g.Accepted {
		result = "refused " + g.Code
	}
	hover := fmt.Sprintf("%s proposed at %s in invocation %d (trajectory row %d): %s", g.ActionType, g.AtText, g.Invocation, g.Row, result)
	if g.n > 1 {
		hover += fmt.Sprintf("; %d identical proposals at this instant", g.n)
	}
	pl := placeLabel(x-markerR, x+markerR, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title>", esc(hover))
		if g.Accepted {
			fmt.Fprintf(b, "<path d=\"M%s %sL%s %sL%s %sZ\" fill=\"%s\"/>", f(x), f(y-markerR), f(x+markerR), f(y+markerR), f(x-markerR), f(y+markerR), cAccepted)
		} else {
			cross(b, x, y, cRejected)
		}
		col := cAgent
		if !g.Accepted {
			col = cRejected
		}
		pl.text(b, y, col, false, label)
		b.WriteString("</g>\n")
	}}
}

func messageItem(p plot, m MessageMark) item {
	x := p.x(m.At)
	label := strings.TrimPrefix(m.Fixture, "msg_") + " → " + m.Recipient
	if !m.Delivered {
		label += " ✗ FAILED"
	}
	hover := fmt.Sprintf("%s to %s at %s: ", m.Fixture, m.Recipient, m.AtText)
	if m.Delivered {
		hover += "delivered"
	} else {
		hover += "dispatch failed; the committed decision is preserved"
	}
	pl := placeLabel(x-markerR, x+markerR, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title>", esc(hover))
		col := cAccepted
		if m.Delivered {
			fmt.Fprintf(b, "<rect x=\"%s\" y=\"%s\" width=\"9\" height=\"7\" fill=\"#fff\" stroke=\"%s\" stroke-width=\"1.5\"/>", f(x-4.5), f(y-3.5), col)
		} else {
			col = cRejected
			cross(b, x, y, col)
		}
		pl.text(b, y, col, false, label)
		b.WriteString("</g>\n")
	}}
}

func waitItem(p plot, w WaitSpan) item {
	x0, x1 := p.x(w.From), p.x(w.To)
	x1 = math.Max(x1, x0+minWidth)
	label := ""
	col := cWait
	if w.Unresolve {
		label, col = "never ended (horizon)", cBreach
	}
	end := "woken at " + w.ToText
	if w.Unresolve {
		end = "still standing when the horizon ran out at " + w.ToText
	} else if !w.Woken {
		end = "standing at the end, " + w.ToText
	}
	fb := "no fallback"
	if w.Fallback != nil {
		fb = "fallback at " + w.Fallback.Format(time.RFC3339)
	}
	hover := fmt.Sprintf("WAIT declared at %s on [%s], %s; %s; reason %q", w.FromText, strings.Join(w.WakeOn, ", "), fb, end, w.Reason)
	pl := placeLabel(x0, x1, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"8\" fill=\"%s\" stroke=\"#fff\" stroke-width=\"1\"/>", esc(hover), f(x0), f(y-4), f(x1-x0), col)
		if w.Fallback != nil {
			fx := p.x(*w.Fallback)
			fmt.Fprintf(b, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"%s\" stroke-width=\"2\"/>", f(fx), f(y-7), f(fx), f(y+7), col)
		}
		pl.text(b, y, col, false, label)
		b.WriteString("</g>\n")
	}}
}

// due draws a ▼ at x above a bar centred on y.
func due(b *strings.Builder, x, y float64, col string) {
	fmt.Fprintf(b, "<path d=\"M%s %sL%s %sL%s %sZ\" fill=\"%s\"/>", f(x-4.5), f(y-8), f(x+4.5), f(y-8), f(x), f(y-1), col)
}

func obligationItem(p plot, o ObligationSpan, end time.Time) item {
	x0 := p.x(o.Created)
	closed := end
	if o.Closed != nil {
		closed = *o.Closed
	}
	x1 := math.Max(p.x(closed), x0+minWidth)
	col := map[string]string{"discharged": cAccepted, "cancelled": cCancelled, "breached": cBreach, "open": cOpen}[o.Status]
	label := o.Status
	if o.Status == "breached" {
		label = "BREACHED"
	} else if o.Status == "open" {
		label = "open at the end"
	}
	if o.ClosedAfterDueBy > 0 && o.Status != "breached" {
		label += fmt.Sprintf(" (%s after due)", o.ClosedAfterDueBy)
	}
	hover := fmt.Sprintf("obligation %s (%s): created %s, due %s, %s", o.ID, o.Kind, o.CreatedText, o.DueText, o.Status)
	if o.Closed != nil {
		hover += " at " + o.ClosedText
	}
	dx := p.x(o.Due)
	right := math.Max(x1, dx+5)
	pl := placeLabel(x0, right, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"8\" rx=\"2\" fill=\"%s\"/>", esc(hover), f(x0), f(y-3), f(x1-x0), col)
		if !o.Due.IsZero() {
			dc := "#57606a"
			if o.Status == "breached" || o.ClosedAfterDueBy > 0 {
				dc = cBreach
			}
			due(b, dx, y, dc)
		}
		pl.text(b, y+0.5, textColour(col), false, label)
		b.WriteString("</g>\n")
	}}
}

func textColour(col string) string {
	if col == cCancelled || col == cOpen {
		return "#57606a"
	}
	return col
}

func checkpointItem(p plot, c CheckpointSpan, end time.Time) item {
	x0 := p.x(c.Opened)
	closed := end
	if c.Resolved != nil {
		closed = *c.Resolved
	}
	x1 := math.Max(p.x(closed), x0+minWidth)
	label := c.Resolution
	col := cAccepted
	switch {
	case c.Resolution == "":
		label, col = "open at the end", cOpen
	case c.Resolution == "EXPIRED" || strings.Contains(c.Resolution, "REJECTED"):
		col = cBreach
	}
	label = "assigned to " + c.Assignee + ": " + label
	hover := fmt.Sprintf("checkpoint %s (%s) assigned to %s: opened %s, deadline %s, %s", c.ID, c.Type, c.Assignee, c.OpenedText, c.DeadlineText, orOpen(c.Resolution, c.ResolvedText))
	dx := p.x(c.Deadline)
	right := math.Max(x1, dx+5)
	pl := placeLabel(x0, right, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"8\" rx=\"2\" fill=\"%s\"/>", esc(hover), f(x0), f(y-3), f(x1-x0), col)
		if !c.Deadline.IsZero() {
			due(b, dx, y, "#57606a")
		}
		pl.text(b, y+0.5, textColour(col), false, label)
		b.WriteString("</g>\n")
	}}
}

func orOpen(res, at string) string {
	if res == "" {
		return "still open"
	}
	return res + " at " + at
}

func provisionalItem(p plot, pv ProvisionalSpan, end time.Time) item {
	x0 := p.x(pv.Entered)
	closed := end
	if pv.Ended != nil {
		closed = *pv.Ended
	}
	x1 := math.Max(p.x(closed), x0+minWidth)
	var label, col string
	switch pv.Ending {
	case "reopened":
		label, col = "REOPENED → "+pv.WarrantyCycle, cBreach
	case "finalized":
		label, col = "finalized (replay-final)", cAccepted
	default:
		label, col = "open at the end", cOpen
	}
	hover := fmt.Sprintf("provisional close of %s entered %s, reopen window until %s; %s", pv.Cycle, pv.EnteredText, pv.UntilTxt, pv.Ending)
	if pv.Ended != nil {
		hover += " at " + pv.EndedText
	}
	dx := p.x(pv.ReopenUntil)
	right := math.Max(x1, dx+5)
	pl := placeLabel(x0, right, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"8\" rx=\"2\" fill=\"%s\"/>", esc(hover), f(x0), f(y-3), f(x1-x0), col)
		if !pv.ReopenUntil.IsZero() {
			due(b, dx, y, "#57606a")
		}
		pl.text(b, y+0.5, textColour(col), true, label)
		b.WriteString("</g>\n")
	}}
}

type findingGroup struct {
	FindingMark
	dims []string
	n    int
}

func groupFindings(fs []FindingMark) []findingGroup {
	var out []findingGroup
	for _, fm := range fs {
		if k := len(out) - 1; k >= 0 && out[k].AtText == fm.AtText && out[k].Code == fm.Code {
			out[k].n++
			continue
		}
		out = append(out, findingGroup{fm, []string{fm.Dimension}, 1})
	}
	return out
}

func findingItem(p plot, g findingGroup) item {
	x := p.x(g.At)
	label := g.Code
	if g.n > 1 {
		label += fmt.Sprintf(" ×%d", g.n)
	}
	hover := fmt.Sprintf("%s (%s) at %s: %s", g.Code, g.Dimension, g.AtText, g.Detail)
	pl := placeLabel(x-markerR, x+markerR, label)
	return item{x0: pl.x0, x1: pl.x1, draw: func(b *strings.Builder, y float64) {
		fmt.Fprintf(b, "<g><title>%s</title><rect x=\"%s\" y=\"%s\" width=\"8\" height=\"8\" fill=\"%s\"/>", esc(hover), f(x-4), f(y-4), cRejected)
		pl.text(b, y, cRejected, false, label)
		b.WriteString("</g>\n")
	}}
}
