package canon_test

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gowebpki/jcs"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
)

// TestVectors checks every input/NAME.json against output/NAME.json (RFC
// 8785, produced by Node.js) and upstream/NAME.json (upstream form,
// produced by Python's json.dumps); see testdata/gen.sh.
func TestVectors(t *testing.T) {
	inputs, err := filepath.Glob("testdata/input/*.json")
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	for _, in := range inputs {
		name := filepath.Base(in)
		t.Run(name, func(t *testing.T) {
			raw := mustRead(t, in)
			for _, tc := range []struct {
				dir  string
				form canon.Form
			}{{"output", canon.JCSForm}, {"upstream", canon.UpstreamForm}} {
				want := mustRead(t, filepath.Join("testdata", tc.dir, name))
				got, err := canon.TransformForm(raw, tc.form)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("TransformForm(%s, %s) = %s, %v\nwant %s", name, tc.form, got, err, want)
				}
				v, err := canon.Parse(raw)
				if err != nil {
					t.Fatalf("Parse(%s) = %v", name, err)
				}
				got, err = canon.Encode(v, tc.form)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("Encode(Parse(%s), %s) = %s, %v\nwant %s", name, tc.form, got, err, want)
				}
			}
		})
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRFC8785Numbers is RFC 8785 Appendix B: IEEE-754 bit patterns and their
// canonical text, through the number formatter; the value encoder adds the
// I-JSON restriction (integral floats beyond ±(2^53−1) below 1e21 refused).
func TestRFC8785Numbers(t *testing.T) {
	for _, tc := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		f := math.Float64frombits(tc.bits)
		got, err := canon.FormatES6(f)
		if err != nil || got != tc.want {
			t.Errorf("FormatES6(%#x) = %s, %v; want %s", tc.bits, got, err, tc.want)
		}
		if ref, err := jcs.NumberToJSON(f); err != nil || ref != got {
			t.Errorf("gowebpki NumberToJSON(%#x) = %s, %v; ours %s", tc.bits, ref, err, got)
		}
		enc, err := canon.JCS(f)
		unsafe := math.Abs(f) > canon.MaxSafeInteger && math.Abs(f) < 1e21 && f == math.Trunc(f)
		switch {
		case unsafe && string(refusal.Of(err)) != canon.ErrNumberOutOfRange.Class:
			t.Errorf("JCS(%#x) = %s, %v; want %s", tc.bits, enc, err, canon.ErrNumberOutOfRange.Class)
		case !unsafe && (err != nil || string(enc) != tc.want):
			t.Errorf("JCS(%#x) = %s, %v; want %s", tc.bits, enc, err, tc.want)
		}
	}
	for _, bits := range []uint64{0x7fffffffffffffff, 0x7ff0000000000000, 0xfff0000000000000} {
		if _, err := canon.JCS(math.Float64frombits(bits)); string(refusal.Of(err)) != canon.ErrNonFinite.Class {
			t.Errorf("JCS(%#x) = %v, want %s", bits, err, canon.ErrNonFinite.Class)
		}
	}
}

