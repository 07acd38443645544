package builtins_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// TestCheckAllocAllowance checks that granting small requests from the
// allowance never lets through one that the heap has no room for: each
// case makes small grants first, then asks for its request.
func TestCheckAllocAllowance(t *testing.T) {
	// Collect first: the garbage of the tests that ran before would
	// otherwise count in heap, and the live heap that CheckAlloc falls back
	// on would leave room for the requests that must be refused.
	runtime.GC()
	heap := memory.HeapBytes()
	limit := heap + 64<<20 // 64 MiB of room, give or take what the test allocates
	for _, tc := range []struct {
		name   string
		small  int   // grants of 88 bytes first (list(p) of 11 items)
		bytes  int64 // then this request
		refuse bool
	}{
		{"small after small", 1000, 88, false},
		{"room/2 after small", 1000, 32 << 20, false},
		{"over the room after small", 1000, 256 << 20, true},
		{"over the budget", 0, limit + 1, true},
		{"negative (overflow)", 10, -1, true},
		{"over the room at once", 0, 256 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := &starlark.Thread{}
			builtins.SetEnv(th, builtins.Env{MaxMemory: limit})
			for i := 0; i < tc.small; i++ {
				if err := builtins.CheckAlloc(th, "list", 88); err != nil {
					t.Fatalf("small grant %d: %v", i, err)
				}
			}
			err := builtins.CheckAlloc(th, "list", tc.bytes)
			if (err != nil) != tc.refuse {
				t.Fatalf("CheckAlloc(%d) = %v, want refused %v", tc.bytes, err, tc.refuse)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "list: memory limit of ") {
				t.Errorf("error %q does not name the builtin and the budget", err)
			}
		})
	}
}

// TestCheckAllocNoBudget: without a budget every request is granted, and
// a thread without an Env has none.
func TestCheckAllocNoBudget(t *testing.T) {
	th := &starlark.Thread{}
	if err := builtins.CheckAlloc(th, "list", 1<<62); err != nil {
		t.Fatal(err)
	}
	if n := builtins.MaxMemory(th); n != 0 {
		t.Fatalf("MaxMemory = %d, want 0", n)
	}
	builtins.SetEnv(th, builtins.Env{MaxMemory: -5})
	if n := builtins.MaxMemory(th); n != 0 {
		t.Fatalf("MaxMemory after MaxMemory: -5 = %d, want 0", n)
	}
	builtins.SetEnv(th, builtins.Env{MaxMemory: 1 << 20})
	if n := builtins.MaxMemory(th); n != 1<<20 {
		t.Fatalf("MaxMemory = %d, want %d", n, 1<<20)
	}
}

// BenchmarkCheckAllocSmall is the cost of the check that list(p) of a few
// items makes: reading the heap once per call cost microseconds.
func BenchmarkCheckAllocSmall(b *testing.B) {
	th := &starlark.Thread{}
	builtins.SetEnv(th, builtins.Env{MaxMemory: 1 << 40})
	for b.Loop() {
		if err := builtins.CheckAlloc(th, "list", 88); err != nil {
			b.Fatal(err)
		}
	}
}

// forkChecksAllocs reports whether the go.starlark.net this test is built
// with calls an allocation check before + allocates (bitsh's fork does;
// upstream, which .ci/upstream.sh also tests with, does not).
func forkChecksAllocs() bool {
	th := &starlark.Thread{}
	called := false
	th.SetLocal("go.starlark.net/alloc-check", func(*starlark.Thread, string, int64) error {
		called = true
		return nil
	})
	starlark.ExecFile(th, "probe.star", "l = [0] * (1 << 17)\nx = l + l", nil)
	return called
}

// loopOpts allows loops and reassignments at top level.
var loopOpts = dialect.FileOptions()

// TestBudgetChecksDoubling: under a budget, the operations of
// go.starlark.net that can double what a script holds are refused with
// the budget's error before they allocate (with bitsh's fork).
func TestBudgetChecksDoubling(t *testing.T) {
	starlarkfork.Require(t, "the allocation check", forkChecksAllocs())
	limit := memory.HeapBytes() + 64<<20
	for _, c := range []struct{ code, what string }{
		{"s = 'ab' * 1024\nfor _ in range(40):\n    s = s + s", "string + string"},
		{"l = [1] * 1024\nfor _ in range(40):\n    l.extend(l)", "list.extend"},
		{"l = [1] * 1024\nfor _ in range(40):\n    l += l", "list += list"},
		{"l = [1] * 1024\nfor _ in range(40):\n    l = l * 2", "list * int"},
	} {
		th := &starlark.Thread{}
		builtins.SetEnv(th, builtins.Env{MaxMemory: limit})
		_, err := starlark.ExecFileOptions(loopOpts, th, "test.star", c.code, nil)
		if err == nil || !strings.Contains(err.Error(), c.what+": memory limit of ") {
			t.Errorf("%q: error %v, want %q and the budget", c.code, err, c.what)
		}
		// Without a budget, nothing is checked.
		builtins.SetEnv(th, builtins.Env{MaxMemory: 0})
		if _, err := starlark.ExecFileOptions(loopOpts, th, "test.star", "l = [1] * 1024\nfor _ in range(10):\n    l = l + l", nil); err != nil {
			t.Errorf("no budget: %v", err)
		}
	}
}
