package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
)

// doublingCases allocate, in one step of the interpreter, as much as they
// hold or more: the step in flight when the memory budget cancelled the
// run used to reach several times the budget, and under ulimit -v to kill
// the process (Go's "fatal error: out of memory"). Those marked checked
// are refused before they allocate (bitsh's fork of go.starlark.net calls
// the budget's check, builtins.Env.MaxMemory); go.starlark.net's own
// builtins (str) do not poll, so the hard stop ends the last one.
var doublingCases = []struct {
	name, code string
	checked    bool
}{
	{"s + s", "s = \"ab\"\nwhile True:\n    s = s + s", true},
	{"s += s", "s = \"ab\"\nwhile True:\n    s += s", true},
	{"l + l", "l = [1]\nwhile True:\n    l = l + l", true},
	{"l.extend(l)", "l = [1]\nwhile True:\n    l.extend(l)", true},
	{"l += l", "l = [1]\nwhile True:\n    l += l", true},
	{"l * 2", "l = [1]\nwhile True:\n    l = l * 2", true},
	{"l *= 2", "l = [1]\nwhile True:\n    l *= 2", true},
	{"2 * t", "t = (1,)\nwhile True:\n    t = 2 * t", true},
	{"str of a huge list", "l = list(range(3000000))\nx = str([l] * 40)", false},
}

// TestDoublingLoops runs each doubling case in a real process with
// -max-memory 128M, two processes at a time; each must exit 1 with the
// budget's message (the hard stop ends the step in flight) and never with
// Go's fatal error.
func TestDoublingLoops(t *testing.T) {
	skipUnlessUnix(t)
	if testscale.Short() {
		t.Skip("runs processes to their memory budget")
	}
	runDoubling(t, 0, false)
}

// TestDoublingLoopsUnderUlimit runs the checked doubling cases under
// ulimit -v of the start-up address space plus one and a half budgets:
// unchecked, the step that doubles a 64 MiB string or list (128 MiB more,
// while the 64 MiB and the garbage of the step before are still held)
// cannot reserve its memory and kills the process; checked, it is refused
// before it allocates. Each must exit 1 with the budget's message.
func TestDoublingLoopsUnderUlimit(t *testing.T) {
	skipUnlessUnix(t)
	const budget = 128 << 20
	limitKB := budgetLimitKB(t, budget) - budget/2>>10
	t.Logf("ulimit -v %d KiB: start-up + 1.5 budgets", limitKB)
	runDoubling(t, limitKB, true)
}

// runDoubling runs the doubling cases (only the checked ones when
// checkedOnly) with -max-memory 128M, under ulimit -v limitKB unless 0,
// two processes at a time.
func runDoubling(t *testing.T, limitKB int64, checkedOnly bool) {
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, c := range doublingCases {
		if checkedOnly && !c.checked {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			code, stderr, took := runLimited(limitKB, "128M", c.code)
			t.Logf("%s: exit %d after %v: %s", c.name, code, took, lastLine(stderr))
			if code != exitError || !strings.Contains(stderr, "memory limit of 128M exceeded") || strings.Contains(stderr, "fatal error") {
				t.Errorf("%s: exit %d, want %d and the budget's message; stderr:\n%.2000s", c.name, code, exitError, stderr)
			}
		}()
	}
	wg.Wait()
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestMergeHostileParts runs bitsh merge on parts built to exhaust its
// decoder (8 MB of brackets, an int of a million digits): each must be
// refused with status 1 and the reason, naming the file.
func TestMergeHostileParts(t *testing.T) {
	dir := t.TempDir()
	head := `{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 1, "args": [], "shards": [0], "results": {"k": {"op": "max", "value": `
	for _, c := range []struct{ name, value, want string }{
		{"deep.json", strings.Repeat("[", 4<<20) + strings.Repeat("]", 4<<20), "nested more than"},
		{"digits.json", strings.Repeat("7", 1000000), "digits"},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(head+c.value+`}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := run([]string{"merge", path}, nil, &stdout, &stderr)
		if code != exitError || !strings.Contains(stderr.String(), c.want) || !strings.Contains(stderr.String(), c.name) {
			t.Errorf("merge %s: exit %d, stderr %.300q; want %d and %q", c.name, code, stderr.String(), exitError, c.want)
		}
	}
}
