package agentrun

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// seedSHA256 is the SHA-256 of ../shared/seeds/003_94477df08f47d9d0.txt, the
// Agent Run schema as the mission handed it over.
const seedSHA256 = "7e09c86e2917dce7d8d65acad0dfa8328c5f0a0ae59f91445412d358acf2233b"

func TestSeedVerbatim(t *testing.T) {
	sum := sha256.Sum256(Seed())
	if got := hex.EncodeToString(sum[:]); got != seedSHA256 {
		t.Fatalf("embedded v1.json SHA-256 = %s, want %s (the seed is shipped verbatim)", got, seedSHA256)
	}
	// Where the shared seed folder is present, compare bytes too.
	_, file, _, _ := runtime.Caller(0)
	seed := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "seeds", "003_94477df08f47d9d0.txt")
	if b, err := os.ReadFile(seed); err == nil && !bytes.Equal(b, Seed()) {
		t.Fatalf("v1.json differs from %s", seed)
	}
}

func TestIDs(t *testing.T) {
	if id := schemaID(t, Seed()); id != SeedID {
		t.Errorf("seed $id = %q, want %q", id, SeedID)
	}
	for id, b := range StandIns() {
		if got := schemaID(t, b); got != id {
			t.Errorf("stand-in for %s has $id %q", id, got)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if title, _ := doc["title"].(string); !strings.HasPrefix(title, "LOCAL STAND-IN") {
			t.Errorf("stand-in for %s is not labelled as one: title %q", id, title)
		}
	}
	// Every external $ref in the seed names a document we ship a stand-in for.
	ext := map[string]bool{}
	for _, id := range ExternalIDs() {
		ext[id] = true
	}
	for _, ref := range refs(t, Seed()) {
		if strings.HasPrefix(ref, "#") {
			continue
		}
		doc, _, _ := strings.Cut(ref, "#")
		if !ext[doc] {
			t.Errorf("seed references %s, which has no stand-in", ref)
		}
	}
}

func schemaID(t *testing.T, b []byte) string {
	t.Helper()
	var doc struct {
		ID string `json:"$id"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.ID
}

func refs(t *testing.T, b []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					out = append(out, s)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	if len(out) == 0 {
		t.Fatal("no $ref found in the seed")
	}
	return out
}

// ExternalIDs lists the external $ids the seed references, sorted.
func ExternalIDs() []string { return []string{OKFEnvelopeID, CaseStudyID} }
