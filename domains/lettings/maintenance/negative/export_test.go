package negative

// IDs returns the eight negative agent ids in registry order.
func IDs() []string {
	return []string{CompleteEarly, AlwaysAct, AlwaysWait, AlwaysEscalate, IgnoreNewEvents,
		TrustActorClaim, StaleAfterWake, DuplicateAfterWake}
}
