package limits

import (
	"math/rand/v2"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

// stateCount is the count countValues makes, as a byte-at-a-time state
// machine: the oracle countValues is held to.
func stateCount(b []byte) int64 {
	var values int64 = 1
	in, esc := false, false
	for _, c := range b {
		switch {
		case in:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				in = false
			}
		case c == '"':
			in = true
		case c == ',' || c == '[' || c == '{':
			values++
		}
	}
	return values
}

// TestCountValuesIsStateMachine: countValues counts as the state machine
// does on every input of up to seven bytes over the bytes that matter (and
// one that does not), on long random ones, and on the upstream artefacts.
func TestCountValuesIsStateMachine(t *testing.T) {
	const alphabet = "\"\\,[{x"
	check := func(b []byte) {
		t.Helper()
		if got, want := countValues(b), stateCount(b); got != want {
			t.Fatalf("countValues(%q) = %d, want %d", b, got, want)
		}
	}
	var b []byte
	var gen func(n int)
	gen = func(n int) {
		check(b)
		if n == 0 {
			return
		}
		for i := range len(alphabet) {
			b = append(b, alphabet[i])
			gen(n - 1)
			b = b[:len(b)-1]
		}
	}
	gen(7)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(400))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(b)
	}
	for _, f := range []string{"artifact8-deterministic-reference-v1.json", "artifact8-fake-openai-reference-v1.json", "artifact1-reference-V1.json"} {
		check(upstreamtest.Read(t, f))
	}
}
