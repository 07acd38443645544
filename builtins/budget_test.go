package builtins_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// TestCheckAllocAllowance checks that granting small requests from the
// allowance never lets through one that the heap has no room for: each
// case makes small grants first, then asks for its request.
func TestCheckAllocAllowance(t *testing.T) {
	heap := builtins.HeapBytes()
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
			builtins.SetMaxMemory(th, limit)
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
// a thread without SetMaxMemory has none.
func TestCheckAllocNoBudget(t *testing.T) {
	th := &starlark.Thread{}
	if err := builtins.CheckAlloc(th, "list", 1<<62); err != nil {
		t.Fatal(err)
	}
	if n := builtins.MaxMemory(th); n != 0 {
		t.Fatalf("MaxMemory = %d, want 0", n)
	}
	builtins.SetMaxMemory(th, -5)
	if n := builtins.MaxMemory(th); n != 0 {
		t.Fatalf("MaxMemory after SetMaxMemory(-5) = %d, want 0", n)
	}
	builtins.SetMaxMemory(th, 1<<20)
	if n := builtins.MaxMemory(th); n != 1<<20 {
		t.Fatalf("MaxMemory = %d, want %d", n, 1<<20)
	}
}

// BenchmarkCheckAllocSmall is the cost of the check that list(p) of a few
// items makes: reading the heap once per call cost microseconds.
func BenchmarkCheckAllocSmall(b *testing.B) {
	th := &starlark.Thread{}
	builtins.SetMaxMemory(th, 1<<40)
	for b.Loop() {
		if err := builtins.CheckAlloc(th, "list", 88); err != nil {
			b.Fatal(err)
		}
	}
}
