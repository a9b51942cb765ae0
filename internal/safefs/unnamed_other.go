//go:build unix && !linux

package safefs

// createUnnamed has no unnamed-file form off Linux: CreateFile creates the
// name itself.
func (d *Dir) createUnnamed(perm uint32) (int, func(string) error, bool) { return -1, nil, false }
