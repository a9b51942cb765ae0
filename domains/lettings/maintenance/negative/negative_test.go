package negative_test

import (
	"slices"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance/negative"
)

func TestRegistry(t *testing.T) {
	want := []string{"complete_early", "always_act", "always_wait", "always_escalate", "ignore_new_events",
		"trust_actor_claim", "stale_after_wake", "duplicate_after_wake"}
	if got := negative.IDs(); !slices.Equal(got, want) {
		t.Fatalf("IDs() = %v", got)
	}
	for _, id := range want {
		if negative.New(id) == nil {
			t.Errorf("New(%s) = nil", id)
		}
	}
	if negative.New("reference") != nil {
		t.Error("New(reference) is not a negative")
	}
}