// TestRecordVersions are the upstream 16-hex record versions
// (maintenance-domain.md §1.2): SHA-256 prefixes of upstream canonical JSON.
func TestRecordVersions(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"authoritative_records":{}}`, "9a933c222264cc37"},
		{`{"quotes":{}}`, "6e61b71ef64f5ad4"},
		{`{"communications":[]}`, "91332e0f24e79402"},
		{`{"obligations":{}}`, "446e4700b9124118"},
		{`{"approvals":{},"exceptions":{}}`, "4fdc013bf0aae121"},
	} {
		v, err := canon.Parse([]byte(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		d, err := canon.UpstreamDigest(v)
		if err != nil || d[:16] != tc.want {
			t.Errorf("UpstreamDigest(%s)[:16] = %s, %v; want %s", tc.body, d, err, tc.want)
		}
	}
}

func TestDigestIsSHA256OfJCS(t *testing.T) {
	v := map[string]any{"b": 1, "a": []any{"x", 2.5}}
	d, err := canon.Digest(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := canon.SHA256Hex([]byte(`{"a":["x",2.5],"b":1}`)); d != want {
		t.Errorf("Digest = %s, want %s", d, want)
	}
	if len(d) != 64 || strings.ToLower(d) != d {
		t.Errorf("Digest %q is not 64 lower-case hex", d)
	}
}

// TestUpstreamFixturesRoundTrip parses each upstream artefact and writes it
// back in the upstream form plus a newline: the bytes must be identical.
func TestUpstreamFixturesRoundTrip(t *testing.T) {
	for _, name := range []string{
		"artifact8-deterministic-reference-v1.json",
		"artifact8-fake-openai-reference-v1.json",
		"artifact1-reference-V1.json",
		"artifact8-evidence-freeze-v1.json",
	} {
		t.Run(name, func(t *testing.T) {
			raw := upstreamtest.Read(t, name)
			got, err := canon.TransformForm(raw, canon.UpstreamForm)
			if err != nil {
				t.Fatal(err)
			}
			if got = append(got, '\n'); !bytes.Equal(got, raw) {
				t.Errorf("TransformForm(upstream) differs from the fixture at byte %d", firstDiff(got, raw))
			}
			v, err := canon.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			got, err = canon.Upstream(v)
			if err != nil {
				t.Fatal(err)
			}
			if got = append(got, '\n'); !bytes.Equal(got, raw) {
				t.Errorf("Upstream(Parse) differs from the fixture at byte %d", firstDiff(got, raw))
			}
		})
	}
}

// TestUpstreamLedgerRows re-derives every row_digest_sha256 of the upstream
// ledger and reproduces each line in the spaced upstream form.
func TestUpstreamLedgerRows(t *testing.T) {
	raw := upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.execution-ledger-v2.ndjson")
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	if len(lines) != 48 {
		t.Fatalf("ledger has %d rows, want 48", len(lines))
	}
	for i, line := range lines {
		got, err := canon.TransformForm(line, canon.UpstreamSpacedForm)
		if err != nil || !bytes.Equal(got, line) {
			t.Errorf("row %d: spaced form differs (%v) at byte %d", i, err, firstDiff(got, line))
		}
		v, err := canon.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		row := v.(map[string]any)
		want, _ := row["row_digest_sha256"].(string)
		delete(row, "row_digest_sha256")
		if d, err := canon.UpstreamDigest(row); err != nil || d != want {
			t.Errorf("row %d: digest %s, %v; file says %s", i, d, err, want)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestIdempotent: canonical output canonicalises to itself, in every form.
func TestIdempotent(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/input/*.json")
	for _, in := range inputs {
		raw := mustRead(t, in)
		for _, f := range []canon.Form{canon.JCSForm, canon.UpstreamForm, canon.UpstreamSpacedForm} {
			once, err := canon.TransformForm(raw, f)
			if err != nil {
				t.Fatal(err)
			}
			twice, err := canon.TransformForm(once, f)
			if err != nil || !bytes.Equal(once, twice) {
				t.Errorf("%s %s: not idempotent: %s then %s (%v)", in, f, once, twice, err)
			}
		}
	}
}

// TestNumberKindSurvives: a float literal stays a float and an integer an
// integer, end to end.
func TestNumberKindSurvives(t *testing.T) {
	v, err := canon.Parse([]byte(`{"f":30.0,"i":30,"e":3e1}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if _, ok := m["f"].(float64); !ok {
		t.Errorf("30.0 parsed as %T, want float64", m["f"])
	}
	if _, ok := m["e"].(float64); !ok {
		t.Errorf("3e1 parsed as %T, want float64", m["e"])
	}
	if _, ok := m["i"].(int64); !ok {
		t.Errorf("30 parsed as %T, want int64", m["i"])
	}
	up, _ := canon.Upstream(v)
	if string(up) != `{"e":30.0,"f":30.0,"i":30}` {
		t.Errorf("Upstream = %s", up)
	}
	j, _ := canon.JCS(v)
	if string(j) != `{"e":30,"f":30,"i":30}` {
		t.Errorf("JCS = %s", j)
	}
}

