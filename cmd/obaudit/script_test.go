package main

import (
	"context"
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite golden sections of testscripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"obaudit": func() {
			os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScript runs the CLI specification in testdata/script/*.txtar.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			// Scripts that compare against upstream fixtures find them here.
			env.Setenv("UPSTREAM", upstreamDir())
			return nil
		},
	})
}
