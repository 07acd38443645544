package memory

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// AddressSpaceRoom returns the bytes of address space left to the
// process under its RLIMIT_AS (ulimit -v): the limit less VmSize, which is
// what the limit counts (reservations included). -1 when there is no
// limit or it cannot be read. It costs a system call and a read of
// /proc/self/statm, a few microseconds.
func AddressSpaceRoom() int64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil || lim.Cur == ^uint64(0) || lim.Cur > 1<<62 {
		return -1
	}
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return -1
	}
	pages, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return -1
	}
	return int64(lim.Cur) - pages*int64(os.Getpagesize())
}
