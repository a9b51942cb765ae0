// Package decision is the decision vocabulary of the decision tape: the
// kinds an agent's answer is recorded as (the "kind" of an agent_outcome
// row's outcome and of every decisions[] entry). The engine builds
// decisions of these kinds and the artefact reader holds recorded ones to
// them; both use this one definition. It is a leaf: it imports nothing of
// the project.
package decision

// Decision kinds, spelled as the tape spells them.
const (
	KindAct       = "ACT"
	KindWait      = "WAIT"
	KindAsk       = "ASK"
	KindEscalate  = "ESCALATE"
	KindComplete  = "COMPLETE"
	KindRetrieve  = "RETRIEVE"
	KindMalformed = "MALFORMED"
)
