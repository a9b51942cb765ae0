package maintenance

import (
	"flag"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/refusal"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite operation/lettings_maintenance_synthetic_v1.json from the YAML")

// TestDefaultOperationJSON holds the embedded JSON the default spec is
// loaded from to the embedded YAML it is generated from: the same bytes as
// the YAML's tree in upstream canonical JSON, and the same tree (kinds
// included) read back.
func TestDefaultOperationJSON(t *testing.T) {
	fromYAML, err := parseYAML(defaultOperation, defaultSource)
	if err != nil {
		t.Fatal(err)
	}
	upstreamtest.CanonicalCopy(t, "operation/lettings_maintenance_synthetic_v1.json", defaultOperationJSON, fromYAML, *update)
}

// An empty actors, message_fixtures or scenarios mapping is refused as a
// schema error naming what is missing.
func TestEmptyMappingsRefused(t *testing.T) {
	for key, want := range map[string]string{
		"actors":           "embedded: actors must declare at least one actor",
		"message_fixtures": "embedded: message_fixtures: at least one message fixture is required",
		"scenarios":        "embedded: at least one scenario variant is required",
	} {
		tree, err := canon.Parse(defaultOperationJSON)
		if err != nil {
			t.Fatal(err)
		}
		tree.(map[string]any)[key] = map[string]any{}
		_, err = FromTree(tree.(map[string]any), "embedded")
		if refusal.Of(err) != ErrSchema.Class || !strings.Contains(err.Error(), want) {
			t.Errorf("empty %s: %v, want %s %q", key, err, ErrSchema.Class, want)
		}
	}
}
