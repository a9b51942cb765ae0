package maintenance

import (
	"flag"
	"testing"

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
