package oracle

import "slices"

// DefaultBytes returns a copy of the shipped manifest's bytes.
func DefaultBytes() []byte { return slices.Clone(defaultManifest) }

// AgentIDs returns the declared agents in file order.
func (m *Manifest) AgentIDs() []string {
	out := make([]string, len(m.controls))
	for i, c := range m.controls {
		out[i] = c.AgentID
	}
	return out
}

// Controls returns copies of every control, in file order.
func (m *Manifest) Controls() []Control {
	out := make([]Control, len(m.controls))
	for i, c := range m.controls {
		out[i] = c.clone()
	}
	return out
}

// Targets is the agent's causal failure closure (a read-only view: a copy),
// or nil if the oracle declares no control for it.
func (m *Manifest) Targets(agentID string) []string {
	c, _ := m.Control(agentID)
	return c.Closure
}

// MustPass is the agent's must-pass dimensions, or nil.
func (m *Manifest) MustPass(agentID string) []string {
	c, _ := m.Control(agentID)
	return c.MustPass
}
