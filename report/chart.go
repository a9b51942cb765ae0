package report

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/obaudit/obaudit/internal/instant"
)

// Charts lays the timeline out at every zoom level.
func (r *Report) Charts() []Chart {
	out := make([]Chart, len(Zooms))
	for i, w := range Zooms {
		out[i] = r.chart(i, w)
	}
	return out
}

// laneLabelMax is the widest a lane-label column grows; longer labels wrap.
const laneLabelMax = 230.0

func (r *Report) chart(zoom int, plotW float64) Chart {
	tl := r.tl
	p := plot{start: tl.Start, span: tl.End.Sub(tl.Start).Minutes(), w: plotW}
	var lanes []*lane
	head := func(s, title string) { lanes = append(lanes, &lane{label: s, title: title, header: true}) }

	head("Events, by actor", "delivered events, one lane per actor, in order of first appearance")
	for _, a := range tl.Actors {
		l := &lane{label: a, title: "events by " + a}
		if role := r.role(a); role != "" {
			l.label = a + " · " + role
			l.title = "events by " + a + ", role " + role
		}
		for _, ev := range tl.Events {
			if ev.Actor == a {
				l.items = append(l.items, r.eventItem(p, ev))
			}
		}
		lanes = append(lanes, l)
	}

	head("Agent", "what the agent did")
	inv := &lane{label: "invocations", title: "each agent invocation at the instant its waking event arrived; click one to open its detail"}
	for _, g := range runs(tl.Invocations, func(a, b InvocationMark) bool { return a.AtText == b.AtText }) {
		inv.items = append(inv.items, r.invocationItem(p, g))
	}
	props := &lane{label: "proposals", empty: "the agent proposed nothing", title: "actions and completions the agent proposed: accepted (green) or refused (red, with the refusal code)"}
	sameProposal := func(a, b ProposalMark) bool {
		return a.AtText == b.AtText && a.ActionType == b.ActionType && a.Accepted == b.Accepted && a.Code == b.Code
	}
	for _, g := range runs(tl.Proposals, sameProposal) {
		props.items = append(props.items, proposalItem(p, g[0], len(g)))
	}
	msgs := &lane{label: "messages dispatched", empty: "no message was dispatched", title: "each dispatch of an accepted send: delivered, failed as the scenario authored (purple), or failed unexpectedly (red)"}
	for _, m := range tl.Messages {
		msgs.items = append(msgs.items, messageItem(p, m, r.pack.authoredFailure(m.Fixture)))
	}
	waits := &lane{label: "WAITs (declared → woken)", touch: true, empty: "the agent never waited", title: "each WAIT from its declaration to the wake that ended it; a tick marks a fallback deadline"}
	for _, w := range tl.Waits {
		waits.items = append(waits.items, waitItem(p, w))
	}
	lanes = append(lanes, inv, props, msgs, waits)

	tools, reads := r.readsByTool()
	if len(tools) > 0 {
		head("Reads, by tool (● fresh read  ○ required, not fresh)", "what the agent read, per tool, at each invocation; a hollow red ring marks a read the pack requires for a proposal that was not fresh when it was made")
		for _, tool := range tools {
			l := &lane{label: tool, title: "reads of " + tool, touch: true}
			l.items = readItems(p, tool, reads[tool])
			lanes = append(lanes, l)
		}
	}
	if len(tl.Obligations) > 0 {
		head("Obligations (▼ due)", "each obligation from creation to its close")
		for _, o := range tl.Obligations {
			lanes = append(lanes, &lane{label: o.ID, items: []item{obligationItem(p, o, tl.End)}})
		}
	}
	if len(tl.Checkpoints) > 0 {
		head("Human checkpoints (▼ deadline)", "a human's decision is business, not an agent failure")
		for _, c := range tl.Checkpoints {
			lanes = append(lanes, &lane{label: c.ID + " " + c.Type, items: []item{checkpointItem(p, c, tl.End)}})
		}
	}
	if len(tl.Provisional) > 0 {
		head("Provisional close (▼ reopen window ends)", "each provisional close and how its window ended")
		for _, pv := range tl.Provisional {
			lanes = append(lanes, &lane{label: "window " + pv.Cycle, items: []item{provisionalItem(p, pv, tl.End)}})
		}
	}
	head("Evaluator", "findings that name an instant")
	fl := &lane{label: "findings", empty: "no finding names an instant", title: "evaluator findings that name an instant"}
	for _, g := range runs(tl.Findings, func(a, b FindingMark) bool { return a.AtText == b.AtText && a.Code == b.Code }) {
		fl.items = append(fl.items, findingItem(p, g[0], len(g), r.asAuthored()))
	}
	lanes = append(lanes, fl)

	// The label column: as wide as the widest label, up to laneLabelMax.
	labelW := 120.0
	for _, l := range lanes {
		if !l.header {
			labelW = math.Max(labelW, textWidth(l.label, fontPx, false)+22)
		}
	}
	labelW = math.Min(labelW, laneLabelMax)
	c := Chart{Zoom: zoom, LabelW: labelW, PlotW: p.right()}
	y := axisH
	stripe := false
	for _, l := range lanes {
		if l.header {
			l.lines = splitLabel(l.label, labelW-12, true)
		} else {
			l.lines = splitLabel(l.label, labelW-20, false)
			l.pack()
		}
		h := l.height()
		lb := LaneBox{Y: y, H: h, Header: l.header, Title: l.title}
		if l.header {
			for i, ln := range l.lines {
				lb.Lines = append(lb.Lines, newLabel(ln, 6, y+headH/2+2+float64(i)*lineH, fontPx, "start", true))
			}
			stripe = false
		} else {
			lb.Stripe = stripe
			stripe = !stripe
			for i, s := range l.lines {
				lb.Lines = append(lb.Lines, newLabel(s, 14, y+laneGap/2+rowH/2+float64(i)*lineH, fontPx, "start", false))
			}
			if len(l.items) == 0 && l.empty != "" {
				e := newLabel(l.empty, padX+4, y+laneGap/2+rowH/2, fontPx, "start", false)
				e.Italic, e.Fill = true, cMuted
				c.Empty = append(c.Empty, e)
			}
			for i, it := range l.items {
				c.Marks = append(c.Marks, it.build(y+laneGap/2+float64(l.rows[i])*rowH+rowH/2))
			}
		}
		c.Lanes = append(c.Lanes, lb)
		y += h
	}
	c.Height = y + 8
	r.axis(&c, p, y)
	return c
}

