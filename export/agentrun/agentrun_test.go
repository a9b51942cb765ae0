package agentrun

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/export/agentrun/agentrunschema"
	"github.com/obaudit/obaudit/internal/artefacttest"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/obaudit/obaudit/refusal"
	schema "github.com/obaudit/obaudit/schemas/agentrun"
)

const v1Fixture = "artifact8-deterministic-reference-v1.json"

// defaultSchema is the embedded seed with its stand-ins, which every export
// and record in these tests is held to.
func defaultSchema(t testing.TB) *agentrunschema.Schema {
	t.Helper()
	s, err := agentrunschema.Default()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func exportV1(t *testing.T) (*Record, []byte) {
	t.Helper()
	raw := upstreamtest.Read(t, v1Fixture)
	rec, err := Export(artefacttest.Read(t, raw), defaultOp(), defaultSchema(t))
	if err != nil {
		t.Fatalf("Export(V1 reference) = %v", err)
	}
	return rec, raw
}

func get(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%v: not an object at %q", path, p)
		}
		v = m[p]
	}
	return v
}

func TestExportV1Reference(t *testing.T) {
	rec, raw := exportV1(t)
	v := rec.Value
	wantID := "operatebench-lettings-maintenance-synthetic-v1-v1-reference-45f2f3bec377"
	if rec.ID != wantID || get(t, v, "id") != wantID {
		t.Errorf("id = %q, want %q", rec.ID, wantID)
	}
	if rec.FileName() != wantID+".json" {
		t.Errorf("FileName() = %q", rec.FileName())
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"system", "model"}, "OperateBench deterministic agent reference (engine 0.9.0)"},
		{[]string{"system", "model_confidence"}, "stated"},
		{[]string{"system", "memory"}, "retrieval"},
		{[]string{"system", "tools_available"}, int64(8)},
		{[]string{"environment", "name"}, "OperateBench lettings_maintenance_synthetic_v1"},
		{[]string{"environment", "version"}, "0.6.0"},
		{[]string{"environment", "scenario"}, "V1: approval granted, provisional reopen, warranty revisit, finalized"},
		{[]string{"environment", "deterministic"}, true},
		{[]string{"environment", "seed"}, "opinst_0123456789abcdef0123456789abcdef"},
		{[]string{"episode", "steps"}, int64(14)},
		{[]string{"episode", "step_unit"}, "agent invocations"},
		{[]string{"episode", "tool_calls"}, int64(157)},
		{[]string{"episode", "wall_clock_hours"}, nil},
		{[]string{"outcome", "verdict"}, "objective-achieved"},
		{[]string{"outcome", "margin"}, "11 of 11 dimensions passed"},
		{[]string{"objective", "strategy_source"}, "specified"},
	}
	for _, c := range checks {
		if got := get(t, v, c.path...); got != c.want {
			t.Errorf("%s = %#v, want %#v", strings.Join(c.path, "."), got, c.want)
		}
	}
	if iv, ok := get(t, v, "episode", "interventions").([]any); !ok || len(iv) != 0 {
		t.Errorf("episode.interventions = %#v, want an explicit empty array", get(t, v, "episode", "interventions"))
	}
	if f, ok := v["failures"].([]any); !ok || len(f) != 0 {
		t.Errorf("failures = %#v, want []", v["failures"])
	}
	if h := get(t, v, "environment", "harness").([]any); len(h) != 1 || h[0] != "operatebench" {
		t.Errorf("environment.harness = %v", h)
	}
	ts := get(t, v, "outcome", "terminal_state").(string)
	for _, want := range []string{"completed_successfully", "replay-final", "FINALIZED", "2031-03-13T15:30:00Z"} {
		if !strings.Contains(ts, want) {
			t.Errorf("outcome.terminal_state %q does not mention %s", ts, want)
		}
	}
	// The source names the artefact by the SHA-256 of its bytes.
	src := v["sources"].([]any)[0].(map[string]any)
	if src["digest_sha256"] != canon.SHA256Hex(raw) || src["identifier"] != "sha256:"+canon.SHA256Hex(raw) {
		t.Errorf("source = %v, want the artefact's file digest %s", src, canon.SHA256Hex(raw))
	}
	if !strings.Contains(src["notes"].(string), "16dd2845143fea411282753df6832cc51eccdad76f4d37feb77bc98ca1469439") {
		t.Errorf("source notes do not carry the trajectory digest: %s", src["notes"])
	}
	// Bytes are the canonical record plus a newline.
	want, err := canon.JCS(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rec.Bytes, append(want, '\n')) {
		t.Error("Bytes are not the record's RFC 8785 form plus a newline")
	}
}

