package oracle

import (
	"flag"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
)

var update = flag.Bool("update", false, "rewrite negative_controls_v0_5.json from the YAML")

// TestDefaultManifestJSON holds the embedded JSON the shipped manifest is
// loaded from to the embedded YAML it is generated from: the same bytes as
// the YAML's tree in upstream canonical JSON, and the same tree read back.
func TestDefaultManifestJSON(t *testing.T) {
	fromYAML, err := parseYAML(defaultManifest, DefaultSource)
	if err != nil {
		t.Fatal(err)
	}
	upstreamtest.CanonicalCopy(t, "negative_controls_v0_5.json", defaultManifestJSON, fromYAML, *update)
}