// TestRefusals: every malformed input is refused by its class, by both the
// tree parser and the streaming transform.
func TestRefusals(t *testing.T) {
	deep := strings.Repeat("[", canon.MaxDepth+1) + strings.Repeat("]", canon.MaxDepth+1)
	okDeep := strings.Repeat("[", canon.MaxDepth) + strings.Repeat("]", canon.MaxDepth)
	if _, err := canon.Parse([]byte(okDeep)); err != nil {
		t.Fatalf("depth %d refused: %v", canon.MaxDepth, err)
	}
	for _, tc := range []struct {
		name, in string
		want     *canon.Error
	}{
		{"duplicate key", `{"a":1,"a":2}`, canon.ErrDuplicateKey},
		{"duplicate key after unescaping", `{"a":1,"\u0061":2}`, canon.ErrDuplicateKey},
		{"duplicate nested key", `[{"x":{"k":1,"j":2,"k":3}}]`, canon.ErrDuplicateKey},
		{"invalid utf-8", "[\"\xff\"]", canon.ErrInvalidUTF8},
		{"overlong utf-8", "[\"\xc0\xaf\"]", canon.ErrInvalidUTF8},
		{"utf-8 surrogate bytes", "[\"\xed\xa0\x80\"]", canon.ErrInvalidUTF8},
		{"invalid utf-8 in key", "{\"\xff\":1}", canon.ErrInvalidUTF8},
		{"lone high surrogate", `["\ud800"]`, canon.ErrLoneSurrogate},
		{"lone low surrogate", `["\udc00"]`, canon.ErrLoneSurrogate},
		{"high surrogate then non-low", `["\ud800\u0041"]`, canon.ErrLoneSurrogate},
		{"too deep", deep, canon.ErrTooDeep},
		{"too deep objects", strings.Repeat(`{"a":`, canon.MaxDepth+1) + "1" + strings.Repeat("}", canon.MaxDepth+1), canon.ErrTooDeep},
		{"integer above 2^53-1", `9007199254740992`, canon.ErrNumberOutOfRange},
		{"integer below -(2^53-1)", `-9007199254740992`, canon.ErrNumberOutOfRange},
		{"huge integer", `123456789012345678901234567890`, canon.ErrNumberOutOfRange},
		{"NaN", `[NaN]`, canon.ErrNonFinite},
		{"Infinity", `{"a":Infinity}`, canon.ErrNonFinite},
		{"-Infinity", `[-Infinity]`, canon.ErrNonFinite},
		{"float overflow", `1e400`, canon.ErrNonFinite},
		{"trailing data", `{} {}`, canon.ErrTrailingData},
		{"trailing garbage", `[1]x`, canon.ErrTrailingData},
		{"bom", "\xef\xbb\xbf{}", canon.ErrBOM},
		{"empty", ``, canon.ErrSyntax},
		{"whitespace only", " \n", canon.ErrSyntax},
		{"leading zero", `01`, canon.ErrSyntax},
		{"plus sign", `+1`, canon.ErrSyntax},
		{"bare dot", `1.`, canon.ErrSyntax},
		{"raw tab in string", "[\"a\tb\"]", canon.ErrSyntax},
		{"bad escape", `["\x"]`, canon.ErrSyntax},
		{"short unicode escape", `["\u12"]`, canon.ErrSyntax},
		{"unterminated string", `["abc`, canon.ErrSyntax},
		{"unterminated array", `[1,2`, canon.ErrSyntax},
		{"trailing comma", `[1,]`, canon.ErrSyntax},
		{"object trailing comma", `{"a":1,}`, canon.ErrSyntax},
		{"single quotes", `{'a':1}`, canon.ErrSyntax},
		{"missing colon", `{"a" 1}`, canon.ErrSyntax},
		{"non-string key", `{1:2}`, canon.ErrSyntax},
		{"truncated literal", `tru`, canon.ErrSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := canon.Parse([]byte(tc.in))
			if string(refusal.Of(err)) != tc.want.Class {
				t.Errorf("Parse(%q) = %v, want %s", tc.in, err, tc.want.Class)
			}
			for _, f := range []canon.Form{canon.JCSForm, canon.UpstreamForm} {
				out, err := canon.TransformForm([]byte(tc.in), f)
				if string(refusal.Of(err)) != tc.want.Class || out != nil {
					t.Errorf("TransformForm(%q, %s) = %q, %v, want %s", tc.in, f, out, err, tc.want.Class)
				}
			}
		})
	}
}

// TestEncodeRefusals: the encoders refuse Go values with no canonical form.
func TestEncodeRefusals(t *testing.T) {
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for _, tc := range []struct {
		name string
		v    any
		want *canon.Error
	}{
		{"NaN", math.NaN(), canon.ErrNonFinite},
		{"+Inf", []any{math.Inf(1)}, canon.ErrNonFinite},
		{"big int", int64(1) << 53, canon.ErrNumberOutOfRange},
		{"invalid utf-8 string", "\xff", canon.ErrInvalidUTF8},
		{"invalid utf-8 key", map[string]any{"\xff": 1}, canon.ErrInvalidUTF8},
		{"struct", struct{}{}, canon.ErrUnsupportedValue},
		{"uint", uint(1), canon.ErrUnsupportedValue},
		{"cycle", cyclic, canon.ErrTooDeep},
	} {
		for _, f := range []canon.Form{canon.JCSForm, canon.UpstreamForm} {
			if _, err := canon.Encode(tc.v, f); string(refusal.Of(err)) != tc.want.Class {
				t.Errorf("%s: Encode(%s) = %v, want %s", tc.name, f, err, tc.want.Class)
			}
		}
	}
}

// TestDifferentialAgainstGowebpki: our RFC 8785 bytes equal
// github.com/gowebpki/jcs's for every accepted vector and fixture.
func TestDifferentialAgainstGowebpki(t *testing.T) {
	inputs, _ := filepath.Glob("testdata/input/*.json")
	docs := [][]byte{}
	for _, in := range inputs {
		docs = append(docs, mustRead(t, in))
	}
	docs = append(docs, benchDoc(64<<10))
	for i, d := range docs {
		want, err := jcs.Transform(d)
		if err != nil {
			t.Fatalf("doc %d: jcs refused: %v", i, err)
		}
		got, err := canon.Transform(d)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("doc %d: Transform differs from gowebpki/jcs at byte %d (%v)", i, firstDiff(got, want), err)
		}
	}
}

