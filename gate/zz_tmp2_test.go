package gate_test

import (
	"testing"
	"time"

	"github.com/obaudit/obaudit/gate"
)

func TestTmpPerCheck(t *testing.T) {
	spec, m := defaults(t)
	s := subject(t, spec, m)
	for _, id := range s.Agents {
		a, _ := s.Lookup(id)
		scs := a.Scenarios
		if _, ok := s.Control(id); ok {
			scs = []string{"ctl"}
		}
		for _, sc := range scs {
			s2 := *s
			s2.Lookup = func(x string) (gate.Agent, error) {
				a, err := s.Lookup(x)
				if sc != "ctl" {
					a.Scenarios = []string{sc}
				}
				return a, err
			}
			var best time.Duration = 1 << 62
			for i := 0; i < 150; i++ {
				t0 := time.Now()
				if _, err := gate.Run(gate.Options{Subject: &s2, Agents: []string{id}, Sequential: true}); err != nil {
					t.Fatal(err)
				}
				if d := time.Since(t0); d < best {
					best = d
				}
			}
			t.Logf("%-22s %s %v", id, sc, best)
		}
	}
}
