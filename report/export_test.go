package report

// What only the tests use.

// Timeline returns the derived timeline.
func (r *Report) Timeline() *Timeline { return r.tl }
