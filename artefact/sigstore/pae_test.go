package sigstore

import (
	"bytes"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// TestPAE: pae is go-securesystemslib's dsse.PAE, byte for byte.
func TestPAE(t *testing.T) {
	for _, c := range []struct{ typ, body string }{
		{"", ""}, {InTotoPayloadType, ""}, {InTotoPayloadType, "{}"},
		{"t", "body with spaces and \x00 and é"}, {"application/x", string(bytes.Repeat([]byte("x"), 1234))},
	} {
		if got, want := pae(c.typ, []byte(c.body)), dsse.PAE(c.typ, []byte(c.body)); !bytes.Equal(got, want) {
			t.Errorf("pae(%q, %d bytes) = %q, want %q", c.typ, len(c.body), got, want)
		}
	}
}