// axis adds the time grid, its tick labels and the terminal line.
func (r *Report) axis(c *Chart, p plot, bottom float64) {
	tl := r.tl
	steps := []int{10, 30, 60, 120, 180, 360, 720, 1440, 2880, 4320, 10080, 20160, 40320}
	step := steps[len(steps)-1]
	for _, s := range steps {
		label := "00-00 00:00"
		if s >= 1440 {
			label = "00-00"
		}
		if p.w*float64(s)/p.span >= textWidth(label, smallPx, false)+16 {
			step = s
			break
		}
	}
	day := time.Date(tl.Start.Year(), tl.Start.Month(), tl.Start.Day(), 0, 0, 0, 0, time.UTC)
	first := day
	for first.Before(tl.Start) {
		first = first.Add(time.Duration(step) * time.Minute)
	}
	tickY := 12.0
	for t := first; !t.After(tl.End); t = t.Add(time.Duration(step) * time.Minute) {
		x := p.x(t)
		c.Grid = append(c.Grid, Shape{K: "l", X: x, Y: axisH - 6, X2: x, Y2: bottom, Stroke: cGrid, SW: 1})
		label := t.Format("01-02")
		if step < 1440 {
			label = t.Format("01-02 15:04")
		}
		l := newLabel(label, x, tickY, smallPx, "middle", false)
		if l.X1 > p.right()-1 {
			l = newLabel(label, p.right()-1, tickY, smallPx, "end", false)
		}
		if l.X0 < 1 {
			l = newLabel(label, 1, tickY, smallPx, "start", false)
		}
		l.Fill = cMuted
		// A label pushed inward at an edge may meet its neighbour: the
		// grid line stays, the label goes.
		if k := len(c.Axis) - 1; k >= 0 && l.X0 < c.Axis[k].X1+6 {
			continue
		}
		c.Axis = append(c.Axis, l)
	}
	c.Grid = append(c.Grid, Shape{K: "l", X: padX, Y: axisH - 6, X2: padX + p.w, Y2: axisH - 6, Stroke: cMuted, SW: 1})
	// The terminal, across the whole plot, with its expectation.
	tx := p.x(tl.Terminal.At)
	col := cOK
	what := "terminal: " + tl.Terminal.Status
	if !tl.Terminal.Business {
		col = cRefused
		what = "ended: " + tl.Terminal.Status + " (no business terminal)"
	}
	if exp := r.a.ExpectedTerminal; exp != "" && exp != tl.Terminal.Status {
		col = cRefused
		what += " (expected " + exp + ")"
	}
	c.Grid = append(c.Grid, Shape{K: "l", X: tx, Y: axisH - 14, X2: tx, Y2: bottom, Stroke: col, SW: 2, Dash: "6 3"})
	ly := 30.0
	l := newLabel(what, tx-4, ly, fontPx, "end", true)
	if l.X0 < 1 {
		l = newLabel(what, tx+4, ly, fontPx, "start", true)
	}
	if l.X1 > p.right()-1 {
		l = newLabel(what, math.Max(1, p.right()-1-textWidth(what, fontPx, true)), ly, fontPx, "start", true)
	}
	l.Fill = col
	c.Axis = append(c.Axis, l)
}

