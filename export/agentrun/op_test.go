package agentrun

import "github.com/obaudit/obaudit/domains"

// defaultOp is what cmd/obaudit hands Export for the default pack's
// operation (exportOperation there).
func defaultOp() *Operation {
	pack := domains.Default()
	p := pack.Presentation
	op := &Operation{ReadTools: p.ReadTools, BusinessTerminals: pack.TerminalClasses, Agents: map[string]AgentFacts{}}
	for id, f := range p.Agents {
		op.Agents[id] = AgentFacts(f)
	}
	return op
}
