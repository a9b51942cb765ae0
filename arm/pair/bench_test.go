package pair_test

import (
	"testing"

	"github.com/obaudit/obaudit/arm/pair"
)

// BenchmarkNoTimeV1Reference is one No-Time episode of the reference agent
// on V1 (compile and run).
func BenchmarkNoTimeV1Reference(b *testing.B) {
	d, a := setup(b, "V1", "reference")
	for b.Loop() {
		if _, err := pair.NoTimeRun(d, a, inst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyV1Pair is the independent matching proof of the V1
// reference pair.
func BenchmarkVerifyV1Pair(b *testing.B) {
	d, a := setup(b, "V1", "reference")
	ep, nt := run(b, pair.FullRun, d, a), run(b, pair.NoTimeRun, d, a)
	for b.Loop() {
		if _, err := pair.Verify(d, ep, nt); err != nil {
			b.Fatal(err)
		}
	}
}
