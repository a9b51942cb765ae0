package episode_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/obaudit/obaudit/artefact"
	"github.com/obaudit/obaudit/canon"
	"github.com/obaudit/obaudit/domains"
	"github.com/obaudit/obaudit/episode"
	"github.com/obaudit/obaudit/schemas"
)

// TestEncodeTreeIsItsParse holds artefact.EncodeDocument's premise for
// every registered agent on V1–V3 under both engines: the tree it
// validates (a.Tree()) is exactly what the strict parser makes of the
// bytes it returns (same Go types, same values), so validating the tree
// is validating the bytes; the bytes are canon.Upstream of the tree plus
// one newline (the encoding before the parse-back was dropped); and the
// returned Document equals artefact.Read of those bytes.
func TestEncodeTreeIsItsParse(t *testing.T) {
	opts := testOptions()
	for _, eng := range []string{schemas.EngineUpstream, schemas.EngineObaudit} {
		for _, v := range []string{"V1", "V2", "V3"} {
			for _, ag := range domains.Default().Agents {
				res, err := episode.Run(runConfig(t, v, ag.ID, eng))
				if err != nil {
					t.Fatalf("%s %s %s: %v", eng, v, ag.ID, err)
				}
				doc, b, err := artefact.EncodeDocument(res.Artefact, opts)
				if err != nil {
					t.Fatalf("%s %s %s: %v", eng, v, ag.ID, err)
				}
				want, err := canon.Upstream(res.Artefact.Tree())
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, append(want, '\n')) {
					t.Fatalf("%s %s %s: bytes are not canon.Upstream(a.Tree()) + newline", eng, v, ag.ID)
				}
				parsed, err := canon.Parse(b)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(parsed, res.Artefact.Tree()) {
					t.Fatalf("%s %s %s: the parse of the bytes is not a.Tree()", eng, v, ag.ID)
				}
				read, err := artefact.Read(b, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(read, doc) {
					t.Fatalf("%s %s %s: EncodeDocument's Document is not Read's", eng, v, ag.ID)
				}
			}
		}
	}
}
