package block

import (
	"context"
	"runtime"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// popcountEq3 is fuse(lambda s: popcount(s & m) == 3) with m = 0x2a5a5a.
func popcountEq3() *Executor {
	b := fuse.NewBuilder(1)
	x := b.Op2(fuse.OpAnd, b.Param(0), b.Const(0x2a5a5a), 0)
	return New(b.Finish(b.Op2(fuse.OpEq, b.Op1(fuse.OpPopcount, x, 0), b.Const(3), 0)))
}

// BenchmarkCountPopcount: one op is one item of
// fuse(lambda s: popcount(s & 0x2a5a5a) == 3).count(range(N)) on every
// core (GOMAXPROCS workers); bench/fuse.c runs the same loop in C on as
// many threads.
func BenchmarkCountPopcount(b *testing.B) {
	c := popcountEq3()
	b.ResetTimer()
	res, err := c.Run(context.Background(), []fuse.Space{fuse.Range{Step: 1, N: uint64(b.N)}}, fuse.Count, fuse.Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil || res.Count > uint64(b.N) {
		b.Fatal(err)
	}
}

// BenchmarkMap3: one op is one word of f.map(array of 2^20 words) for the
// 3-operation f(s) = (s ^ s >> 7) * 0x9e3779b97f4a7c15, on one core.
func BenchmarkMap3(b *testing.B) {
	bl := fuse.NewBuilder(1)
	s := bl.Param(0)
	x := bl.Op2(fuse.OpXor, s, bl.Op2(fuse.OpShr, s, bl.Const(7), 0), 0)
	c := New(bl.Finish(bl.Op2(fuse.OpMul, x, bl.Const(0x9e3779b97f4a7c15), 0)))
	const n = 1 << 20
	in := make(fuse.Array, n)
	for i := range in {
		in[i] = uint64(i) * 0x5851f42d4c957f2d
	}
	out := make([]uint64, n)
	b.ResetTimer()
	for done := 0; done < b.N; done += n {
		m := min(n, b.N-done)
		if _, err := c.Run(context.Background(), []fuse.Space{in[:m]}, fuse.Map, fuse.Options{Workers: 1, Out: out[:m]}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCountChecked: one op is one item of
// fuse(lambda s: gray_inverse(s) % (s | 1) != 0).count(range(N)) on one
// core: an op the executor runs through its scalar definition
// (gray_inverse) and a check (the divisor is not 0) on every block.
func BenchmarkCountChecked(b *testing.B) {
	bl := fuse.NewBuilder(1)
	s := bl.Param(0)
	d := bl.Op2(fuse.OpOr, s, bl.Const(1), 0)
	bl.Check(fuse.Check{Kind: fuse.CheckNonZero, A: d, Mask: fuse.NoMask, Msg: "%: x % 0"})
	m := bl.Op2(fuse.OpMod, bl.Op1(fuse.OpGrayInv, s, 0), d, 0)
	c := New(bl.Finish(bl.Op2(fuse.OpNe, m, bl.Const(0), 0)))
	b.ResetTimer()
	res, err := c.Run(context.Background(), []fuse.Space{fuse.Range{Step: 1, N: uint64(b.N)}}, fuse.Count, fuse.Options{Workers: 1})
	if err != nil || res.Count > uint64(b.N) {
		b.Fatal(err)
	}
}
