package main

import (
	"fmt"
	"io"

	"github.com/obaudit/obaudit/schemas"
	"github.com/spf13/cobra"
)

// toolkitVersion is obaudit's own release version.
const toolkitVersion = "0.1.0-dev"

func newVersionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the toolkit version and the engine and contract versions it implements",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := map[string]any{
				"mediaType":         "application/vnd.obaudit.version+json;version=1",
				"obaudit":           toolkitVersion,
				"engines":           schemas.Engines(),
				"default_engine":    schemas.EngineObaudit,
				"artifact_contract": schemas.ArtefactContract,
				"ledger_version":    schemas.LedgerVersion,
			}
			state, detail := verification()
			// obaudit-sigstore links both (handover.go).
			v["sigstore_verification"], v["json_schema_validation"] = state, state
			if detail != "" {
				v["sigstore_verification_detail"] = detail
			}
			return writeReport(cmd, g, v, func(w io.Writer) {
				fmt.Fprintf(w, "obaudit %s\n", toolkitVersion)
				fmt.Fprintf(w, "engines: %s (upstream 0.9.0), %s (default)\n", schemas.EngineUpstream, schemas.EngineObaudit)
				fmt.Fprintf(w, "artefact contract: %d (reads 1-%d)\n", schemas.ArtefactContract, schemas.ArtefactContract)
				fmt.Fprintf(w, "execution ledger: v%d (reads v2, v3)\n", schemas.LedgerVersion)
				for _, what := range []string{"sigstore verification", "json schema validation"} {
					switch state {
					case "linked":
						fmt.Fprintf(w, "%s: linked\n", what)
					case "beside":
						fmt.Fprintf(w, "%s: in %s\n", what, detail)
					default:
						fmt.Fprintf(w, "%s: missing (%s)\n", what, detail)
					}
				}
			})
		},
	}
}
