package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/cmd/bitsh/internal/autopsy"
	"github.com/bitsh/bitsh/internal/testscale"
)

// budgetCases are the scripts that used to kill the process
// with Go's "fatal error: runtime: out of memory" under an address-space
// limit. Each must end with the budget's error instead.
var budgetCases = []struct{ name, code string }{
	{"set", "set(subsets((1<<24)-1))"},
	{"enumerate", "enumerate(subsets((1<<24)-1))"},
	{"zip", "zip(subsets((1<<24)-1), subsets((1<<24)-1))"},
	{"list", "list(subsets((1<<24)-1))"},
	{"comprehension", "x = [s for s in subsets((1<<24)-1)]"},
	{"extend", "l = []\nl.extend(subsets((1<<24)-1))"},
	{"join", `x = ",".join([str(s) for s in subsets((1<<24)-1)])`},
	{"dict", "x = dict(zip(subsets((1<<24)-1), range(1<<24)))"},
	{"dict comprehension", "x = {s: s for s in subsets((1<<24)-1)}"},
	{"append", "l = []\nwhile True:\n    l.append(len(l))"},
	{"repeat", "x = [0] * 100000000"},
	{"range", "x = list(range(100000000))"},
	{"string", `x = "ab" * 1000000000`},
}

// startupVM returns the address space (bytes) bitsh holds once started
// under an address-space limit: Go's runtime and go.starlark.net reserve
// over a GiB of it before the script's first allocation, so a limit of
// "twice the budget" must be counted above that. It is the most of three
// processes, sampled for a second each (threads started late add 8 MiB of
// stack each).
func startupVM(t *testing.T) int64 {
	var vm int64
	for range 3 {
		vm = max(vm, startupVMOnce(t))
	}
	return vm
}

func startupVMOnce(t *testing.T) int64 {
	// The process that runs the script: without the supervising parent,
	// whose own address space the limit does not add to the child's.
	cmd := exec.Command("sh", "-c", "ulimit -v 3145728; exec bitsh -max-memory 0 -c 'while True: pass'")
	cmd.Env = append(os.Environ(), autopsy.NoSupervisorEnv+"=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	var vm int64
	for range 50 {
		time.Sleep(20 * time.Millisecond)
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmSize:"); ok {
				kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
				vm = max(vm, kb<<10)
			}
		}
	}
	if vm == 0 {
		t.Fatal("could not read bitsh's VmSize")
	}
	return vm
}

// budgetLimitKB returns the ulimit -v, in KiB, of the memory tests: the
// start-up address space plus twice the budget.
func budgetLimitKB(t *testing.T, budget int64) int64 {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc and ulimit -v")
	}
	if testscale.Short() {
		t.Skip("runs processes to their memory budget")
	}
	vm := startupVM(t)
	limitKB := (vm + 2*budget) >> 10
	t.Logf("startup address space %d MiB; ulimit -v %d KiB; budget %s", vm>>20, limitKB, memory.FormatSize(budget))
	return limitKB
}

// runLimited runs bitsh -max-memory budget -c code, under ulimit -v
// limitKB unless it is 0, and returns its exit status, its stderr and how
// long it ran.
func runLimited(limitKB int64, budget, code string) (int, string, time.Duration) {
	ulimit := ""
	if limitKB > 0 {
		ulimit = fmt.Sprintf("ulimit -v %d; ", limitKB)
	}
	cmd := exec.Command("sh", "-c", ulimit+`exec bitsh -max-memory `+budget+` -c "$CODE"`)
	cmd.Env = append(os.Environ(), "CODE="+code)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String(), time.Since(start)
}

// TestMemoryBudgetUnderUlimit runs each case in a real bitsh process
// under ulimit -v of its start-up address space plus twice the budget,
// and wants exit status 1 with the budget's message, never Go's fatal
// error. Twice is tight: one step of the interpreter can double a dict's
// table or grow a list in a single allocation as large as what it holds,
// reserved 64 MiB at a time, and running out of address space kills a Go
// process. The watchdog stops such a run past half its budget when the
// room left under the limit could not take the heap again
// (interp.WithMaxMemory), and bitsh keeps its threads from reserving a
// malloc arena each (arena.go); docs/reliability.md has the figures.
func TestMemoryBudgetUnderUlimit(t *testing.T) {
	const budget = 128 << 20
	limitKB := budgetLimitKB(t, budget)
	for _, c := range budgetCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			code, stderr, took := runLimited(limitKB, "128M", c.code)
			t.Logf("%s: exit %d after %v: %s", c.name, code, took.Round(time.Millisecond), budgetLine(stderr))
			if code != 1 {
				t.Errorf("exit status %d, want 1; stderr:\n%s", code, tail(stderr))
			}
			if !strings.Contains(stderr, "memory limit of 128M exceeded") || strings.Contains(stderr, "fatal error") {
				t.Errorf("stderr does not report the budget:\n%s", tail(stderr))
			}
		})
	}
}

