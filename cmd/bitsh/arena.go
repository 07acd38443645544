package main

// bitsh links libc's threads: purego (the GPU loader's dlopen, in
// builtins/fuse/cuda) imports runtime/cgo, or its own fakecgo without cgo,
// so the Go runtime starts its threads with pthread_create. Each new
// thread frees a block that its creator malloc'd, and glibc gives that
// thread a malloc arena of its own: 64 MiB of reserved address space per
// thread, up to eight per core. Go itself hardly mallocs, so nothing is
// gained by them, but an address-space limit (ulimit -v, RLIMIT_AS)
// counts every reservation: the threads present at start-up took 4 to 6
// arenas in varying number (start-up address space varied by 140 MiB from
// run to run) and a thread started while a script ran took 72 MiB (its
// arena and an 8 MiB stack) of the room the memory budget relies on.
//
// So, under an address-space limit only, bitsh caps the arenas at one
// (glibc's mallopt(M_ARENA_MAX, 1)): with cgo (the default build) from a C
// constructor that runs before the Go runtime starts (arena_cgo.go),
// without cgo from an init through purego (arena_nocgo.go), which leaves
// the arenas of the threads started before it. Elsewhere (musl, other
// systems) nothing changes.
