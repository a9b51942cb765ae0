package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/canon"
)

// TestCheckArtefactKindIsCheckKind: for every object built from the keys
// sniffJSON reads (each subset, with each kind of "mediaType", with and
// without a first value that pushes the rest past sniffLimit, in both key
// orders), and for inputs of the other kinds, checkArtefactKind on what the
// parse read gives checkKind's verdict (nil, or the same refusal) — the
// claim obaudit validate's late kind check rests on.
func TestCheckArtefactKindIsCheckKind(t *testing.T) {
	keys := []string{"artifact_version", "trajectory", "evaluation", "header", "contract", "arm", "protocol", "mediaType"}
	media := []string{
		`"application/vnd.dev.sigstore.bundle.v0.3+json"`,
		`"application/vnd.dev.sigstore.trustedroot+json"`,
		`"application/vnd.obaudit.validate+json;version=1"`,
		`"text/plain"`,
		`7`,
	}
	var inputs []string
	for set := 0; set < 1<<len(keys); set++ {
		for _, mt := range media {
			if set&(1<<7) == 0 && mt != media[0] {
				continue // no mediaType: one variant is enough
			}
			for _, pad := range []string{"", strings.Repeat("x", sniffLimit)} {
				for _, reverse := range []bool{false, true} {
					var members []string
					if pad != "" {
						members = append(members, fmt.Sprintf(`"aaa":%q`, pad))
					}
					for i, k := range keys {
						if set&(1<<i) == 0 {
							continue
						}
						v := "1"
						if k == "mediaType" {
							v = mt
						}
						members = append(members, fmt.Sprintf("%q:%s", k, v))
					}
					if reverse {
						for i, j := 0, len(members)-1; i < j; i, j = i+1, j-1 {
							members[i], members[j] = members[j], members[i]
						}
					}
					inputs = append(inputs, "{"+strings.Join(members, ",")+"}\n")
				}
			}
		}
	}
	inputs = append(inputs,
		"{\"header\": {\"ledger_version\": 3}}\n{\"index\": 1}\n",
		`{"header":1,"header":2}`,
		`{"artifact_version":1,"trajectory":[]`,
		"-----BEGIN PUBLIC KEY-----\nx\n-----END PUBLIC KEY-----\n",
		"oracle_id: x\noracle_version: 1\n",
		"[1]", `"header"`, "",
	)
	refused := 0
	for _, in := range inputs {
		b := []byte(in)
		var tree map[string]any
		if v, err := canon.Parse(b); err == nil {
			tree, _ = v.(map[string]any)
		}
		want := checkKind("f.json", b, kindArtefact)
		got := checkArtefactKind("f.json", b, tree)
		if (got == nil) != (want == nil) || got != nil && got.Error() != want.Error() {
			t.Errorf("%.80q: checkArtefactKind %v, checkKind %v", in, got, want)
		}
		if want != nil {
			refused++
		}
	}
	if refused == 0 {
		t.Fatal("no input was refused: the cases test nothing")
	}
}
