package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/obaudit/obaudit/cmd/obaudit/internal/startgc"
	"github.com/obaudit/obaudit/internal/upstreamtest"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite golden sections of testscripts")

// exitCodeEnv names the file where the test binary's obaudit command
// records its exit code, which the scripts' `exitcode N` command asserts.
const exitCodeEnv = "OBAUDIT_TEST_EXITCODE_FILE"

// readyFileEnv names the file the test binary's obaudit command creates once
// it watches SIGINT and SIGTERM (interrupt_test.go).
const readyFileEnv = "OBAUDIT_TEST_READY_FILE"

// preflightLatencyEnv, when set to a duration, makes the test binary's
// preflight use a scripted provider with that latency per answer, and
// preflightReportEnv names the file it then writes "requests N" (how many
// requests the scripted provider received) or the run's error to
// (interrupt_model_test.go).
const (
	preflightLatencyEnv = "OBAUDIT_TEST_PREFLIGHT_LATENCY"
	preflightReportEnv  = "OBAUDIT_TEST_PREFLIGHT_REPORT"
)

// cmdExitcode is the scripts' `exitcode N`: the last `exec obaudit` exited
// with code N (`! exec` alone cannot tell 1 from 64 from 70).
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: exitcode N")
	}
	b, err := os.ReadFile(ts.Getenv(exitCodeEnv))
	if err != nil {
		ts.Fatalf("exitcode: no obaudit exit code recorded: %v", err)
	}
	if got := string(b); got != args[0] {
		ts.Fatalf("obaudit exited %s, want %s", got, args[0])
	}
}

func TestMain(m *testing.M) {
	// Tests call command code without a RunE too: the collector runs for
	// all of them (the binary holds it off only until a command runs).
	startgc.Resume()
	testscript.Main(waitBound{m}, map[string]func(){
		"obaudit": func() {
			if d := os.Getenv(preflightLatencyEnv); d != "" {
				testOnlyPreflightRun = latencyPreflight(d, os.Getenv(preflightReportEnv))
			}
			code := mainExit(func() {
				// Signal tests wait for this file before they signal.
				if f := os.Getenv(readyFileEnv); f != "" {
					os.WriteFile(f, nil, 0o644)
				}
			})
			if f := os.Getenv(exitCodeEnv); f != "" {
				os.WriteFile(f, []byte(strconv.Itoa(code)), 0o644)
			}
			os.Exit(code)
		},
	})
}

// waitBound runs the package's tests with -test.parallel at four per CPU
// unless the command line sets it: most of their wall time is waiting, not
// computing (child processes, the SIGKILL loops' sleeps between kills,
// tessera's 100 ms checkpoint interval behind every campaign plan, run and
// merge), so two at a time on two cores left the cores mostly idle.
// It takes effect only in the test binary's top-level run: when
// testscript re-executes the binary as obaudit, Main never calls Run.
type waitBound struct{ *testing.M }

func (m waitBound) Run() int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(4*runtime.GOMAXPROCS(0)))
	}
	return m.M.Run()
}

// TestScript runs the CLI specification in testdata/script/*.txtar.
func TestScript(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"exitcode": cmdExitcode},
		Setup: func(env *testscript.Env) error {
			// Beside $WORK, not in it: scripts list their directories.
			env.Setenv(exitCodeEnv, filepath.Join(filepath.Dir(env.WorkDir), filepath.Base(env.WorkDir)+".exitcode"))
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