func TestExportDeterministic(t *testing.T) {
	a, raw := exportV1(t)
	b, err := Export(artefacttest.Read(t, slices.Clone(raw)), defaultOp(), defaultSchema(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes, b.Bytes) {
		t.Fatal("two exports of the same artefact differ")
	}
}

func TestExportValidatesAgainstSchema(t *testing.T) {
	rec, _ := exportV1(t)
	dir := t.TempDir()
	p := filepath.Join(dir, rec.FileName())
	if err := os.WriteFile(p, rec.Bytes, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ValidateRecord(rec.Bytes, p, defaultSchema(t))
	if err != nil {
		t.Fatalf("ValidateRecord(exported V1) = %v", err)
	}
	if got.ID != rec.ID {
		t.Errorf("ValidateRecord id = %q, want %q", got.ID, rec.ID)
	}
}

func mutateV1(t *testing.T, f func(map[string]any)) []byte {
	t.Helper()
	return append(artefacttest.Mutate(t, upstreamtest.Read(t, v1Fixture), f), '\n')
}

func TestValidateRecordRefusals(t *testing.T) {
	rec, _ := exportV1(t)
	good := rec.FileName()
	cases := []struct {
		name  string
		raw   []byte
		file  string
		class refusal.Class
	}{
		{"renamed file", rec.Bytes, "other-name.json", ErrIDMismatch.Class},
		{"right slug wrong extension", rec.Bytes, rec.ID + ".txt", ErrIDMismatch.Class},
		{"id edited", setField(t, rec.Value, "id", "operatebench-something-else"), good, ErrIDMismatch.Class},
		{"id not a slug", setField(t, rec.Value, "id", "Not A Slug"), "Not A Slug.json", agentrunschema.ErrSchemaInvalid.Class},
		{"unknown verdict", setPath(t, rec.Value, []string{"outcome", "verdict"}, "won"), good, agentrunschema.ErrSchemaInvalid.Class},
		{"no sources", setField(t, rec.Value, "sources", []any{}), good, agentrunschema.ErrSchemaInvalid.Class},
		{"unknown field", setField(t, rec.Value, "score", int64(1)), good, agentrunschema.ErrSchemaInvalid.Class},
		{"unknown kind", setField(t, rec.Value, "failures", []any{map[string]any{"kind": "bad-luck", "description": "x"}}), good, agentrunschema.ErrSchemaInvalid.Class},
		{"duplicate key", []byte(`{"id":"a","id":"a"}`), "a.json", "canon/duplicate-key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ValidateRecord(c.raw, filepath.Join("dir", c.file), defaultSchema(t))
			if got, _ := refusal.ClassOf(err); got != c.class {
				t.Errorf("ValidateRecord = %v, want class %s", err, c.class)
			}
		})
	}
}

func setField(t *testing.T, v map[string]any, k string, x any) []byte {
	return setPath(t, v, []string{k}, x)
}

// setPath returns the record's bytes with one field replaced (the record
// itself is not modified).
func setPath(t *testing.T, v map[string]any, path []string, x any) []byte {
	t.Helper()
	c, err := canon.Parse(mustJCS(t, v))
	if err != nil {
		t.Fatal(err)
	}
	m := c.(map[string]any)
	for _, p := range path[:len(path)-1] {
		m = m[p].(map[string]any)
	}
	m[path[len(path)-1]] = x
	return mustJCS(t, c)
}

func mustJCS(t *testing.T, v any) []byte {
	t.Helper()
	b, err := canon.JCS(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSlug(t *testing.T) {
	slug := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	for _, c := range []struct{ op, sc, agent, digest, want string }{
		{"lettings_maintenance_synthetic_v1", "V1", "reference", "45f2f3bec377230a", "operatebench-lettings-maintenance-synthetic-v1-v1-reference-45f2f3bec377"},
		{"op", "V2", "trust_actor_claim", "abc", "operatebench-op-v2-trust-actor-claim-abc"},
		{"__Weird--Op__", "s 1", "Ag.ent", "0123456789abcdef", "operatebench-weird-op-s-1-ag-ent-0123456789ab"},
	} {
		got := Slug(c.op, c.sc, c.agent, c.digest)
		if got != c.want {
			t.Errorf("Slug(%q, %q, %q, %q) = %q, want %q", c.op, c.sc, c.agent, c.digest, got, c.want)
		}
		if !slug.MatchString(got) {
			t.Errorf("Slug %q does not match the schema's slug pattern", got)
		}
	}
	for name, want := range map[string]string{"a/b/x.json": "x", "x.json.json": "x.json", "x": "x", `c:\d\x.json`: "x"} {
		if got := FileSlug(name); got != want {
			t.Errorf("FileSlug(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestCompileSchemaSupplied(t *testing.T) {
	// A supplied real schema replaces the stand-in of the same $id; a
	// stricter one is then what the record is held to.
	strict := `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"` + schema.OKFEnvelopeID + `",
	  "$defs":{"slug":{"type":"string","pattern":"^x-only$"}}}`
	s, err := agentrunschema.CompileSchema(fstest.MapFS{"okf.json": {Data: []byte(strict)}, "README.txt": {Data: []byte("ignored")}})
	if err != nil {
		t.Fatalf("CompileSchema(supplied) = %v", err)
	}
	if s.StandInsUsed() != 1 {
		t.Errorf("StandInsUsed() = %d, want 1", s.StandInsUsed())
	}
	var origin string
	for _, src := range s.Sources() {
		if src.ID == schema.OKFEnvelopeID {
			origin = src.Origin + ":" + src.File
		}
	}
	if origin != schema.OriginSupplied+":okf.json" {
		t.Errorf("okf-envelope origin = %q, want supplied okf.json", origin)
	}
	raw := upstreamtest.Read(t, v1Fixture)
	// harness "operatebench" is a slug the strict schema does not admit.
	if _, err := Export(artefacttest.Read(t, raw), defaultOp(), s); refusal.Of(err) != agentrunschema.ErrSchemaInvalid.Class {
		t.Errorf("Export against a stricter supplied schema = %v, want %s", err, agentrunschema.ErrSchemaInvalid.Class)
	}

	def, err := agentrunschema.CompileSchema(nil)
	if err != nil {
		t.Fatal(err)
	}
	if def.StandInsUsed() != 2 {
		t.Errorf("default StandInsUsed() = %d, want 2", def.StandInsUsed())
	}
}

func TestExportModelRun(t *testing.T) {
	rec, err := Export(artefacttest.Read(t, upstreamtest.Read(t, "artifact8-fake-openai-reference-v1.json")), defaultOp(), defaultSchema(t))
	if err != nil {
		t.Fatalf("Export(fake-openai) = %v", err)
	}
	v := rec.Value
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"system", "model"}, "gpt-5.6-luna"},
		{[]string{"system", "model_confidence"}, "unknown"},
		{[]string{"environment", "deterministic"}, false},
		{[]string{"objective", "strategy_source"}, "model-selected"},
	} {
		if got := get(t, v, c.path...); got != c.want {
			t.Errorf("%s = %#v, want %#v", strings.Join(c.path, "."), got, c.want)
		}
	}
	if sc := get(t, v, "system", "scaffold").([]any); len(sc) != 2 || sc[1] != "operatebench-model-v4" {
		t.Errorf("scaffold = %v", sc)
	}
	if cc := v["contested_claims"].([]any); len(cc) != 2 {
		t.Errorf("contested_claims = %v, want the provider-attribution claim too", cc)
	}
	if !strings.Contains(get(t, v, "system", "notes").(string), "attributes nothing") {
		t.Error("system notes do not say an artefact alone attributes nothing")
	}
}

func TestExportContract1(t *testing.T) {
	rec, err := Export(artefacttest.Read(t, upstreamtest.Read(t, "artifact1-reference-V1.json")), defaultOp(), defaultSchema(t))
	if err != nil {
		t.Fatalf("Export(contract 1) = %v", err)
	}
	if got := get(t, rec.Value, "episode", "tool_calls"); got != nil {
		t.Errorf("tool_calls = %v, want null (no retrieval rows before contract 5)", got)
	}
	if got := get(t, rec.Value, "environment", "seed"); got != nil {
		t.Errorf("seed = %v, want null (no instance id before contract 4)", got)
	}
	if _, ok := rec.Value["aliases"]; ok {
		t.Error("aliases present without an instance id")
	}
}
