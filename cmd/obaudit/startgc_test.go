package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStartGCRunsFirst: the package that holds the collector off during
// start-up (internal/startgc) initialises before the linked packages whose
// initialisers allocate the most. Read from this test binary's own
// GODEBUG=inittrace=1 report, which orders packages as the shipped binary's
// does (the language's initialisation order over the same imports).
func TestStartGCRunsFirst(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	at := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			at[f[1]] = i + 1
		}
	}
	first := at["github.com/obaudit/obaudit/cmd/obaudit/internal/startgc"]
	if first == 0 {
		t.Fatalf("startgc did no initialisation work:\n%s", out)
	}
	for _, heavy := range []string{"github.com/santhosh-tekuri/jsonschema/v5", "github.com/asaskevich/govalidator", "github.com/go-openapi/strfmt"} {
		if at[heavy] == 0 || at[heavy] < first {
			t.Errorf("%s initialised at line %d, startgc at %d: the collector is not held off for it", heavy, at[heavy], first)
		}
	}
}
