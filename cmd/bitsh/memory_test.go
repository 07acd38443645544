package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// budgetCases are the scripts of issue 12 that used to kill the process
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
// well over a GiB of it before the script's first allocation, so a limit
// of "twice the budget" must be counted above that.
func startupVM(t *testing.T) int64 {
	cmd := exec.Command("sh", "-c", "ulimit -v 3145728; exec bitsh -max-memory 0 -c 'while True: pass'")
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

// TestMemoryBudgetUnderUlimit runs each case in a real bitsh process
// under ulimit -v of its startup address space plus four times the
// budget, and wants exit status 1 with the budget's message, never Go's
// fatal error. Four, not two: the watchdog sees the heap between steps,
// and one step of the interpreter can double a dict's table or grow a
// list in a single allocation as large as what it holds, in address space
// reserved 64 MiB at a time; with three the dict comprehension still died
// once in a few runs on a loaded machine (docs/reliability.md).
func TestMemoryBudgetUnderUlimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc and ulimit -v")
	}
	if testing.Short() {
		t.Skip("runs a dozen processes to their memory budget")
	}
	const budget = 128 << 20
	vm := startupVM(t)
	limitKB := (vm + 4*budget) >> 10
	t.Logf("startup address space %d MiB; ulimit -v %d KiB; budget 128M", vm>>20, limitKB)
	for _, c := range budgetCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command("sh", "-c", fmt.Sprintf(`ulimit -v %d; exec bitsh -max-memory 128M -c "$CODE"`, limitKB))
			cmd.Env = append(os.Environ(), "CODE="+c.code)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			start := time.Now()
			err := cmd.Run()
			code := cmd.ProcessState.ExitCode()
			t.Logf("%s: exit %d after %v", c.name, code, time.Since(start).Round(time.Millisecond))
			if err != nil && code != 1 || code != 1 {
				t.Errorf("exit status %d, want 1; stderr:\n%s", code, tail(stderr.String()))
			}
			if !strings.Contains(stderr.String(), "memory limit of 128M exceeded") || strings.Contains(stderr.String(), "fatal error") {
				t.Errorf("stderr does not report the budget:\n%s", tail(stderr.String()))
			}
		})
	}
}

func tail(s string) string {
	if len(s) > 2000 {
		return "..." + s[len(s)-2000:]
	}
	return s
}
