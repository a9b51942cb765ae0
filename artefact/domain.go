package artefact

import (
	"maps"
	"slices"
)

// Domain is what reading an artefact needs to know about one operation type
// that the format itself does not: which agents the build registers, which
// terminal classes exist, and how a canonical final state is shaped.
//
// Domain packs do not import this package (the dependency rule runs the
// other way); cmd/obaudit adapts a pack into a Domain and hands it to the
// reader through [Options].
type Domain struct {
	// OperationType is the operation.operation_type this entry validates.
	OperationType string
	// TerminalClasses are the values expected_terminal may take.
	TerminalClasses []string
	// Agents maps every registered in-process agent id to its kind
	// ("reference", "negative"). A deterministic record must name one of
	// them; a model or recorded record must name none of them.
	Agents map[string]string
	// ValidateState checks a final_state object against the domain's
	// canonical state shape. engineVersion and contract are the document's;
	// recovery is true for a contract-8 document of RecoveryVersion. It returns nil or an error describing the
	// first problem (its class, if any, is kept in the refusal's chain under
	// [ErrFinalState]). If an error in its chain has a method
	// StatePointer() string returning an RFC 6901 pointer relative to the
	// final state, the refusal's [Pointer] is "/final_state" followed by it.
	// It must not be nil.
	ValidateState func(state map[string]any, engineVersion string, contract int, recovery bool) error
	// RecoveryVersion is the operation_version of the domain's
	// delivery-recovery operation ("" for none): a contract-8 document of it
	// is read with recovery on, its trajectory admitting a side effect that
	// carries recovery_of and dispatch_channel "secondary" and re-sends
	// RecoveryFixture, and ValidateState called with recovery true.
	RecoveryVersion, RecoveryFixture string
}

// kinds returns the set of kinds the registry declares.
func (d *Domain) kinds() []string { return slices.Compact(slices.Sorted(maps.Values(d.Agents))) }

// Options configure reading and validation. The zero value registers no
// domain, so every artefact is refused with [ErrUnknownOperationType]: it
// fails closed rather than validating a final state against nothing.
type Options struct {
	// Domains are the operation types this reader can validate.
	Domains []Domain
}

func (o *Options) domain(operationType string) *Domain {
	for i := range o.Domains {
		if o.Domains[i].OperationType == operationType {
			return &o.Domains[i]
		}
	}
	return nil
}
