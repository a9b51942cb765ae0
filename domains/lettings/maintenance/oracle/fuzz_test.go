package oracle_test

import (
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance/oracle"
	"github.com/obaudit/obaudit/refusal"
)

// FuzzLoad: whatever the bytes, Load returns a manifest or a classed
// refusal, never a panic or a classless error; a manifest it returns
// satisfies the partition rule for every control.
func FuzzLoad(f *testing.F) {
	f.Add(oracle.DefaultBytes())
	f.Add([]byte("controls: [\n"))
	f.Add([]byte("oracle_id: x\nprovenance: {authored_by: yes}\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := oracle.Load(b, "fuzz", vocab)
		if err != nil {
			if _, ok := refusal.ClassOf(err); !ok {
				t.Fatalf("classless error: %v", err)
			}
			return
		}
		for _, c := range m.Controls() {
			judged := map[string]int{}
			for _, d := range c.Closure {
				judged[d]++
			}
			for _, d := range c.MustPass {
				judged[d]++
			}
			for _, d := range vocab.Dimensions {
				if judged[d] != 1 {
					t.Fatalf("control %s judges %s %d times", c.AgentID, d, judged[d])
				}
			}
		}
	})
}
