package main

import (
	"flag"
	"os"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// holdOutputTestEnv, in the test binary only, holds buffered output until
// the process ends: the bitsh command below sets flushDelay to an hour.
const holdOutputTestEnv = "BITSH_TEST_HOLD_OUTPUT"

var update = flag.Bool("update", false, "rewrite the golden output in testdata/script/*.txtar")

// TestMain makes the test binary serve as the bitsh command (testscript
// puts it on $PATH under that name; the pty tests run it too), supervising
// parent included.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"bitsh": func() {
			reportCrashes()
			if os.Getenv(holdOutputTestEnv) != "" {
				flushDelay = time.Hour
			}
			crashForTest()
			os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts runs the CLI behaviour tests in testdata/script. With
// -update, failing cmp commands rewrite the expected files instead.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
	})
}
