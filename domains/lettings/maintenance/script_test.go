package maintenance_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/obaudit/obaudit/domains/lettings/maintenance"
	"github.com/obaudit/obaudit/engine"
	"github.com/obaudit/obaudit/engine/enginetest"
)

func TestConformance(t *testing.T) {
	spec, err := maintenance.DefaultSpec()
	if err != nil {
		t.Fatal(err)
	}
	var cases []enginetest.PackCase
	for _, sc := range []string{"V1", "V2", "V3"} {
		cases = append(cases, enginetest.PackCase{
			Name: sc,
			NewDomain: func() engine.Domain {
				op, err := maintenance.NewOperation(spec, sc)
				if err != nil {
					t.Fatal(err)
				}
				return op
			},
			NewAgent: func() engine.Agent { return maintenance.NewReference() },
		})
	}
	enginetest.TestDomain(t, cases...)
}

// TestScripts runs testdata/*.txt: one script per variant showing the
// trajectory records in order (regenerate with -rewrite and review).
//
//	run scenario=V1 [instance=opinst_…]   one reference episode, row by row
func TestScripts(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	if len(files) == 0 {
		t.Fatal("no scripts in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			enginetest.RunFile(t, f, func(t *testing.T, d *enginetest.TestData) string {
				switch d.Cmd {
				case "run":
					spec, err := maintenance.DefaultSpec()
					if err != nil {
						return err.Error()
					}
					op, err := maintenance.NewOperation(spec, d.Arg("scenario", "V1"))
					if err != nil {
						return "refused: " + err.Error()
					}
					ep, err := engine.Execute(op, maintenance.NewReference(), d.Arg("instance", pinnedInstance))
					if err != nil {
						return "error: " + err.Error()
					}
					return describe(ep)
				}
				return fmt.Sprintf("unknown command %q", d.Cmd)
			})
		})
	}
}

func describe(ep *engine.Episode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "status=%s invocations=%d decisions=%d minutes=%d ended=%s\n", ep.Status, ep.Invocations, len(ep.Decisions), ep.SimulatedMinutes, ep.EndedAt)
	fmt.Fprintf(&b, "trajectory=%s\nfinal_state=%s\ndecisions=%s\n", ep.TrajectoryDigest, ep.FinalStateDigest, ep.DecisionsDigest)
	for _, r := range ep.Trajectory {
		row := r.(map[string]any)
		rest := map[string]any{}
		for k, v := range row {
			switch k {
			case "index", "at", "record_type":
			case "records":
				rest["records"] = "…"
			default:
				rest[k] = v
			}
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range rest {
				if !yield(k) {
					return
				}
			}
		})
		var parts []string
		for _, k := range keys {
			if k == "records" {
				continue
			}
			parts = append(parts, k+"="+string(engine.AppendCanonical(nil, rest[k])))
		}
		fmt.Fprintf(&b, "%03d %s %s %s\n", row["index"], row["at"], row["record_type"], strings.Join(parts, " "))
	}
	return b.String()
}
