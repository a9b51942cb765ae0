package domains

import "github.com/obaudit/obaudit/domains/lettings/maintenance"

// Presentation is what a pack states, for the readers of its artefacts
// (the episode report, the Agent Run export), that an artefact does not
// carry.
type Presentation struct {
	// ReadTools is the size of the operation's published read-tool
	// catalogue.
	ReadTools int
	// Expiry says how a human checkpoint that expires is recorded: it has no
	// resolution row; an accepted event of EventType whose payload names the
	// checkpoint under CheckpointKey closed it, as Resolution.
	Expiry struct{ EventType, CheckpointKey, Resolution string }
	// Agents states, for each registered agent id, the strategy it was built
	// to follow and how it carries state from one invocation to the next.
	Agents map[string]AgentFacts
}

// AgentFacts is what the agent registry says about one agent. Memory is
// in the Agent Run schema's vocabulary (system.memory); MemoryNote explains
// a mode other than retrieval.
type AgentFacts struct {
	Strategy, Memory, MemoryNote string
}

func maintenancePresentation() Presentation {
	return Presentation{
		ReadTools: len(maintenance.Tools),
		Expiry:    struct{ EventType, CheckpointKey, Resolution string }{maintenance.CheckpointExpiryEvent, "checkpoint_id", "EXPIRED"},
		Agents: map[string]AgentFacts{
			"reference":       {Strategy: "the reference decision cascade: on every wake, read the published records, then act, wait, escalate or complete as the record and policy require", Memory: "retrieval"},
			"complete_early":  {Strategy: "proposes completion before the operation is legitimately terminal", Memory: "retrieval"},
			"always_act":      {Strategy: "acts where it should wait, and repeats itself", Memory: "retrieval"},
			"always_wait":     {Strategy: "declares a legal wait that never completes before the operational horizon", Memory: "none", MemoryNote: "it reads nothing and returns the same WAIT on every call, so it carries no state at all"},
			"always_escalate": {Strategy: "reaches for a human at every step, including where no checkpoint is admissible", Memory: "retrieval"},
			"ignore_new_events": {Strategy: "does not react to exogenous events it did not cause", Memory: "other",
				MemoryNote: "it freezes the first served view that shows an open approval and decides from that snapshot ever after, across wakes, without reading again"},
			"trust_actor_claim": {Strategy: "acts on what the waking event asserted, without ever reading the authoritative record", Memory: "retrieval"},
			"stale_after_wake": {Strategy: "holds a served fact across the wake that invalidated it and proposes from it", Memory: "other",
				MemoryNote: "it caches the last served view in its session and, once, decides from that cache after a wake instead of reading again"},
			"duplicate_after_wake": {Strategy: "reads freshly after a wake and re-proposes its own accepted effect", Memory: "other",
				MemoryNote: "it remembers its own first visit request in its session and re-proposes it once after a wake"},
		},
	}
}