func (r *Report) role(actor string) string {
	if r.pack == nil {
		return ""
	}
	return r.pack.Roles[actor]
}

func (r *Report) invByIndex(n int64) *Invocation {
	for i := range r.invs {
		if r.invs[i].Index == n {
			return &r.invs[i]
		}
	}
	return nil
}

// toolRead is one tool's reads in one invocation, or a required read that
// was not fresh for a proposal.
type toolRead struct {
	inv     int64
	at      time.Time
	atText  string
	n       int
	turns   []int64
	missing string // the outcome that lacked it
}

// readsByTool groups served reads per tool and invocation, tools in order of
// first read, and adds each required read a proposal lacked.
func (r *Report) readsByTool() ([]string, map[string][]toolRead) {
	var tools []string
	out := map[string][]toolRead{}
	add := func(tool string, tr toolRead) {
		if _, ok := out[tool]; !ok {
			tools = append(tools, tool)
		}
		l := out[tool]
		if k := len(l) - 1; k >= 0 && tr.missing == "" && l[k].missing == "" && l[k].inv == tr.inv {
			l[k].n++
			if !slices.Contains(l[k].turns, tr.turns[0]) {
				l[k].turns = append(l[k].turns, tr.turns[0])
			}
			return
		}
		out[tool] = append(l, tr)
	}
	for _, iv := range r.invs {
		at := r.invAt(iv.Index)
		for _, t := range iv.Turns {
			for _, rd := range t.Reads {
				add(rd.Tool, toolRead{inv: iv.Index, at: at, atText: iv.AtText, n: 1, turns: []int64{t.Index}})
			}
		}
	}
	for _, iv := range r.invs {
		at := r.invAt(iv.Index)
		for _, t := range iv.Turns {
			key := t.Action
			if key == "" {
				key = "the completion"
			}
			for _, m := range t.Missing() {
				add(m, toolRead{inv: iv.Index, at: at, atText: iv.AtText, turns: []int64{t.Index}, missing: key})
			}
		}
	}
	return tools, out
}

