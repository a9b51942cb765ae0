package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// The timeline is drawn at several zoom levels, each laid out here in full
// (the page's script only chooses which one is shown), so that every level's
// labels are placed, and tested, without a browser: no two text boxes of a
// chart overlap, and none leaves its drawing.

// Zooms are the plot widths, in pixels, of the zoom levels.
var Zooms = []float64{520, 1040, 2080, 4160}

// Geometry.
const (
	fontPx   = 11.0 // item and lane labels
	smallPx  = 10.0 // axis labels
	rowH     = 19.0
	laneGap  = 5.0
	headH    = 24.0
	axisH    = 44.0
	markerR  = 4.5
	minWidth = 3.0
	padX     = 6.0 // free margin at each side of a plot
	labelGap = 4.0 // between a mark and its label
	lineH    = 14.0
)

// Chart is one zoom level's timeline: a lane-label column and a plot of the
// same lanes, the same height.
type Chart struct {
	Zoom          int
	LabelW, PlotW float64 // drawing widths
	Height        float64
	Lanes         []LaneBox
	Marks         []Mark
	Grid          []Shape
	Axis          []Label // tick labels and the terminal's label
	Empty         []Label // "nothing here" notes in empty lanes
}

// LaneBox is one lane's band and its label lines.
type LaneBox struct {
	Y, H   float64
	Header bool
	Stripe bool
	Lines  []Label
	Title  string
}

// Mark is one drawn thing: shapes, an optional label, a hover title, and
// what search and filters match.
type Mark struct {
	Kind   string // filter category
	Title  string
	Search string
	Inv    int64 // the invocation a click opens, 0 for none
	Shapes []Shape
	Label  *Label
}

// Shape is one SVG primitive: c (circle), r (rect), p (path), l (line).
type Shape struct {
	K                  string
	X, Y, W, H, R      float64
	X2, Y2             float64
	D                  string
	Fill, Stroke, Dash string
	SW                 float64
	Rot                bool // a rect rotated 45° about its centre
}

// Label is one text box. X is the anchor point; X0..X1 and Y0..Y1 bound the
// text as measured.
type Label struct {
	Text           string
	X, Y           float64 // Y is the baseline
	X0, X1, Y0, Y1 float64
	Anchor         string // start, end or middle
	Fill           string
	Px             float64
	Bold, Italic   bool
}

func newLabel(s string, x, yCentre, px float64, anchor string, bold bool) Label {
	w := textWidth(s, px, bold)
	l := Label{Text: s, X: x, Y: yCentre + px*0.36, Anchor: anchor, Px: px, Bold: bold, Y0: yCentre - px*0.62, Y1: yCentre + px*0.62}
	switch anchor {
	case "end":
		l.X0, l.X1 = x-w, x
	case "middle":
		l.X0, l.X1 = x-w/2, x+w/2
	default:
		l.X0, l.X1 = x, x+w
	}
	return l
}

// Colours. Red is kept for what the agent got wrong; a human's decision is
// business (blue), an authored fault is an expectation (purple, dashed).
const (
	cExogenous = "#0969da"
	cReactive  = "#1a7f37"
	cTimer     = "#8250df"
	cRefused   = "#cf222e"
	cPost      = "#8c959f"
	cAgent     = "#1b1f24"
	cOK        = "#1a7f37"
	cWait      = "#7d8da1"
	cOpen      = "#9a6700"
	cCancelled = "#8c959f"
	cBusiness  = "#0550ae"
	cAuthored  = "#8250df"
	cRead      = "#57606a"
	cGrid      = "#eaeef2"
	cMuted     = "#57606a"
)

// item is a mark before packing, occupying [x0, x1].
type item struct {
	x0, x1 float64
	extra  int // rows below the item's own that its label takes
	build  func(y float64) Mark
}

type lane struct {
	label, title string
	header       bool
	items        []item
	rows         []int
	n            int
	touch        bool
	empty        string
	lines        []string
}

func (l *lane) pack() {
	l.rows = make([]int, len(l.items))
	order := make([]int, len(l.items))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(l.items[a].x0, l.items[b].x0)
	})
	gap := 6.0
	if l.touch {
		gap = -minWidth
	}
	var ends []float64
	for _, i := range order {
		it := l.items[i]
		placed := false
		for r, end := range ends {
			if it.x0 >= end+gap {
				ends[r], l.rows[i], placed = it.x1, r, true
				break
			}
		}
		if !placed {
			l.rows[i] = len(ends)
			ends = append(ends, it.x1)
		}
	}
	l.n = max(1, len(ends), len(l.lines))
	for i, it := range l.items {
		l.n = max(l.n, l.rows[i]+1+it.extra)
	}
}

