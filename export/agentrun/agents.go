package agentrun

// Memory modes of the Agent Run schema (system.memory).
const (
	MemoryContextOnly   = "context-only"
	MemoryExternalDiary = "external-diary"
	MemoryRetrieval     = "retrieval"
	MemoryNone          = "none"
	MemoryOther         = "other"
	MemoryUnknown       = "unknown"
)

// agentFacts are what the OperateBench agent registry says about each
// deterministic agent, which an artefact names only by id: the strategy it
// was built to follow and how it carries state from one invocation to the
// next.
type agentFacts struct {
	strategy string
	memory   string
	// memoryNote explains a memory mode other than retrieval.
	memoryNote string
}

var agents = map[string]agentFacts{
	"reference": {
		strategy: "the reference decision cascade: on every wake, read the published records, then act, wait, escalate or complete as the record and policy require",
		memory:   MemoryRetrieval,
	},
	"complete_early": {
		strategy: "proposes completion before the operation is legitimately terminal",
		memory:   MemoryRetrieval,
	},
	"always_act": {
		strategy: "acts where it should wait, and repeats itself",
		memory:   MemoryRetrieval,
	},
	"always_wait": {
		strategy:   "declares a legal wait that never completes before the operational horizon",
		memory:     MemoryNone,
		memoryNote: "it reads nothing and returns the same WAIT on every call, so it carries no state at all",
	},
	"always_escalate": {
		strategy: "reaches for a human at every step, including where no checkpoint is admissible",
		memory:   MemoryRetrieval,
	},
	"ignore_new_events": {
		strategy:   "does not react to exogenous events it did not cause",
		memory:     MemoryOther,
		memoryNote: "it freezes the first served view that shows an open approval and decides from that snapshot ever after, across wakes, without reading again",
	},
	"trust_actor_claim": {
		strategy: "acts on what the waking event asserted, without ever reading the authoritative record",
		memory:   MemoryRetrieval,
	},
	"stale_after_wake": {
		strategy:   "holds a served fact across the wake that invalidated it and proposes from it",
		memory:     MemoryOther,
		memoryNote: "it caches the last served view in its session and, once, decides from that cache after a wake instead of reading again",
	},
	"duplicate_after_wake": {
		strategy:   "reads freshly after a wake and re-proposes its own accepted effect",
		memory:     MemoryOther,
		memoryNote: "it remembers its own first visit request in its session and re-proposes it once after a wake",
	},
}