func (r *Report) invAt(n int64) time.Time {
	for _, m := range r.tl.Invocations {
		if m.Index == n {
			return m.At
		}
	}
	return r.tl.Start
}

// readItems draws one tool's reads: served reads as dots, one mark per
// instant (nearby instants share a dot, its title listing each); required
// reads that were not fresh as labelled rings.
func readItems(p plot, tool string, rds []toolRead) []item {
	var out []item
	var dots []toolRead
	flush := func() {
		if len(dots) == 0 {
			return
		}
		x := p.x(dots[0].at)
		var parts []string
		inv := dots[0].inv
		for _, rd := range dots {
			turns := make([]string, len(rd.turns))
			for i, t := range rd.turns {
				turns[i] = fmt.Sprint(t)
			}
			parts = append(parts, fmt.Sprintf("%d× in invocation %d at %s (turn %s)", rd.n, rd.inv, rd.atText, strings.Join(turns, ", ")))
		}
		title := tool + " served " + strings.Join(parts, "; ")
		out = append(out, item{x0: x - 3, x1: x + 3, build: func(y float64) Mark {
			return Mark{Kind: "read", Title: title, Search: search(tool, "read"), Inv: inv, Shapes: []Shape{{K: "c", X: x, Y: y, R: 3, Fill: cRead}}}
		}})
		dots = nil
	}
	for _, rd := range rds {
		if rd.missing != "" {
			continue
		}
		if len(dots) > 0 && p.x(rd.at)-p.x(dots[0].at) > 5 {
			flush()
		}
		dots = append(dots, rd)
	}
	flush()
	for _, rd := range rds {
		if rd.missing != "" {
			out = append(out, readItem(p, tool, rd))
		}
	}
	return out
}

func readItem(p plot, tool string, rd toolRead) item {
	x := p.x(rd.at)
	title := fmt.Sprintf("%s was required for %s in invocation %d (turn %d) at %s but was not fresh", tool, rd.missing, rd.inv, rd.turns[0], rd.atText)
	return p.mk(x-markerR-1, x+markerR+1, "not read", false, cRefused, func(y float64, m *Mark) {
		*m = Mark{Kind: "read", Title: title, Search: search(tool, rd.missing, "missing required read"), Inv: rd.inv,
			Shapes: []Shape{{K: "c", X: x, Y: y, R: markerR + 1.5, Fill: "none", Stroke: cRefused, SW: 2}}}
	})
}

// shortType drops the actor's role prefix from an event type when the type
// starts with the actor id's stem ("supplier_1" → "supplier_").
func shortType(actor, typ string) string {
	stem := strings.TrimRight(actor, "0123456789")
	if strings.HasSuffix(stem, "_") && strings.HasPrefix(typ, stem) && len(typ) > len(stem) {
		return strings.TrimPrefix(typ, stem)
	}
	return typ
}

func (r *Report) eventItem(p plot, ev EventMark) item {
	x := p.x(ev.At)
	label := shortType(ev.Actor, ev.Type)
	expected := ""
	if r.pack != nil {
		expected = r.pack.ExpectedEventRejections[ev.ID]
	}
	col := cExogenous
	switch ev.Origin {
	case OriginTimer:
		col = cTimer
	case OriginReactive:
		col = cReactive
	}
	fill := col
	switch ev.Disposition {
	case "rejected":
		label += " ✗ " + ev.Verdict
		col, fill = cRefused, cRefused
		if expected == ev.Verdict {
			label += " (as authored)"
			col, fill = cAuthored, cAuthored
		}
	case "post_terminal":
		label += " (after terminal)"
		col, fill = cPost, cPost
	case "audit":
		fill = "#fff"
	case "accepted":
		if ev.Verdict != "ACCEPTED" {
			label += " → " + ev.Verdict
		}
	}
	title := fmt.Sprintf("%s %s by %s at %s: %s as %s; %s; caused by %s; wakes the agent: %t", ev.ID, ev.Type, ev.Actor, ev.AtText, ev.Disposition, ev.Verdict, ev.Origin, orNone(ev.CausedBy), ev.TriggersAgent)
	if expected != "" {
		title += "; the scenario authors its refusal as " + expected
	}
	txt := ""
	if ev.Disposition == "rejected" && col == cRefused {
		txt = cRefused
	}
	return p.mk(x-markerR, x+markerR, label, false, txt, func(y float64, m *Mark) {
		*m = Mark{Kind: "event", Title: title, Search: search(ev.ID, ev.Type, ev.Actor, ev.Verdict, ev.Disposition)}
		if ev.Disposition == "rejected" {
			m.Shapes = []Shape{cross(x, y, col)}
		} else {
			m.Shapes = []Shape{circle(x, y, fill, col)}
		}
	})
}

