package engine

import (
	"github.com/obaudit/obaudit/refusal"
)

// Playback is an agent that replays a recorded decision tape against a live
// episode. Every decision is bound to the observation it answered: its
// invocation and turn must be the ones the episode is asking for, and the
// offered observation must hash to the recorded digest. Anything else is a
// named refusal, never an improvised decision. BeginEpisode rewinds the tape,
// so one Playback replays identically however often it is run.
type Playback struct {
	tape   []map[string]any
	bad    error
	cursor int
}

// NewPlayback returns a playback agent for a tape (an artefact's
// "decisions" array, or [Episode.Decisions]).
func NewPlayback(decisions []any) *Playback {
	p := &Playback{}
	for i, d := range decisions {
		m, ok := d.(map[string]any)
		if !ok {
			p.bad = refusal.New(ErrMalformedDecision, "recorded decision %d is not an object", i)
			break
		}
		for _, k := range []string{"invocation_index", "turn_index", "observation_digest_sha256", "outcome"} {
			if _, ok := m[k]; !ok {
				p.bad = refusal.New(ErrMalformedDecision, "recorded decision %d is missing %q", i, k)
			}
		}
		p.tape = append(p.tape, m)
	}
	return p
}

// BeginEpisode implements [Agent].
func (p *Playback) BeginEpisode(AgentIdentity) { p.cursor = 0 }

// Cursor is how many recorded decisions have been replayed.
func (p *Playback) Cursor() int { return p.cursor }

// Decide implements [Agent].
func (p *Playback) Decide(obs *Observation) (Decision, error) {
	if p.bad != nil {
		return nil, p.bad
	}
	if p.cursor >= len(p.tape) {
		return nil, refusal.New(ErrTapeExhausted, "the episode asked for decision %d and the tape holds %d", p.cursor, len(p.tape))
	}
	rec := p.tape[p.cursor]
	inv, _ := rec["invocation_index"].(int64)
	turn, _ := rec["turn_index"].(int64)
	if inv != int64(obs.InvocationIndex) || turn != int64(obs.TurnIndex) {
		return nil, refusal.New(ErrDecisionOrder, "recorded decision %d was made on invocation %d turn %d and is being replayed at invocation %d turn %d",
			p.cursor, inv, turn, obs.InvocationIndex, obs.TurnIndex)
	}
	want, _ := rec["observation_digest_sha256"].(string)
	if got := obs.Digest(); got != want {
		return nil, refusal.New(ErrObservationMismatch, "recorded decision %d was made from an observation with digest %s, and the episode is offering %s", p.cursor, want, got)
	}
	out, ok := rec["outcome"].(map[string]any)
	if !ok {
		return nil, refusal.New(ErrMalformedDecision, "recorded decision %d has no outcome object", p.cursor)
	}
	d, err := DecisionFromRecord(out)
	if err != nil {
		return nil, err
	}
	p.cursor++
	return d, nil
}

// CheckExhausted refuses a run that ended with recorded decisions unused.
func (p *Playback) CheckExhausted() error {
	if p.cursor != len(p.tape) {
		return refusal.New(ErrTapeUnconsumed, "the episode ended after %d decision(s) and the tape holds %d", p.cursor, len(p.tape))
	}
	return nil
}
