package schema

import "testing"

// The embedded contract-8 schema compiles with remote loading refused: it
// needs nothing from outside the binary.
func TestCompilesFromEmbeddedBytesOnly(t *testing.T) {
	c, err := compiled()
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	if c.root == nil || c.row == nil || len(c.rows) != 34 {
		t.Fatalf("compiled %d row schemas, want 34 (one per contract-8 record type)", len(c.rows))
	}
}