func orNone(s string) string {
	if s == "" {
		return "nothing (authored at a fixed time)"
	}
	return s
}

// runs splits xs into runs of consecutive elements that same holds for
// with the run's first: invocations at one instant, identical proposals or
// findings at one instant, each drawn as one mark.
func runs[T any](xs []T, same func(first, x T) bool) [][]T {
	var out [][]T
	for _, x := range xs {
		if k := len(out) - 1; k >= 0 && same(out[k][0], x) {
			out[k] = append(out[k], x)
			continue
		}
		out = append(out, []T{x})
	}
	return out
}

func (r *Report) invocationItem(p plot, g []InvocationMark) item {
	first, last := g[0], g[len(g)-1]
	x := p.x(first.At)
	label := fmt.Sprintf("#%d", first.Index)
	if len(g) > 1 {
		label = fmt.Sprintf("#%d–#%d", first.Index, last.Index)
	}
	var titles, ids []string
	fill := cAgent
	for _, m := range g {
		t := fmt.Sprintf("invocation %d at %s, woken by %s", m.Index, m.AtText, orNone(m.TriggerEventID))
		if iv := r.invByIndex(m.Index); iv != nil && iv.Refused > 0 {
			fill = cRefused
			t += fmt.Sprintf("; %d refused proposal(s)", iv.Refused)
		}
		titles = append(titles, t)
		ids = append(ids, fmt.Sprintf("#%d", m.Index), m.TriggerEventID)
	}
	title := strings.Join(titles, "\n")
	return p.mk(x-markerR, x+markerR, label, false, fill, func(y float64, mk *Mark) {
		*mk = Mark{Kind: "agent", Title: title, Search: search(append(ids, "invocation")...), Inv: first.Index,
			Shapes: []Shape{{K: "r", X: x - 3.5, Y: y - 3.5, W: 7, H: 7, Fill: fill, Rot: true}}}
	})
}

// proposalItem is the mark of n identical proposals g at one instant.
func proposalItem(p plot, g ProposalMark, n int) item {
	x := p.x(g.At)
	label := g.ActionType
	if !g.Accepted {
		code := g.Code
		if code == "" {
			code = "unanswered"
		}
		label += " ✗ " + code
	}
	if n > 1 {
		label += fmt.Sprintf(" ×%d", n)
	}
	result := "accepted"
	if !g.Accepted {
		result = "refused " + g.Code
	}
	title := fmt.Sprintf("%s proposed at %s in invocation %d (trajectory row %d): %s", g.ActionType, g.AtText, g.Invocation, g.Row, result)
	if n > 1 {
		title += fmt.Sprintf("; %d identical proposals at this instant", n)
	}
	col := cAgent
	if !g.Accepted {
		col = cRefused
	}
	return p.mk(x-markerR, x+markerR, label, false, col, func(y float64, m *Mark) {
		*m = Mark{Kind: "agent", Title: title, Search: search(g.ActionType, result), Inv: g.Invocation}
		if g.Accepted {
			m.Shapes = []Shape{{K: "p", D: fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x, y-markerR, x+markerR, y+markerR, x-markerR, y+markerR), Fill: cOK}}
		} else {
			m.Shapes = []Shape{cross(x, y, cRefused)}
		}
	})
}

