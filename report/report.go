// Package report renders one episode artefact for an auditor: a
// self-contained HTML page with the episode on its simulated-time axis, the
// eleven dimensions with their counts and findings, and the digests; or the
// same content as plain text.
//
// # Format
//
// The HTML page is one file with no external assets and no scripts: inline
// SVG for the timeline and one <style> element, admitted by a
// Content-Security-Policy meta tag (default-src 'none', the style by its
// SHA-256 hash), so a browser opening it makes no network request. The page
// carries no generation time: the same artefact always renders to the same
// bytes, in both formats.
//
// # Refusals
//
//   - [ErrArtefactInvalid]: the artefact did not validate; nothing is rendered.
//   - [ErrUnreadable]: a validated artefact lacks something the report reads.
package report

import (
	"errors"

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

// Report is a rendered-to-be episode: the artefact's view and its timeline.
type Report struct {
	ep *episodeview.Episode
	tl *Timeline
}

// Build validates raw with v and derives the report's content. v is
// required; a nil v is a programming error, reported as a plain error.
func Build(raw []byte, v Validator) (*Report, error) {
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
	return &Report{ep: ep, tl: Derive(ep)}, nil
}

// Timeline returns the derived timeline.
func (r *Report) Timeline() *Timeline { return r.tl }
