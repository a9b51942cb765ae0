package agentrun

import "slices"

// Memory modes of the Agent Run schema (system.memory).
const (
	MemoryContextOnly   = "context-only"
	MemoryExternalDiary = "external-diary"
	MemoryRetrieval     = "retrieval"
	MemoryNone          = "none"
	MemoryOther         = "other"
	MemoryUnknown       = "unknown"
)

// Operation is what the pack that executes an artefact's operation states
// about it and the artefact does not carry. The export imports no pack:
// cmd/obaudit fills this in from the domains registry. Nil (or a zero
// field) means not known: tools_available is null, every status reads as
// an execution status, and an agent's strategy and memory are unknown.
type Operation struct {
	// ReadTools is the size of the operation's published read-tool
	// catalogue (system.tools_available).
	ReadTools int
	// BusinessTerminals are the terminal classes the operation can reach.
	BusinessTerminals []string
	// Agents are the registry's facts about each deterministic agent,
	// which an artefact names only by id.
	Agents map[string]AgentFacts
}

// AgentFacts are the strategy an agent was built to follow and how it
// carries state from one invocation to the next (Memory is a system.memory
// mode; MemoryNote explains one other than retrieval).
type AgentFacts struct {
	Strategy, Memory, MemoryNote string
}

func (o *Operation) agent(id string) (AgentFacts, bool) {
	if o == nil {
		return AgentFacts{}, false
	}
	f, ok := o.Agents[id]
	return f, ok
}

func (o *Operation) businessTerminal(status string) bool {
	return o != nil && slices.Contains(o.BusinessTerminals, status)
}
