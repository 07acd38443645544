package main

import (
	"bufio"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/bitsh/bitsh/interp"
)

// gcPercent is the collector's GOGC under a memory budget, unless the
// GOGC environment variable sets one: a script's live heap is often a few
// MiB, and Go's default (a heap goal of twice the live heap, at least 4
// MiB) then collects every few milliseconds of integer arithmetic. The
// budget, as the soft limit, still bounds the heap: near it the collector
// works as hard as it must whatever GOGC says.
const gcPercent = 400

// memoryBudget returns the budget -max-memory asks for ("" for the
// default) and makes it the garbage collector's soft limit, so that the
// collector works harder before the watchdog stops a run; under a budget
// it also sets GOGC to gcPercent unless the environment sets it.
func memoryBudget(flagValue string) (int64, error) {
	var n int64
	if flagValue == "" {
		n = defaultBudget()
	} else {
		var err error
		if n, err = interp.ParseSize(flagValue); err != nil {
			return 0, fmt.Errorf("-max-memory: %v", err)
		}
	}
	if n > 0 {
		debug.SetMemoryLimit(n)
		if os.Getenv("GOGC") == "" {
			debug.SetGCPercent(gcPercent)
		}
	}
	return n, nil
}

// defaultBudget is 3/4 of the memory the process may use (the machine's,
// or its cgroup's when lower), leaving the rest to the system and to the
// garbage above the live heap; under an address-space limit (ulimit -v),
// at most half the room above what the process has already reserved
// (about 1.25 GiB at start; the budget holds in twice its size above
// that, docs/reliability.md). 0 (no budget) where none of these can be
// read (not Linux).
func defaultBudget() int64 {
	mem := meminfoTotal()
	if cg := readInt("/sys/fs/cgroup/memory.max"); cg > 0 && (mem == 0 || cg < mem) {
		mem = cg
	}
	budget := mem / 4 * 3
	if as := addressSpaceLimit(); as > 0 {
		room := (as - vmSize()) / 2
		if room < 64<<20 {
			room = 64 << 20
		}
		if budget == 0 || room < budget {
			budget = room
		}
	}
	// Round down to a whole MiB so that messages print a plain size.
	return budget &^ (1<<20 - 1)
}

// meminfoTotal returns MemTotal from /proc/meminfo, in bytes (0 if unknown).
func meminfoTotal() int64 { return procField("/proc/meminfo", "MemTotal:") }

// vmSize returns the process's address space in use, in bytes.
func vmSize() int64 { return procField("/proc/self/status", "VmSize:") }

// procField reads a "Name:   123 kB" line of a /proc file.
func procField(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			fields := strings.Fields(rest)
			if len(fields) == 0 {
				return 0
			}
			n, _ := strconv.ParseInt(fields[0], 10, 64)
			if len(fields) > 1 && fields[1] == "kB" {
				n <<= 10
			}
			return n
		}
	}
	return 0
}

// addressSpaceLimit returns the soft RLIMIT_AS from /proc/self/limits in
// bytes, 0 when unlimited or unknown.
func addressSpaceLimit() int64 {
	data, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max address space"); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				n, _ := strconv.ParseInt(fields[0], 10, 64) // "unlimited" gives 0
				return n
			}
		}
	}
	return 0
}

// readInt reads a file holding one integer ("max" and errors give 0).
func readInt(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}