func (l *lane) height() float64 {
	if l.header {
		return headH + float64(max(0, len(l.lines)-1))*lineH
	}
	return float64(l.n)*rowH + laneGap
}

type plot struct {
	start time.Time
	span  float64 // minutes
	w     float64 // plot width
}

func (p plot) x(t time.Time) float64 {
	if t.IsZero() {
		return padX
	}
	return padX + p.w*t.Sub(p.start).Minutes()/p.span
}

func (p plot) right() float64 { return padX + p.w + padX }

// place puts a label beside a mark spanning [xl, xr]: to its right, else to
// its left; failing both, on the row below, from the mark's start as far as
// the drawing allows (below reports that), or, where a lane has no row to
// spare, over the mark as far right as the drawing allows (the label has a
// halo, so it stays legible). It returns the label and the horizontal
// extent of mark and label together on the mark's row.
func (p plot) place(xl, xr, yc float64, s string, bold, spare bool) (l *Label, x0, x1 float64, below bool) {
	if s == "" {
		return nil, xl, xr, false
	}
	w := textWidth(s, fontPx, bold)
	var lb Label
	switch {
	case xr+labelGap+w <= p.right()-1:
		lb = newLabel(s, xr+labelGap, yc, fontPx, "start", bold)
	case xl-labelGap-w >= 1:
		lb = newLabel(s, xl-labelGap, yc, fontPx, "end", bold)
	case spare:
		lb = newLabel(s, math.Max(1, math.Min(xl, p.right()-1-w)), yc+rowH, fontPx, "start", bold)
		return &lb, xl, xr, true
	default:
		lb = newLabel(s, math.Max(1, p.right()-1-w), yc, fontPx, "start", bold)
	}
	return &lb, math.Min(xl, lb.X0), math.Max(xr, lb.X1), false
}

// mk builds an item whose label is placed at layout time: the label's
// vertical position is known only after packing, so it is re-made then.
func (p plot) mk(xl, xr float64, s string, bold bool, fill string, f func(y float64, m *Mark)) item {
	return p.mkLane(xl, xr, s, bold, false, fill, f)
}

// mkLane is mk for the one item of a lane, whose label may take the row
// below.
func (p plot) mkLane(xl, xr float64, s string, bold, spare bool, fill string, f func(y float64, m *Mark)) item {
	_, x0, x1, below := p.place(xl, xr, 0, s, bold, spare)
	it := item{x0: x0, x1: x1, build: func(y float64) Mark {
		var m Mark
		f(y, &m)
		if l, _, _, _ := p.place(xl, xr, y, s, bold, spare); l != nil {
			l.Fill = fill
			m.Label = l
		}
		return m
	}}
	if below {
		it.extra = 1
	}
	return it
}

func circle(x, y float64, fill, stroke string) Shape {
	return Shape{K: "c", X: x, Y: y, R: markerR, Fill: fill, Stroke: stroke, SW: 1.5}
}

func cross(x, y float64, col string) Shape {
	d := markerR
	return Shape{K: "p", D: fmt.Sprintf("M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f", x-d, y-d, x+d, y+d, x-d, y+d, x+d, y-d), Stroke: col, SW: 2.2, Fill: "none"}
}

func bar(x0, x1, y float64, col string) Shape {
	return Shape{K: "r", X: x0, Y: y - 4, W: math.Max(x1-x0, minWidth), H: 8, R: 2, Fill: col}
}

func dueMark(x, y float64, col string) Shape {
	return Shape{K: "p", D: fmt.Sprintf("M%.1f %.1fL%.1f %.1fL%.1f %.1fZ", x-4.5, y-9, x+4.5, y-9, x, y-2), Fill: col}
}

func search(parts ...string) string { return strings.ToLower(strings.Join(parts, " ")) }

// splitLabel breaks a lane label that is wider than w into lines at its
// separators (never inside a word).
func splitLabel(s string, w float64, bold bool) []string {
	if textWidth(s, fontPx, bold) <= w {
		return []string{s}
	}
	var lines []string
	cur := ""
	for _, tok := range tokens(s) {
		if cur != "" && textWidth(strings.TrimRight(cur+tok, " "), fontPx, bold) > w {
			lines = append(lines, strings.TrimRight(cur, " "))
			cur = ""
		}
		cur += tok
	}
	return append(lines, strings.TrimRight(cur, " "))
}

// tokens splits after each separator.
func tokens(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if r == ' ' || r == '_' || r == ':' || r == '·' {
			end := i + len(string(r))
			out = append(out, s[start:end])
			start = end
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
