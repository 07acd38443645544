//go:build linux && !cgo

package main

import (
	"syscall"

	"github.com/ebitengine/purego"
)

// mallocArenaMax is glibc's M_ARENA_MAX parameter of mallopt.
const mallocArenaMax = -8

// init caps glibc's malloc arenas at one under an address-space limit
// (see arena.go), through purego since there is no cgo: only the threads
// started from here on share the one arena.
func init() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_AS, &lim) != nil || lim.Cur == ^uint64(0) {
		return
	}
	if mallopt, err := purego.Dlsym(purego.RTLD_DEFAULT, "mallopt"); err == nil {
		purego.SyscallN(mallopt, ^uintptr(-mallocArenaMax-1), 1)
	}
}
