package memory

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// DefaultBudget is the budget the bitsh command gives a run when
// -max-memory is not set: 3/4 of the memory the process may use (the
// machine's, or its cgroup's when lower), leaving the rest to the system
// and to the garbage above the live heap; under an address-space limit
// (ulimit -v), at most a third of the room above what the process has
// already reserved (about 1.25 GiB at start; docs/reliability.md). 0 (no budget) where none of these can
// be read. The result is a whole number of MiB.
func DefaultBudget() int64 {
	mem := memTotal()
	if cg := readInt("/sys/fs/cgroup/memory.max"); cg > 0 && (mem == 0 || cg < mem) {
		mem = cg
	}
	budget := mem / 4 * 3
	if room := AddressSpaceRoom(); room >= 0 {
		// A third: one step of the interpreter can allocate as much as
		// the live data at once, or twice as much, and the budget's
		// cancellation reaches the loop only after that step. With
		// bitsh's fork of go.starlark.net, s + s, l + l, l.extend(l) and
		// l * n are checked before they allocate; a dict's table, a
		// builtin of go.starlark.net (str) and upstream go.starlark.net
		// are not, so the room keeps the margin (docs/reliability.md).
		room /= 3
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

// memTotal returns the machine's memory in bytes (0 if unknown): sysinfo(2)'s
// totalram, the number /proc/meminfo prints as MemTotal, without the
// kernel writing out the other fifty lines of that file (about 50 µs, a
// sixtieth of bitsh's start-up); /proc/meminfo where the call fails.
func memTotal() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil && si.Totalram > 0 {
		unit := int64(si.Unit)
		if unit == 0 {
			unit = 1 // kernels before 2.3.23 counted in bytes
		}
		return int64(si.Totalram) * unit
	}
	return meminfoTotal()
}

// meminfoTotal returns MemTotal from /proc/meminfo, in bytes (0 if unknown).
func meminfoTotal() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
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

// readInt reads a file holding one integer ("max" and errors give 0).
func readInt(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}
