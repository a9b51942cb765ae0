package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/obaudit/obaudit/internal/upstreamtest"
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
			// Scripts that compare against upstream fixtures find them in
			// $UPSTREAM and skip with `[!upstream] skip` when they are
			// absent, unless OBAUDIT_REQUIRE_UPSTREAM=1 (CI), which fails here.
			dir := upstreamDir()
			env.Setenv("UPSTREAM", dir)
			if _, err := os.Stat(dir); err != nil && os.Getenv(upstreamtest.RequireEnv) == "1" {
				return fmt.Errorf("upstream fixtures required (%s=1) but %s is unavailable: %v", upstreamtest.RequireEnv, dir, err)
			}
			return nil
		},
		// [upstream] holds when the upstream fixture directory exists.
		Condition: func(cond string) (bool, error) {
			if cond != "upstream" {
				return false, fmt.Errorf("unknown condition %q", cond)
			}
			_, err := os.Stat(upstreamDir())
			return err == nil, nil
		},
	})
}