func TestFormNames(t *testing.T) {
	for _, f := range []canon.Form{canon.JCSForm, canon.UpstreamForm, canon.UpstreamSpacedForm} {
		g, ok := canon.ParseForm(f.String())
		if !ok || g != f {
			t.Errorf("ParseForm(%q) = %v, %v", f.String(), g, ok)
		}
	}
	if _, ok := canon.ParseForm("rfc"); ok {
		t.Error(`ParseForm("rfc") accepted`)
	}
}

func TestClassesAreDistinctAndNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range canon.Classes() {
		if !strings.HasPrefix(c, "canon/") || seen[c] {
			t.Errorf("class %q duplicated or outside canon/", c)
		}
		seen[c] = true
	}
}

// TestUpstreamOnlyFloats: integral floats beyond ±(2^53−1) and below 1e21
// have an upstream (Python) form but no I-JSON-safe RFC 8785 form.
func TestUpstreamOnlyFloats(t *testing.T) {
	raw := mustRead(t, "testdata/upstream-only/big-integral-floats.json")
	want := mustRead(t, "testdata/upstream-only/big-integral-floats.want")
	got, err := canon.TransformForm(raw, canon.UpstreamForm)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("TransformForm(upstream) = %s, %v; want %s", got, err, want)
	}
	if _, err := canon.Transform(raw); string(refusal.Of(err)) != canon.ErrNumberOutOfRange.Class {
		t.Errorf("Transform(jcs) = %v, want %s", err, canon.ErrNumberOutOfRange.Class)
	}
	if _, err := canon.JCS(float64(1 << 60)); string(refusal.Of(err)) != canon.ErrNumberOutOfRange.Class {
		t.Errorf("JCS(2^60 as float) = %v, want %s", err, canon.ErrNumberOutOfRange.Class)
	}
}

// TestFloatFormatters compares both formatters with Python's repr and
// Node.js's String over testdata/floats.txt (see testdata/gen-floats.sh).
func TestFloatFormatters(t *testing.T) {
	lines := strings.Split(strings.TrimSpace(string(mustRead(t, "testdata/floats.txt"))), "\n")
	if len(lines) < 2900 {
		t.Fatalf("floats.txt has %d lines", len(lines))
	}
	for _, l := range lines {
		var bits uint64
		var py, es string
		if _, err := fmt.Sscanf(l, "%x %s %s", &bits, &py, &es); err != nil {
			t.Fatalf("bad line %q: %v", l, err)
		}
		f := math.Float64frombits(bits)
		if got, err := canon.FormatPython(f); err != nil || got != py {
			t.Errorf("FormatPython(%#x) = %s, %v; Python says %s", bits, got, err, py)
		}
		if got, err := canon.FormatES6(f); err != nil || got != es {
			t.Errorf("FormatES6(%#x) = %s, %v; Node says %s", bits, got, err, es)
		}
	}
}

// TestMapLeaves: f sees every value that is not an object or array, in a
// rebuilt tree that shares no container with the input.
func TestMapLeaves(t *testing.T) {
	in := map[string]any{"a": []any{int64(1), "x", map[string]any{"b": nil}}, "c": map[string]any{}}
	var seen []any
	out := canon.MapLeaves(in, func(v any) any {
		seen = append(seen, v)
		if s, ok := v.(string); ok {
			return s + "!"
		}
		return v
	})
	got, err := canon.JCS(out)
	if err != nil || string(got) != `{"a":[1,"x!",{"b":null}],"c":{}}` || len(seen) != 3 {
		t.Fatalf("MapLeaves = %s, %v (f saw %v)", got, err, seen)
	}
	out.(map[string]any)["a"].([]any)[0] = "changed"
	if in["a"].([]any)[0] != int64(1) {
		t.Error("the output shares an array with the input")
	}
}

// Clone copies every object and list: changing the copy at any depth
// leaves the original as it was, and the copy encodes as the original.
func TestClone(t *testing.T) {
	orig, err := canon.Parse([]byte(`{"a":[1,{"b":"x"},[true,null]],"c":{"d":2.5}}`))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := canon.Upstream(orig)
	c := canon.Clone(orig).(map[string]any)
	if got, _ := canon.Upstream(c); string(got) != string(want) {
		t.Fatalf("clone encodes as %s, want %s", got, want)
	}
	c["a"].([]any)[1].(map[string]any)["b"] = "changed"
	c["a"].([]any)[2].([]any)[0] = false
	c["c"].(map[string]any)["e"] = int64(1)
	if got, _ := canon.Upstream(orig); string(got) != string(want) {
		t.Errorf("changing the clone changed the original: %s, want %s", got, want)
	}
}