func messageItem(p plot, msg MessageMark, authored bool) item {
	x := p.x(msg.At)
	label := msg.Fixture + " → " + msg.Recipient
	col := cOK
	title := fmt.Sprintf("%s to %s at %s: ", msg.Fixture, msg.Recipient, msg.AtText)
	switch {
	case msg.Delivered:
		title += "delivered"
	case authored:
		label += " ✗ failed, as authored"
		col = cAuthored
		title += "dispatch failed, as the scenario authors it (an expectation, not an agent failure); the committed decision is preserved"
	default:
		label += " ✗ FAILED"
		col = cRefused
		title += "dispatch failed; the committed decision is preserved"
	}
	return p.mk(x-markerR, x+markerR, label, false, col, func(y float64, m *Mark) {
		*m = Mark{Kind: "agent", Title: title, Search: search(msg.Fixture, msg.Recipient, title)}
		if msg.Delivered {
			m.Shapes = []Shape{{K: "r", X: x - 4.5, Y: y - 3.5, W: 9, H: 7, Fill: "#fff", Stroke: col, SW: 1.5}}
		} else {
			m.Shapes = []Shape{cross(x, y, col)}
		}
	})
}

func waitItem(p plot, w WaitSpan) item {
	x0, x1 := p.x(w.From), p.x(w.To)
	x1 = math.Max(x1, x0+minWidth)
	label, col := "", cWait
	if w.Unresolve {
		label, col = "never ended (horizon)", cRefused
	}
	end := "woken at " + w.ToText
	if w.Unresolve {
		end = "still standing when the horizon ran out at " + w.ToText
	} else if !w.Woken {
		end = "standing at the end, " + w.ToText
	}
	fb := "no fallback"
	if w.Fallback != nil {
		fb = "fallback at " + instant.Format(w.Fallback.Unix())
	}
	title := fmt.Sprintf("WAIT declared at %s on [%s], %s; %s; reason %q", w.FromText, strings.Join(w.WakeOn, ", "), fb, end, w.Reason)
	return p.mk(x0, x1, label, false, col, func(y float64, m *Mark) {
		*m = Mark{Kind: "agent", Title: title, Search: search("wait", w.Reason, strings.Join(w.WakeOn, " ")),
			Shapes: []Shape{{K: "r", X: x0, Y: y - 4, W: x1 - x0, H: 8, Fill: col, Stroke: "#fff", SW: 1}}}
		if w.Fallback != nil {
			fx := p.x(*w.Fallback)
			m.Shapes = append(m.Shapes, Shape{K: "l", X: fx, Y: y - 7, X2: fx, Y2: y + 7, Stroke: col, SW: 2})
		}
	})
}

// extent is a lane bar's extent from start to closed (end while it stands
// open), at least minWidth wide.
func (p plot) extent(start time.Time, closed *time.Time, end time.Time) (x0, x1 float64) {
	if closed != nil {
		end = *closed
	}
	x0 = p.x(start)
	return x0, math.Max(p.x(end), x0+minWidth)
}

// dueLane is the one item of a lane whose bar runs from x0 to x1 in col
// with a due mark in dueCol at due (none when due is zero): the lane
// reaches past the mark, and m is the mark with the bar and the due mark
// as its shapes.
func (p plot) dueLane(x0, x1 float64, due time.Time, label string, bold bool, col, dueCol string, m Mark) item {
	dx := p.x(due)
	return p.mkLane(x0, math.Max(x1, dx+5), label, bold, true, col, func(y float64, mark *Mark) {
		*mark = m
		mark.Shapes = []Shape{bar(x0, x1, y, col)}
		if !due.IsZero() {
			mark.Shapes = append(mark.Shapes, dueMark(dx, y, dueCol))
		}
	})
}

