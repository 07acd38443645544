// bitsh fork: benchmarks of call-heavy plain programs (README.bitsh.md).

package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

const callsBenchSrc = `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

pow2 = [1 << i for i in range(64)]

def isenberg(st, seq, depth, vtx, nz):
    if st[1] >= st[2]:
        return
    if (st[0] & pow2[vtx]) == 0 and nz <= 32:
        if depth == 0:
            st[1] += 1
        else:
            st[0] ^= pow2[vtx]
            if vtx == 31 and depth > 2:
                isenberg(st, seq | pow2[depth - 1], depth - 2, 62, nz + 1)
            else:
                isenberg(st, seq, depth - 1, (2 * vtx) & 63, nz + 1)
                isenberg(st, seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz)
            st[0] ^= pow2[vtx]

def find(seq, depth, vtx, nz, lock, path, k):
    if (lock >> vtx) & 1 or nz > 32:
        return 0
    if depth == 0:
        return 1
    lock = lock | (1 << vtx)
    if vtx == 31 and depth > 2:
        return find(seq | (1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k)
    if k > 0:
        if path & 1:
            return find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1)
        return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1)
    return (find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
            find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0))

def queens(full, cols, d1, d2):
    if cols == full:
        return 1
    n = 0
    free = full & ~(cols | d1 | d2)
    while free:
        bit = free & -free
        free ^= bit
        n += queens(full, cols | bit, ((d1 | bit) << 1) & full, (d2 | bit) >> 1 & full)
    return n

def bench_fib():
    return fib(20)

def bench_isenberg():
    st = [1 << 32, 0, 256]
    isenberg(st, 0, 58, 0, 6)
    return st[1]

def bench_find():
    return find(0, 58, 0, 6, 1 << 32, 717, 14)

def bench_queens():
    return queens(((1 << 8) - 1) << 40, 0, 0, 0)  # 92 solutions, masks at bit 40

def loop(x, a, b, n):
    for _ in range(n):
        x = (x + a) ^ b
    return x

def bench_loop_small():
    return loop(1, 3, 0x55, 10000)

def bench_loop_big():
    return loop((1 << 40) + 12345, (1 << 41) + 1, 0x5555555555555, 10000)
`

// BenchmarkCalls runs call-heavy programs: fib, Isenberg's De Bruijn
// generator in two styles, an n-queens count on masks above 2^40, and a
// word loop.
func BenchmarkCalls(b *testing.B) {
	opts := &syntax.FileOptions{Recursion: true, While: true}
	thread := new(starlark.Thread)
	thread.SetMaxExecutionSteps(1 << 62)
	globals, err := starlark.ExecFileOptions(opts, thread, "calls.star", callsBenchSrc, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"fib", "isenberg", "find", "queens", "loop_small", "loop_big"} {
		fn := globals["bench_"+name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := starlark.Call(thread, fn, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
