package execledger_test

import (
	"strings"
	"testing"

	"github.com/obaudit/obaudit/execledger"
	lt "github.com/obaudit/obaudit/execledger/ledgertest"
	"github.com/obaudit/obaudit/refusal"
)

// TestScan is spec §11.5.
func TestScan(t *testing.T) {
	bad := append(lt.ForbiddenSettings(), []map[string]any{
		{"x": "the provider says it is busy right now bearer"},
		{"x": "my password"},
		{"x": "API KEY"},
		{"x": "apiKEY"},
		{"x": "api\u00a0key"},           // Unicode whitespace between
		{"x": "api_\u212aey"},           // KELVIN SIGN folds to k
		{"x": "\u017fecret"},            // LONG S folds to s
		{"x": "author\u0131zation"},     // dotless i folds to i
		{"x": strings.Repeat("é", 257)}, // 257 code points
	}...)
	for _, m := range bad {
		if err := execledger.Scan(m, "row"); refusal.Of(err) != execledger.ErrForbiddenContent.Class {
			t.Errorf("Scan(%.60v) = %v, want %s", m, err, execledger.ErrForbiddenContent.Class)
		}
	}
	good := []map[string]any{
		{"x": "secretary"}, // \b: a word, not the word secret
		{"x": "passwords"},
		{"x": "sk-abc"},
		{"x": "bearers"},
		{"x": "capital"},
		{"x": strings.Repeat("é", 256)},
		{"request_mapping": "lifecycle_openai_responses_model_request_v5"},
	}
	for _, m := range good {
		if err := execledger.Scan(m, "row"); err != nil {
			t.Errorf("Scan(%.60v) = %v, want nil", m, err)
		}
	}
	deep := any("x")
	for i := 0; i < 40; i++ {
		deep = []any{deep}
	}
	if err := execledger.Scan(deep, "row"); refusal.Of(err) != execledger.ErrSchema.Class {
		t.Errorf("Scan(depth 40) = %v, want %s", err, execledger.ErrSchema.Class)
	}
}
