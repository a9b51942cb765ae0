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
//   - [ErrArtefactInvalid]: the artefact did not validate; nothing is rendered.
//   - [ErrUnreadable]: a validated artefact lacks something the report reads.
//   - [ErrLedgerMismatch]: the execution ledger given is not the one the
//     artefact binds.
package report

import (
	"errors"
	"slices"

	"github.com/obaudit/obaudit/execledger"
	"github.com/obaudit/obaudit/internal/episodeview"
	"github.com/obaudit/obaudit/refusal"
)

// Refusal classes.
var (
	// ErrArtefactInvalid is returned by Build when the injected validator
	// refuses the artefact; the validator's refusal is kept as the cause.
	ErrArtefactInvalid = refusal.Sentinel("report/artefact-invalid")
	// ErrUnreadable is returned by Build when a validated artefact lacks a
	// field the report reads, or has one of the wrong kind.
	ErrUnreadable = refusal.Sentinel("report/unreadable")
)

// Validator establishes an artefact's coherence before it is rendered; the
// artefact package's validation satisfies it. (It has the same method as
// export/agentrun's ArtefactValidator, so one adapter serves both.)
type Validator interface {
	ValidateArtefact(raw []byte) error
}

// ValidatorFunc adapts a function to [Validator].
type ValidatorFunc func(raw []byte) error

// ValidateArtefact calls f.
func (f ValidatorFunc) ValidateArtefact(raw []byte) error { return f(raw) }

// Report is a rendered-to-be episode: the artefact's view, its timeline and
// its invocations in detail.
type Report struct {
	ep        *episodeview.Episode
	tl        *Timeline
	invs      []Invocation
	pack      *Pack
	ledger    *execledger.Audit
	judgement *Judgement
	carried   []string
}

// MarkCarried names the fields the validator carried rather than re-derived
// (a contract this build reads but does not reproduce, another engine or
// spec): the page then says so above the verdict, and presents the verdict
// as the record's, not as established.
func (r *Report) MarkCarried(fields []string) { r.carried = slices.Clone(fields) }

// Build validates raw with v and derives the report's content. v is
// required; a nil v is a programming error, reported as a plain error. A
// ledger in opts must be the one the artefact binds ([ErrLedgerMismatch]).
func Build(raw []byte, v Validator, opts Options) (*Report, error) {
	if v == nil {
		return nil, errors.New("report: Build needs an artefact validator")
	}
	if err := v.ValidateArtefact(raw); err != nil {
		if _, ok := refusal.ClassOf(err); !ok {
			return nil, err
		}
		return nil, refusal.Wrap(ErrArtefactInvalid, err, "not rendered")
	}
	ep, err := episodeview.Parse(raw)
	if err != nil {
		return nil, refusal.Wrap(ErrUnreadable, err, "")
	}
	if len(ep.Evaluation.Dimensions) == 0 {
		return nil, refusal.New(ErrUnreadable, "the artefact carries no graded dimensions")
	}
	r := &Report{ep: ep, tl: Derive(ep), ledger: opts.Ledger}
	if opts.Pack != nil {
		r.pack = opts.Pack(PackQuery{OperationType: ep.Operation.Type, SpecDigest: ep.Operation.SpecDigest, ScenarioID: ep.ScenarioID, EngineVersion: ep.EngineVersion})
	}
	if opts.Ledger != nil {
		if err := bindLedger(r, opts.Ledger); err != nil {
			return nil, err
		}
	}
	r.invs = invocations(ep, r.pack, r.ledger)
	if r.pack != nil && r.pack.Judge != nil {
		o := Observed{AgentID: ep.AgentID, AgentKind: ep.AgentKind, ScenarioID: ep.ScenarioID, Status: ep.Status,
			Reliable: ep.Evaluation.Reliable, Failed: ep.Evaluation.FailedDimensions, Findings: ep.Evaluation.FindingCodes}
		for _, d := range ep.Evaluation.Dimensions {
			if d.OK {
				o.Passed = append(o.Passed, d.Name)
			}
		}
		r.judgement = r.pack.Judge(o)
	}
	return r, nil
}

// Timeline returns the derived timeline.
func (r *Report) Timeline() *Timeline { return r.tl }
