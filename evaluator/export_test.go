package evaluator

import (
	"errors"

	"github.com/obaudit/obaudit/canon"
)

// Count returns the named count.
func (d *Dimension) Count(name string) (int64, bool) {
	for _, c := range d.Counts {
		if c.Name == name {
			return c.Value, true
		}
	}
	return 0, false
}

// Dimension returns the named dimension.
func (e *Evaluation) Dimension(name string) (*Dimension, bool) {
	for i := range e.Dimensions {
		if e.Dimensions[i].Name == name {
			return &e.Dimensions[i], true
		}
	}
	return nil, false
}

// Tree returns the evaluation as the artefact's `evaluation` section: a
// canon value tree with upstream's field names. canon.Upstream of it is
// upstream's canonical form.
func (e *Evaluation) Tree() map[string]any {
	dims := make([]any, 0, len(e.Dimensions))
	for _, d := range e.Dimensions {
		findings := make([]any, 0, len(d.Findings))
		for _, f := range d.Findings {
			var at any
			if f.At != nil {
				at = *f.At
			}
			findings = append(findings, map[string]any{"code": f.Code, "detail": f.Detail, "at": at})
		}
		counts := make(map[string]any, len(d.Counts))
		for _, c := range d.Counts {
			counts[c.Name] = c.Value
		}
		dims = append(dims, map[string]any{
			"name":     d.Name,
			"ok":       d.OK,
			"findings": findings,
			"counts":   counts,
			"note":     d.Note,
		})
	}
	return map[string]any{
		"terminal_outcome":      e.TerminalOutcome,
		"legitimate_completion": e.LegitimateCompletion,
		"reliable":              e.Reliable(),
		"failed_dimensions":     canon.StringList(e.FailedDimensions()),
		"finding_codes":         canon.StringList(e.FindingCodes()),
		"dimensions":            dims,
	}
}

// RunFromArtefact reads the run fields of an episode artefact (a canon
// tree as canon.Parse returns it) into a Run, for tests that grade
// fixtures' trees (the binary grades checked documents: episode.Regrade). replayOK is the determinism
// self-check result to grade with (nil: not checked). Missing or mistyped
// fields are an error.
func RunFromArtefact(doc map[string]any, replayOK *bool) (Run, error) {
	var r Run
	var ok bool
	if r.Status, ok = doc["status"].(string); !ok {
		return r, errors.New("status is not a string")
	}
	if r.ReplayFinal, ok = doc["replay_final"].(bool); !ok {
		return r, errors.New("replay_final is not a boolean")
	}
	if r.SimulatedMinutes, ok = doc["simulated_minutes"].(int64); !ok {
		return r, errors.New("simulated_minutes is not an integer")
	}
	if r.AgentInvocations, ok = doc["agent_invocations"].(int64); !ok {
		return r, errors.New("agent_invocations is not an integer")
	}
	if _, ok = doc["final_state"].(map[string]any); !ok {
		return r, errors.New("final_state is not an object")
	}
	r.FinalState = doc["final_state"]
	if r.Trajectory, ok = doc["trajectory"].([]any); !ok {
		return r, errors.New("trajectory is not a list")
	}
	if r.Events, ok = doc["events"].([]any); !ok {
		return r, errors.New("events is not a list")
	}
	r.ReplayOK = replayOK
	return r, nil
}

// FreshRoot reads root from the records bodies served since the last
// invalidation, as retrieval discipline does.
func FreshRoot(bodies []map[string]any, root string) any { return freshRecords(bodies).get(root) }
