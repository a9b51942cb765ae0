package artefact_test

import (
	"fmt"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/refusal"
)

// A refusal names its class and the JSON pointer of the value it is about.
func ExampleRead_refused() {
	_, err := artefact.Read([]byte(`{"artifact_version":9}`+"\n"), artefact.Options{})
	p, _ := artefact.Pointer(err)
	fmt.Println(refusal.Of(err), p)
	_, err = artefact.Read([]byte(`{"artifact_version":1,"surprise":true}`), artefact.Options{})
	p, _ = artefact.Pointer(err)
	fmt.Println(refusal.Of(err), p)
	// Output:
	// artefact/unsupported-version /artifact_version
	// artefact/unknown-field /surprise
}

// Each contract has its own field set; contract 8 has 28 keys, every one
// in exactly one replay section.
func ExampleFields() {
	n := 0
	for _, s := range artefact.Sections(8) {
		n += len(s.Fields)
	}
	fmt.Println(len(artefact.Fields(1)), len(artefact.Fields(8)), n, artefact.Reproducible(1), artefact.Reproducible(8))
	// Output: 23 28 28 false true
}