// TestMemoryBudgetUnderHalfRuns checks the other side: a script that
// holds less than the budget, making garbage all along, runs to its end.
// Under the same address-space limit as TestMemoryBudgetUnderUlimit it
// holds under half the budget (past half, a tight limit may stop a run
// early, see interp.WithMaxMemory); without a limit, 7/8 of it.
func TestMemoryBudgetUnderHalfRuns(t *testing.T) {
	const budget = 128 << 20
	limitKB := budgetLimitKB(t, budget)
	churn := func(hold int64) string {
		return fmt.Sprintf(`x = "a" * %d
n = 0
for i in range(300000):
    n += len(str(i) * 20)
l = [str(i) for i in range(100000)]
print(len(x) + n + len(l))`, hold)
	}
	for _, c := range []struct {
		name    string
		limitKB int64
		hold    int64
	}{
		{"under ulimit, 7/16 of the budget", limitKB, budget / 16 * 7},
		{"no ulimit, 7/8 of the budget", 0, budget / 8 * 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stderr, took := runLimited(c.limitKB, "128M", churn(c.hold))
			t.Logf("exit %d after %v", code, took.Round(time.Millisecond))
			if code != 0 {
				t.Errorf("exit status %d, want 0; stderr:\n%s", code, tail(stderr))
			}
		})
	}
}

// budgetLine returns the line of stderr that reports the budget.
func budgetLine(stderr string) string {
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, "memory limit") || strings.Contains(line, "fatal error") {
			return line
		}
	}
	return ""
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}

// TestBudgetSetsGOGC: under a budget the command keeps the heap goal at
// least gcFloor of the budget, unless the environment sets GOGC; without
// a budget it leaves Go's GOGC.
func TestBudgetSetsGOGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(-1)
	defer func() {
		gcTuner.set(0)
		debug.SetGCPercent(prev)
		debug.SetMemoryLimit(prevLimit)
	}()
	for _, c := range []struct {
		flag, env string
		floor     int64 // 0: GOGC stays 100
	}{
		{"512M", "", 32 << 20},
		{"0", "", 0},
		{"4G", "", gcFloorMax},
		{"512M", "150", 0},     // GOGC=150 is the runtime's to read at start; the command leaves it
		{"128M", "", 16 << 20}, // a floor of 8 MiB, below GOGC 400's least goal
	} {
		debug.SetGCPercent(100)
		t.Setenv("GOGC", c.env)
		if _, err := memoryBudget(c.flag); err != nil {
			t.Fatal(err)
		}
		if c.floor == 0 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond) // a tuner's finalizer, had it run, would have set GOGC
			if got := debug.SetGCPercent(100); got != 100 {
				t.Errorf("-max-memory %s, GOGC=%q: GC percent %d, want 100", c.flag, c.env, got)
			}
			continue
		}
		// After a collection the tuner sets the next goal: at least the
		// floor (this test's live heap is a few MiB at most).
		var goal uint64
		for range 100 {
			runtime.GC()
			time.Sleep(time.Millisecond)
			sample := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
			metrics.Read(sample)
			if goal = sample[0].Value.Uint64(); goal >= uint64(c.floor) {
				break
			}
		}
		if goal < uint64(c.floor) || goal > uint64(c.floor)+uint64(c.floor)/4 {
			t.Errorf("-max-memory %s: heap goal %d MiB after a collection, want about %d", c.flag, goal>>20, c.floor>>20)
		}
		if got := debug.SetGCPercent(gcPercent); got < gcPercent {
			t.Errorf("-max-memory %s: GC percent %d, want at least %d", c.flag, got, gcPercent)
		}
	}
}

// TestGCPercentFor checks the tuner's GOGC against Go's heap goal, live +
// roots * GOGC/100 and at least 4 MiB * GOGC/100.
func TestGCPercentFor(t *testing.T) {
	goal := func(live, roots int64, p int) int64 {
		return max(live+roots*int64(p)/100, 4<<20*int64(p)/100)
	}
	for _, c := range []struct{ floor, live, roots int64 }{
		{64 << 20, 0, 0},
		{64 << 20, 300 << 10, 600 << 10},
		{64 << 20, 3 << 20, 4 << 20},
		{64 << 20, 20 << 20, 21 << 20},
		{64 << 20, 1 << 30, 1<<30 + 1<<20},
		{8 << 20, 1 << 20, 1 << 20},
	} {
		p := gcPercentFor(c.floor, c.live, c.roots)
		if p < gcPercent {
			t.Errorf("%+v: GOGC %d below %d", c, p, gcPercent)
		}
		got := goal(c.live, max(c.roots, 1), p)
		want := max(c.floor, goal(c.live, max(c.roots, 1), gcPercent))
		if c.live == 0 {
			got, want = goal(0, 4<<20, p), max(c.floor, goal(0, 4<<20, gcPercent))
		}
		if got < want-want/50 || got > want+want/50 {
			t.Errorf("%+v: GOGC %d gives a goal of %d, want %d", c, p, got, want)
		}
	}
}
