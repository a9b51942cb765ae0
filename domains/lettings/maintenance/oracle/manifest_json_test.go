package oracle

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/canon"
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
	want, err := canon.Upstream(fromYAML)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile("negative_controls_v0_5.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(defaultManifestJSON, want) {
		t.Fatal("negative_controls_v0_5.json is not the YAML's tree in upstream canonical JSON; regenerate it with go test -run TestDefaultManifestJSON -update")
	}
	fromJSON, err := canon.Parse(defaultManifestJSON)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, any(fromYAML)) {
		t.Fatal("the JSON reads back to a different tree than the YAML")
	}
}
