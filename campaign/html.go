package campaign

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"
)

// WriteHTML writes the report as one self-contained page: inline CSS and
// SVG charts (the funnel per arm, Reliable Operation Rate and critical
// violations per subject), no script, no external resource.
func (r *Report) WriteHTML(w io.Writer) error {
	return htmlTmpl().Execute(w, r)
}

func funnelSVG(a Arm) template.HTML {
	var b strings.Builder
	const width, bar = 640.0, 22.0
	total := 1
	if len(a.Funnel) > 0 && a.Funnel[0].Count > 0 {
		total = a.Funnel[0].Count
	}
	h := int(bar+8) * len(a.Funnel)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="state funnel of arm %s">`, int(width)+220, h, template.HTMLEscapeString(a.Arm))
	for i, s := range a.Funnel {
		y := i * int(bar+8)
		wd := width * float64(s.Count) / float64(total)
		fmt.Fprintf(&b, `<text x="0" y="%d" font-size="13">%s</text>`, y+16, template.HTMLEscapeString(s.Stage))
		fmt.Fprintf(&b, `<rect x="160" y="%d" width="%.1f" height="%.0f" fill="#3b6ea5"/>`, y, wd, bar)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="13">%d</text>`, 166+wd, y+16, s.Count)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

func ratesSVG(cells []Cell) template.HTML {
	var b strings.Builder
	const width, bar = 400.0, 14.0
	row := int(2*bar + 12)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="rates per subject">`, int(width)+420, row*len(cells)+30)
	fmt.Fprintf(&b, `<rect x="10" y="2" width="12" height="12" fill="#2e8b57"/><text x="28" y="13" font-size="12">Reliable Operation Rate (of assigned)</text>`)
	fmt.Fprintf(&b, `<rect x="290" y="2" width="12" height="12" fill="#c0392b"/><text x="308" y="13" font-size="12">critical violation rate (of scored) with 95%% upper bound</text>`)
	for i, c := range cells {
		y := 24 + i*row
		fmt.Fprintf(&b, `<text x="0" y="%d" font-size="13">%s</text>`, y+bar+2, template.HTMLEscapeString(c.Subject+" · "+c.Arm))
		for _, m := range c.Metrics {
			if m.Name != "reliable_operation_rate" && m.Name != "critical_violation_rate" {
				continue
			}
			v := 0.0
			if m.Value != nil {
				v = *m.Value
			}
			yy := y
			color := "#2e8b57"
			if m.Name == "critical_violation_rate" {
				yy += int(bar)
				color = "#c0392b"
			}
			fmt.Fprintf(&b, `<rect x="300" y="%d" width="%.1f" height="%.0f" fill="%s"/>`, yy, width*v, bar-2, color)
			label := fmt.Sprintf("%d/%d", m.Numerator, m.Denominator)
			if m.UpperBound95 != nil {
				ux := 300 + width**m.UpperBound95
				fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#000" stroke-width="2"/>`, ux, ux, yy, yy+int(bar)-2)
				label += fmt.Sprintf(" ≤ %.3f", *m.UpperBound95)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="11">%s</text>`, 306+width*v, yy+int(bar)-3, template.HTMLEscapeString(label))
		}
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// pageStyle is the page's one stylesheet; the CSP admits it by hash.
const pageStyle = `body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:8px 0 18px}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:left}
.note{background:#fff4d6;padding:8px;border-left:4px solid #e0a800}code{font-size:12px}
.mx{font-family:monospace;letter-spacing:1px}
`

// CSP is the page's Content-Security-Policy: nothing may load, and the
// one inline stylesheet is admitted by its SHA-256.
var CSP = func() string {
	sum := sha256.Sum256([]byte(pageStyle))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'none'; font-src 'none'; connect-src 'none'; script-src 'none'; base-uri 'none'; form-action 'none'"
}()

// htmlTmpl is parsed on first use, not at start-up.
var htmlTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"funnel": funnelSVG, "rates": ratesSVG, "val": fmtVal, "noInterval": func() string { return NoInterval },
		"one":   func(r *Report) bool { return len(r.SemanticScenarios) < 2 },
		"style": func() template.CSS { return template.CSS(pageStyle) },
		"csp":   func() string { return CSP },
	}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{csp}}">
<title>Campaign {{.Campaign}}</title>
<style>{{style}}</style></head><body>
<h1>Campaign {{.Campaign}}</h1>
<p>Origin <code>{{.Origin}}</code>; plan sha256 <code>{{.PlanSHA256}}</code>; log size {{.LogSize}}, root <code>{{.LogRoot}}</code>. Assigned identities: {{.Assigned}}.</p>
{{if one .}}<p class="note">{{noInterval}}: the outcomes come from one Semantic Scenario ({{range .SemanticScenarios}}{{.}}{{end}}). Its variants are one semantic unit, not independent samples; the raw per-trial matrix is the result.</p>{{end}}
<h2>State funnel</h2>
{{range .Arms}}<h3>arm {{.Arm}}</h3>{{funnel .}}
<p>SUCCESS {{index .Status "SUCCESS"}}, FAILURE {{index .Status "FAILURE"}}, ERROR {{index .Status "ERROR"}}, not ended {{index .Status "not_ended"}}. Excluded by reason: {{range $k, $v := .ExcludedByReason}}{{$k}}={{$v}} {{else}}none{{end}}</p>{{end}}
<h2>Rates</h2>
{{rates .Cells}}
{{range .Cells}}<h3>{{.Kind}} {{.Subject}} · arm {{.Arm}}</h3>
<table><tr><th>metric</th><th>x/N</th><th>value</th><th>95% upper</th><th>cluster SE</th></tr>
{{range .Metrics}}<tr><td>{{.Name}}</td><td>{{.Numerator}}/{{.Denominator}}</td><td>{{val .Value}}</td><td>{{if .UpperBound95}}{{val .UpperBound95}}{{end}}</td><td>{{if .ClusterSE}}{{val .ClusterSE}}{{else}}{{.Interval}}{{end}}</td></tr>{{end}}
<tr><td>stability@{{.Stability.K}}</td><td></td><td>{{if .Stability.Value}}{{val .Stability.Value}}{{else}}refused: {{.Stability.Refused}}{{end}}</td><td></td><td></td></tr>
</table>
<p>Per-trial matrix (S success, F failure, E error, . not ended):</p>
{{range .Matrix}}<div class="mx">{{.Variant}} {{.Trials}}</div>{{end}}{{end}}
{{if .Paired}}<h2>Paired differences</h2><table><tr><th>first − second</th><th>arm</th><th>pairs</th><th>both</th><th>only first</th><th>only second</th><th>neither</th><th>mean</th><th>SE</th></tr>
{{range .Paired}}<tr><td>{{index .Subjects 0}} − {{index .Subjects 1}}</td><td>{{.Arm}}</td><td>{{.Pairs}}</td><td>{{.Both}}</td><td>{{.OnlyA}}</td><td>{{.OnlyB}}</td><td>{{.Neither}}</td><td>{{printf "%.4f" .Mean}}</td><td>{{if .SE}}{{val .SE}}{{else}}{{.Interval}}{{end}}</td></tr>{{end}}</table>{{end}}
{{if .Ineligible}}<h2>Ineligible cells</h2><p>No identity assigned: the arm's protocol refuses these variants.</p><ul>{{range .Ineligible}}<li>{{.Arm}} on {{.Variant}}: {{.Class}}</li>{{end}}</ul>{{end}}
{{if .Deltas}}<h2>δ (stateful_time_removed − full_lifecycle, CommonOutcomeV1 SUCCESS)</h2><table><tr><th>subject</th><th>semantic scenario</th><th>pairs</th><th>No-Time SUCCESS</th><th>Full SUCCESS</th><th>δ</th><th>interval</th></tr>
{{range .Deltas}}<tr><td>{{.Subject}}</td><td>{{.SemanticScenario}}</td><td>{{.Pairs}}</td><td>{{.NoTimeSuccess}}</td><td>{{.FullSuccess}}</td><td>{{if .Value}}{{val .Value}}{{else}}undefined{{end}}</td><td>{{.Interval}}</td></tr>
<tr><td colspan="7">{{range .Matrix}}<div class="mx">{{.Variant}} full {{.Full}} | notime {{.NoTime}}</div>{{end}}{{range .Ineligible}}<div class="mx">{{.Variant}} ineligible: {{.Class}}</div>{{end}}</td></tr>{{end}}</table>{{end}}
<h2>Definitions</h2><table>{{range .Definitions}}<tr><td>{{.Name}}</td><td>{{.Formula}}</td></tr>{{end}}</table>
</body></html>
`))
})