func obligationItem(p plot, o ObligationSpan, end time.Time) item {
	x0, x1 := p.extent(o.Created, o.Closed, end)
	col := map[string]string{"discharged": cOK, "cancelled": cCancelled, "breached": cRefused, "open": cOpen}[o.Status]
	label := o.Status
	switch o.Status {
	case "breached":
		label = "BREACHED"
	case "open":
		label = "open at the end"
	}
	if o.ClosedAfterDueBy > 0 && o.Status != "breached" {
		label += fmt.Sprintf(" (%s after due)", o.ClosedAfterDueBy)
	}
	title := fmt.Sprintf("obligation %s (%s): created %s, due %s, %s", o.ID, o.Kind, o.CreatedText, o.DueText, o.Status)
	if o.Closed != nil {
		title += " at " + o.ClosedText
	}
	dc := cMuted
	if o.Status == "breached" || o.ClosedAfterDueBy > 0 {
		dc = cRefused
	}
	return p.dueLane(x0, x1, o.Due, label, false, col, dc, Mark{Kind: "obligation", Title: title, Search: search(o.ID, o.Kind, o.Status)})
}

func checkpointItem(p plot, c CheckpointSpan, end time.Time) item {
	x0, x1 := p.extent(c.Opened, c.Resolved, end)
	// Whatever a human resolves is business: an approver's rejection is a
	// decision the agent must handle, not a failure of the agent.
	res, col := c.Resolution+" (business)", cBusiness
	if c.Resolution == "" {
		res, col = "open at the end", cOpen
	}
	label := c.Assignee + ": " + res
	title := fmt.Sprintf("checkpoint %s (%s) assigned to %s: opened %s, deadline %s, %s; a human's resolution is business, not an agent failure", c.ID, c.Type, c.Assignee, c.OpenedText, c.DeadlineText, orOpen(c.Resolution, c.ResolvedText))
	return p.dueLane(x0, x1, c.Deadline, label, false, col, cMuted, Mark{Kind: "human", Title: title, Search: search(c.ID, c.Type, c.Assignee, c.Resolution)})
}

func orOpen(res, at string) string {
	if res == "" {
		return "still open"
	}
	return res + " at " + at
}

func provisionalItem(p plot, pv ProvisionalSpan, end time.Time) item {
	x0, x1 := p.extent(pv.Entered, pv.Ended, end)
	var label, col string
	switch pv.Ending {
	case "reopened":
		label, col = "REOPENED → "+pv.WarrantyCycle, cBusiness
	case "finalized":
		label, col = "finalized (replay-final)", cOK
	default:
		label, col = "open at the end", cOpen
	}
	title := fmt.Sprintf("provisional close of %s entered %s, reopen window until %s; %s", pv.Cycle, pv.EnteredText, pv.UntilTxt, pv.Ending)
	if pv.Ended != nil {
		title += " at " + pv.EndedText
	}
	return p.dueLane(x0, x1, pv.ReopenUntil, label, true, col, cMuted, Mark{Kind: "human", Title: title, Search: search(pv.Cycle, pv.Ending, pv.WarrantyCycle)})
}

// findingItem is the mark of n identical findings g at one instant.
func findingItem(p plot, g FindingMark, n int, authored bool) item {
	x := p.x(g.At)
	label := g.Code
	if n > 1 {
		label += fmt.Sprintf(" ×%d", n)
	}
	title := fmt.Sprintf("%s (%s) at %s: %s", g.Code, g.Dimension, g.AtText, g.Detail)
	col := cRefused
	if authored {
		label += " (as authored)"
		title += "; the scenario authors this finding (its fault), so it is not an agent failure"
		col = cAuthored
	}
	return p.mk(x-4, x+4, label, false, col, func(y float64, m *Mark) {
		*m = Mark{Kind: "finding", Title: title, Search: search(g.Code, g.Dimension, g.Detail),
			Shapes: []Shape{{K: "r", X: x - 4, Y: y - 4, W: 8, H: 8, Fill: col}}}
	})
}
