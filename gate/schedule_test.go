package gate

import (
	"slices"
	"testing"
)

// TestScheduleOrder: the costliest checks start first, equal costs keep
// their job order, and without a cost estimate the pool starts the checks
// in job order.
func TestScheduleOrder(t *testing.T) {
	var jobs []job
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		jobs = append(jobs, job{entry: Agent{ID: id}, scenario: "V1"})
	}
	cost := map[string]int{"a": 1, "b": 5, "c": 1, "d": 9, "e": 5}
	s := &Subject{Cost: func(id, scenario string) int { return cost[id] }}
	if got, want := scheduleOrder(s, jobs), []int{3, 1, 4, 0, 2}; !slices.Equal(got, want) {
		t.Errorf("scheduleOrder = %v, want %v", got, want)
	}
	if got, want := scheduleOrder(&Subject{}, jobs), []int{0, 1, 2, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("scheduleOrder without costs = %v, want %v", got, want)
	}
}
