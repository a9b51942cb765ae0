// Package report renders one episode artefact for an auditor: a
// self-contained HTML page with the episode on its simulated-time axis, the
// eleven dimensions with their counts and findings, and the digests; or the
// same content as plain text.
//
// # Format
//
// The HTML page is one file rendered with html/template, with no external
// assets: inline SVG for the timeline (laid out in Go at every zoom level, so
// a test proves no two labels overlap), one <style> and one <script> element
// (search, filters, zoom, opening an invocation), both admitted by a
// Content-Security-Policy meta tag by their SHA-256 hashes (default-src
// 'none', connect-src 'none'), so a browser opening it makes no network
// request. The page carries no generation time: the same inputs always
// render to the same bytes, in both formats.
//
// # Knowledge
//
// What the artefact does not carry comes from [Options]: the producing
// pack's roles, required reads and authored expectations, and a judgement
// of the verdict against what is authored for the agent ([Pack], filled by
// the caller from the domains registry and the gate), and a model-backed
// run's verified
// execution ledger (each call's tokens, cost, latency and status), which must
// be the ledger the artefact binds. Without them the page says what it could
// not show.
//
// # Refusals
//
//   - [ErrLedgerMismatch]: the execution ledger given is not the one the
//     artefact binds.
package report

import (
	"slices"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/execledger"
)

// Report is a rendered-to-be episode: the checked artefact, its timeline
// and its invocations in detail.
type Report struct {
	doc       *artefact.Document
	a         *artefact.Artefact
	events    []artefact.Event
	rows      []artefact.Row
	tl        *Timeline
	invs      []Invocation
	pack      *Pack
	ledger    *execledger.Audit
	expiry    Expiry
	judgement *Judgement
	carried   []string
}

// MarkCarried names the fields the validator carried rather than re-derived
// (a contract this build reads but does not reproduce, another engine or
// spec): the page then says so above the verdict, and presents the verdict
// as the record's, not as established.
func (r *Report) MarkCarried(fields []string) { r.carried = slices.Clone(fields) }

// Build derives the report's content from doc, an artefact the caller has
// read and validated ([artefact.Read]); nothing here parses it again. A
// ledger in opts must be the one the artefact binds ([ErrLedgerMismatch]).
func Build(doc *artefact.Document, opts Options) (*Report, error) {
	a := doc.Artefact
	r := &Report{doc: doc, a: a, events: a.DeliveredEvents(), rows: a.Rows(), ledger: opts.Ledger, expiry: opts.Expiry}
	r.tl = r.derive()
	if opts.Pack != nil {
		r.pack = opts.Pack(PackQuery{OperationType: a.Operation.OperationType, SpecDigest: a.Operation.SpecDigest, ScenarioID: a.ScenarioID, EngineVersion: a.EngineVersion})
	}
	if opts.Ledger != nil {
		if err := bindLedger(r, opts.Ledger); err != nil {
			return nil, err
		}
	}
	r.invs = r.invocations()
	if r.pack != nil && r.pack.Judge != nil {
		o := Observed{AgentID: a.AgentID, AgentKind: a.AgentKind, ScenarioID: a.ScenarioID, Status: a.Status,
			Reliable: a.Evaluation.Reliable, Failed: a.Evaluation.FailedDimensions, Findings: a.Evaluation.FindingCodes}
		for _, d := range a.Evaluation.Dimensions {
			if d.OK {
				o.Passed = append(o.Passed, d.Name)
			}
		}
		r.judgement = r.pack.Judge(o)
	}
	return r, nil
}
