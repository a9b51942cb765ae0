//go:build unix && !linux

package safefs

// openBeneath has no single-call form off Linux; the walk is used.
func openBeneath(rfd int, dirs []string, pre string) (int, error) { return -1, errNoOpenat2 }
