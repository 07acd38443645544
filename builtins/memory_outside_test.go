package builtins

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
)

// runBudget runs src with a budget of room bytes above what the process
// holds now (its heap and what it holds outside it) on 2 workers.
func runBudget(src string, room int64, interpreted bool) (starlark.StringDict, error) {
	thread := &starlark.Thread{Name: "budget"}
	SetEnv(thread, Env{Sources: testSources{"budget.star": src}, Workers: 2, Context: context.Background(),
		MaxMemory: memory.InUse() + room, Interpreted: interpreted})
	return starlark.ExecFileOptions(dialect.FileOptions(), thread, "budget.star", src, Predeclared())
}

// releaseOutside collects until the memory held outside the heap is back
// to at most before (the cleanups of fused values no longer reachable
// unmap their workers), so that later tests' budgets do not pay for it.
func releaseOutside(t *testing.T, before int64) {
	t.Helper()
	for range 100 {
		runtime.GC()
		if memory.OutsideBytes() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("%d bytes still held outside the heap (%d before)", memory.OutsideBytes(), before)
}

// fusedValuesSrc fuses a recursive function with 4,000-word scratch arrays
// (its workers map room for the frames of a deep recursion, about 64 MiB
// each, which a shallow one leaves untouched) twelve times, and runs each (or, FUSE false, sums the same interpreted).
const fusedValuesSrc = `
def h(n):
    a = [0] * 4000
    a[n % 4000] = n
    if n < 2:
        return a[n % 4000]
    return h(n - 1) + a[n % 4000]

def plain(i):
    return sum([h(x + i) for x in range(8)])

fused = []
total = 0
for i in range(12):
    if FUSE:
        f = fuse(lambda x: h(x + i))
        fused.append(f)
        total += f.sum(range(8))
    else:
        total += plain(i)
`

// TestFusedValuesShareBudget: fused values are checked against one budget
// together, not each alone: each value's workers fit in the budget, twelve
// do not. With room for all, they give the interpreter's sums.
func TestFusedValuesShareBudget(t *testing.T) {
	before := memory.OutsideBytes()
	defer releaseOutside(t, before)
	src := func(fuse bool) string {
		if fuse {
			return "FUSE = True\n" + fusedValuesSrc
		}
		return "FUSE = False\n" + fusedValuesSrc
	}
	_, err := runBudget(src(true), 200<<20, false)
	if err == nil || !strings.Contains(err.Error(), "memory limit of") {
		t.Errorf("12 fused values of 128M of workers each under 200M: %v; want the budget's error", err)
	}
	releaseOutside(t, before)
	want, err := runBudget(src(false), 0, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := runBudget(src(true), 4<<30, false)
	if err != nil {
		t.Fatalf("12 fused values under 4G: %v", err)
	}
	if got["total"].String() != want["total"].String() {
		t.Errorf("total = %v fused, %v interpreted", got["total"], want["total"])
	}
}
