// Package notimerecord reads and writes the stateful_time_removed run
// record (contract obaudit.arm.stateful_time_removed.run.v1): RFC 8785
// JSON, decoded once, held to the record's shape, every digest re-derived.
//
// The shape is checked by this package's named checks, one rule per
// field, which are the validator. The published JSON Schema
// (schemas/notime/v1.json, embedded by package schemas) is held to them as
// an oracle: TestSchemaOracle gives every committed record and a mutation
// corpus to both and requires one verdict, save documented exceptions
// where the named checks are stricter, never the other way.
package notimerecord

import (
	"bytes"
	"encoding/json"

	"github.com/obaudit/obaudit/arm/notimewire"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/limits"
	"github.com/obaudit/obaudit/refusal"
)

// Refusals of a record.
var (
	// ErrMalformed is returned for bytes that are not one strict JSON object.
	ErrMalformed = refusal.Sentinel("notimerecord/malformed")
	// ErrSchema is returned for a document not of the v1 record's shape
	// (an upstream contract-8 artefact among them: it names no contract);
	// the detail leads with the offending value's JSON pointer.
	ErrSchema = refusal.Sentinel("notimerecord/schema")
	// ErrNotCanonical is returned when the file is not the RFC 8785 encoding
	// of its content and a newline.
	ErrNotCanonical = refusal.Sentinel("notimerecord/not-canonical")
	// ErrDigest is returned when a recorded digest is not the digest of the
	// content it names.
	ErrDigest = refusal.Sentinel("notimerecord/digest-mismatch")
)

// Tree is v's canonical tree through its JSON encoding.
func Tree(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, refusal.Wrap(ErrMalformed, err, "encode")
	}
	return canon.Parse(b)
}

// PlanDigest is plan_digest_sha256: the JCS digest of the plan.
func PlanDigest(p *notimewire.PlanV1) (string, error) {
	t, err := Tree(p)
	if err != nil {
		return "", err
	}
	return canon.Digest(t)
}

// Encode is the record file: RFC 8785 JSON and a newline.
func Encode(r *notimewire.RunV1) ([]byte, error) {
	t, err := Tree(r)
	if err != nil {
		return nil, err
	}
	b, err := canon.JCS(t)
	if err != nil {
		return nil, refusal.Wrap(ErrMalformed, err, "encode")
	}
	return append(b, '\n'), nil
}

// Decode reads one record file and re-derives every digest it carries.
func Decode(b []byte) (*notimewire.RunV1, error) {
	if len(b) > limits.MaxArtefactBytes {
		return nil, limits.Exceeded("MaxArtefactBytes", limits.MaxArtefactBytes, int64(len(b)))
	}
	tree, err := canon.Parse(bytes.TrimSuffix(b, []byte("\n")))
	if err != nil {
		return nil, refusal.Wrap(ErrMalformed, err, "record")
	}
	m, ok := tree.(map[string]any)
	if !ok {
		return nil, refusal.New(ErrMalformed, "the record is not a JSON object")
	}
	if err := checkShape(m); err != nil {
		return nil, err
	}
	var r notimewire.RunV1
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&r); err != nil {
		return nil, refusal.Wrap(ErrMalformed, err, "record")
	}
	// The free-form trees are canon's (int64 and float64 numbers), not
	// encoding/json's: checkShape has held them to objects and lists, and
	// terminal_outcome and elapsed_minutes to a string or null.
	for i, row := range m["trajectory"].([]any) {
		r.Trajectory[i] = row.(map[string]any)
	}
	copy(r.Decisions, m["decisions"].([]any))
	r.FinalState = m["final_state"].(map[string]any)
	for i, e := range m["plan"].(map[string]any)["events"].([]any) {
		r.Plan.Events[i].Payload = e.(map[string]any)["payload"].(map[string]any)
	}
	again, err := Encode(&r)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(again, b) {
		return nil, refusal.New(ErrNotCanonical, "the file is not the RFC 8785 encoding of its content followed by one newline")
	}
	check := func(name, recorded string, v any) error {
		t, err := Tree(v)
		if err != nil {
			return err
		}
		got, err := canon.Digest(t)
		if err != nil {
			return refusal.Wrap(ErrMalformed, err, "%s", name)
		}
		if got != recorded {
			return refusal.New(ErrDigest, "%s is %s, the content's digest is %s", name, recorded, got)
		}
		return nil
	}
	for _, c := range []struct {
		name, rec string
		v         any
	}{{"trajectory_digest_sha256", r.TrajectoryDigest, r.Trajectory}, {"final_state_digest_sha256", r.FinalStateDigest, r.FinalState},
		{"decisions_digest_sha256", r.DecisionsDigest, r.Decisions}, {"plan_digest_sha256", r.PlanDigest, r.Plan}} {
		if err := check(c.name, c.rec, c.v); err != nil {
			return nil, err
		}
	}
	if err := coherent(&r); err != nil {
		return nil, err
	}
	return &r, nil
}

// ErrIncoherent is returned when a record's summary fields disagree with
// its own trajectory or final state.
var ErrIncoherent = refusal.Sentinel("notimerecord/incoherent")

// coherent holds the summary fields to the trajectory and final state they
// summarise (arms replay re-derives all of them by re-execution).
func coherent(r *notimewire.RunV1) error {
	if len(r.Trajectory) == 0 {
		return refusal.New(ErrIncoherent, "the trajectory is empty")
	}
	invoked := int64(0)
	last := int64(0)
	for i, row := range r.Trajectory {
		if row["index"] != int64(i) {
			return refusal.New(ErrIncoherent, "trajectory row %d has index %v", i, row["index"])
		}
		n, _ := row["transition"].(int64)
		if n < last {
			return refusal.New(ErrIncoherent, "trajectory row %d goes back to transition %d", i, n)
		}
		last = n
		if row["record_type"] == "agent_invoked" {
			invoked++
		}
	}
	end := r.Trajectory[len(r.Trajectory)-1]
	if end["record_type"] != "episode_ended" || end["halt"] != r.Halt || end["invocations"] != r.Invocations {
		return refusal.New(ErrIncoherent, "the closing row does not state halt %s and %d invocations", r.Halt, r.Invocations)
	}
	if invoked != r.Invocations || last != r.TransitionCount {
		return refusal.New(ErrIncoherent, "invocations %d / transitions %d, the trajectory has %d / %d", r.Invocations, r.TransitionCount, invoked, last)
	}
	if rf, ok := r.FinalState["replay_final"].(bool); ok && rf != r.ReplayFinal {
		return refusal.New(ErrIncoherent, "replay_final %v, the final state says %v", r.ReplayFinal, rf)
	}
	if r.ElapsedMinutes != nil {
		return refusal.New(ErrIncoherent, "elapsed_minutes is not null")
	}
	return nil
}
