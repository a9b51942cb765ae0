package execledger

import (
	"bytes"
	"strings"
	"testing"
)

// TestScanNeverQuotes: the offending value is not in the refusal.
func TestScanNeverQuotes(t *testing.T) {
	err := Scan(map[string]any{"k": "Bearer credential-secret-fragment-91c2"}, "row")
	if err == nil || strings.Contains(err.Error(), "credential-secret-fragment") {
		t.Errorf("Scan = %v", err)
	}
}

// TestRecoverablePrefix is T6–T7: every proper prefix of a real row (with
// multi-byte text) and of a dense JSON document is recoverable; complete
// objects are not.
func TestRecoverablePrefix(t *testing.T) {
	docs := [][]byte{
		[]byte(`{"array": [true, false, null, -12, 0, 3.50e-2, {"escaped": "quote\" slash\\ newline\n unicode\u20ac"}]}`),
		[]byte(`{"settings": {"unicode_label": "模型-é", "n": [1.5, -0.0, 1e+16, []], "o": {}}, "k": "v"}`),
		[]byte(`{"a": [[], [[]], {}], "b": "\ud83d\ude00 😀"}`),
	}
	for _, d := range docs {
		for i := 0; i < len(d); i++ {
			if !recoverablePrefix(d[:i]) {
				t.Errorf("prefix %q of a real object is not recoverable", d[:i])
			}
		}
		if recoverablePrefix(d) {
			t.Errorf("complete object %q read as a prefix", d)
		}
	}
	for _, frag := range []string{"}{", "{}garbage", "\xff", "\x80", "\xc0", "\xe2(", "\xed\xa0\x80", "\xf0\x80\x80\x80",
		"{\"x\":\"\\q", "{\"x\":\"\\u12x", "{\"x\":\"\x01", "{\"x\":\"line\nmore", "{\"x\":]", "{\"x\" 1", "{\"x\"::",
		"{\"x\":1 \"y\"", "{\"x\":1,,", "{\"x\":01", "{\"x\":1.e", "{\"x\":truX", "{\"x\":True", "{}{}", "{\"x\":1}}",
		"{\"x\":1,}", "   ", "\"scalar", "[", "{\"x\":NaN", "{\"x\":\xe2\x82", "{\"x\":\"\xed\xa0"} {
		if recoverablePrefix([]byte(frag)) {
			t.Errorf("recoverablePrefix(%q) = true, want false", frag)
		}
	}
	if !recoverablePrefix([]byte("{\"terminal\":\"\xe2")) || !recoverablePrefix([]byte("{\"t\":\"\xf0\x9f\x98")) {
		t.Error("a cut inside a multi-byte character inside a string is recoverable")
	}
}

// TestTornRows is T8: every cut of a call row and of the terminal row after
// a verified prefix reads as incomplete with a truncated tail.
func TestTornRows(t *testing.T) {
	for _, v := range []int{2, 3} {
		data := upstreamStyle(t, v)
		lines := bytes.SplitAfter(data, []byte("\n"))
		for row := 1; row < len(lines)-1; row++ {
			before := bytes.Join(lines[:row], nil)
			line := bytes.TrimSuffix(lines[row], []byte("\n"))
			for cut := 1; cut < len(line); cut += 7 {
				a, err := Read(bytes.NewReader(append(append([]byte(nil), before...), line[:cut]...)), Options{})
				if err != nil {
					t.Fatalf("v%d row %d cut %d: Read = %v", v, row, cut, err)
				}
				if a.Complete() || !a.TruncatedTail || a.RowsVerified != row {
					t.Fatalf("v%d row %d cut %d: status %s truncated %v rows %d", v, row, cut, a.Status(), a.TruncatedTail, a.RowsVerified)
				}
			}
		}
	}
}
