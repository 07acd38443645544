// Package testscale says how much work bitsh's tests do. By default they
// run at their short scale (what `go test -short` asks for): the random
// searches, fuzz corpora and sweeps take fewer rounds, and the few tests
// that only wait or only measure are skipped, so that `go test ./...`
// fits a coffee on a small machine. CI (.ci/run) exports BITSH_LONG_TESTS=1
// before it runs the same command, and so runs them in full; -short still
// asks for the short scale (the race run).
//
// Only tests import it.
package testscale

import (
	"os"
	"testing"
)

// Env is the environment variable that asks for the full (long) scale
// when it is set to anything but "" or "0".
const Env = "BITSH_LONG_TESTS"

// Short reports whether the tests run at their short scale: unless Env
// asks for the long one, or when -short is given.
func Short() bool {
	return testing.Short() || !Long()
}

// Long reports whether Env asks for the full scale (-short aside).
func Long() bool {
	v := os.Getenv(Env)
	return v != "" && v != "0"
}
