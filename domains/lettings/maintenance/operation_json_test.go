package maintenance

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/canon"
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
	want, err := canon.Upstream(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("operation/lettings_maintenance_synthetic_v1.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(defaultOperationJSON, want) {
		t.Fatal("operation/lettings_maintenance_synthetic_v1.json is not the YAML's tree in upstream canonical JSON; regenerate it with go test -run TestDefaultOperationJSON -update")
	}
	fromJSON, err := canon.Parse(defaultOperationJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, any(fromYAML)) {
		t.Fatal("the JSON reads back to a different tree than the YAML")
	}
}
