//go:build linux && cgo

package main

// Under an address-space limit (ulimit -v), cap glibc's malloc arenas at
// one before the Go runtime starts its first thread: this constructor
// runs when the program is loaded, before Go's runtime. See arena.go.

/*
#include <malloc.h>
#include <sys/resource.h>

__attribute__((constructor)) static void bitsh_cap_malloc_arenas(void) {
	struct rlimit lim;
	if (getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
#ifdef M_ARENA_MAX
		mallopt(M_ARENA_MAX, 1);
#endif
	}
}
*/
import "C"
