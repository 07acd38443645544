// Package examples holds bitsh's example scripts; its test runs every
// examples/*.star and compares the output with the .out file beside it,
// so the examples never rot. go test ./examples -update rewrites the .out
// files.
package examples

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/internal/testscale"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

var update = flag.Bool("update", false, "rewrite the expected .out files")

func TestExamples(t *testing.T) {
	files, err := filepath.Glob("*.star")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			in := interp.New(interp.WithStdout(&out), interp.WithStderr(&out),
				interp.WithPredeclared(starlark.StringDict{"argv": starlark.NewList(nil)}))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			if _, err := in.ExecFile(ctx, f, nil); err != nil {
				var ee *starlark.EvalError
				if errors.As(err, &ee) {
					t.Fatalf("%s\noutput so far:\n%s", ee.Backtrace(), out.String())
				}
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".star") + ".out"
			got := maskTimes(out.Bytes())
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./examples -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output of %s differs from %s:\n--- got\n%s\n--- want\n%s", f, golden, got, want)
			}
		})
	}
}

// durations matches the times an example prints as Go formats them
// (str(time.now() - t): "1.5s", "416.529116ms", "1m2.5s").
var durations = regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`)

// maskTimes replaces the durations in an example's output, which change
// from run to run, by <time>.
func maskTimes(out []byte) []byte { return durations.ReplaceAll(out, []byte("<time>")) }

// TestEmbed builds the embedding example and runs it: once to completion,
// once with a deadline that cancels its native builtin mid-run.
func TestEmbed(t *testing.T) {
	if testscale.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "embed")
	if out, err := exec.Command("go", "build", "-o", bin, "./embed").CombinedOutput(); err != nil {
		t.Fatalf("go build ./examples/embed: %v\n%s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil {
		t.Fatalf("embed: %v\n%s", err, out)
	}
	n, steps := collatzRecord(1000)
	for _, want := range []string{
		fmt.Sprintf("below 1000, %d takes the most Collatz steps: %d", n, steps),
		fmt.Sprintf("%d is 0b%b, popcount %d", n, n, bits.OnesCount(uint(n))),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("embed output lacks %q:\n%s", want, out)
		}
	}
	start := time.Now()
	cmd := exec.Command(bin, "-timeout", "100ms", "print(collatz_record(1 << 40))")
	out, err = cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 || !strings.Contains(string(out), "stopped after 100ms") {
		t.Fatalf("embed with a deadline: err = %v, output %q; want exit 3 and a stop message", err, out)
	}
	t.Logf("cancelled run took %v", time.Since(start))
}

// collatzRecord is the naive reference for the example's builtin.
func collatzRecord(limit int) (best, bestSteps int) {
	for n := 1; n < limit; n++ {
		steps := 0
		for x := n; x != 1; steps++ {
			if x%2 == 0 {
				x /= 2
			} else {
				x = 3*x + 1
			}
		}
		if steps > bestSteps {
			best, bestSteps = n, steps
		}
	}
	return best, bestSteps
}
