package commitment

import (
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
)

// docOf is the Document artefact.Read makes of b, as far as Derive reads it.
func docOf(t *testing.T, b []byte) *artefact.Document {
	t.Helper()
	tree, err := canon.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return &artefact.Document{Tree: tree.(map[string]any), FileSHA256: canon.SHA256Hex(b)}
}

// TestDeriveFromDocument: a Document of exactly the artefact's bytes gives
// the facts the bytes give; one of other bytes is not used.
func TestDeriveFromDocument(t *testing.T) {
	for _, in := range []Inputs{det(t), model(t)} {
		wantA, wantL, err := Derive(in)
		if err != nil {
			t.Fatal(err)
		}
		in.Document = docOf(t, in.Artefact)
		a, l, err := Derive(in)
		if err != nil || !reflect.DeepEqual(a, wantA) || !reflect.DeepEqual(l, wantL) {
			t.Fatalf("Derive with the Document = %+v, %v; want %+v", a, err, wantA)
		}
		// A Document of other bytes (here: another agent id) is ignored.
		other := docOf(t, in.Artefact)
		other.Tree["agent_id"] = "someone-else"
		other.FileSHA256 = canon.SHA256Hex(append(append([]byte(nil), in.Artefact...), ' '))
		in.Document = other
		if a, _, err := Derive(in); err != nil || a.AgentID != wantA.AgentID {
			t.Fatalf("a Document of other bytes was used: agent %q, %v", a.AgentID, err)
		}
		// One naming these bytes is used: its tree is the parse.
		other.FileSHA256 = canon.SHA256Hex(in.Artefact)
		if a, _, err := Derive(in); err != nil || a.AgentID != "someone-else" {
			t.Fatalf("the Document of these bytes was not used: agent %q, %v", a.AgentID, err)
		}
	}
}
