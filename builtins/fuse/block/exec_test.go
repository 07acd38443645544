package block

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
	"github.com/bitsh/bitsh/internal/testscale"
)

// naive runs method by calling Eval on each item in order.
func naive(p *fuse.Line, items [][]uint64, method fuse.Method, limit uint64) (*fuse.Result, error) {
	res := &fuse.Result{}
	if method == fuse.Min {
		res.Value = ^uint64(0)
	}
	for i, it := range items {
		v, f := p.Eval(it)
		if f >= 0 {
			return nil, &fuse.ItemError{Index: uint64(i), Params: it, Check: &p.Checks[f]}
		}
		switch method {
		case fuse.Count:
			if v != 0 {
				res.Count++
			}
		case fuse.Sum:
			var cy uint64
			res.SumLo, cy = bits.Add64(res.SumLo, v, 0)
			res.SumHi += cy
		case fuse.Min:
			res.Value, res.Found = min(res.Value, v), true
		case fuse.Max:
			res.Value, res.Found = max(res.Value, v), true
		case fuse.First:
			if v != 0 {
				res.Found, res.Index = true, uint64(i)
				return res, nil
			}
		case fuse.Filter, fuse.Map:
			if method == fuse.Map {
				res.Items = append(res.Items, v)
			} else if v != 0 {
				res.Items = append(res.Items, it[0])
				if uint64(len(res.Items)) > limit {
					return nil, &fuse.LimitError{Limit: limit}
				}
			}
		}
	}
	return res, nil
}

func sameOutcome(t *testing.T, what string, got *fuse.Result, gotErr error, want *fuse.Result, wantErr error, method fuse.Method) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
	}
	if wantErr != nil {
		var ge, we *fuse.ItemError
		if errors.As(wantErr, &we) {
			if !errors.As(gotErr, &ge) || ge.Index != we.Index || ge.Check != we.Check {
				t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
			}
		}
		return
	}
	var g, w any
	switch method {
	case fuse.Count:
		g, w = got.Count, want.Count
	case fuse.Sum:
		g, w = [2]uint64{got.SumHi, got.SumLo}, [2]uint64{want.SumHi, want.SumLo}
	case fuse.Min, fuse.Max:
		g, w = fmt.Sprint(got.Found, got.Value), fmt.Sprint(want.Found, want.Value)
	case fuse.First:
		g, w = fmt.Sprint(got.Found, got.Index), fmt.Sprint(want.Found, want.Index)
	case fuse.Filter, fuse.Map:
		g, w = fmt.Sprint(got.Items), fmt.Sprint(want.Items)
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("%s: got %v, want %v", what, g, w)
	}
}

// checkProgram compares the block executor on 1, 2 and 3 workers with the
// item-by-item evaluation, for every method, over arrays of items.
func checkProgram(t *testing.T, p *fuse.Line, r *rand.Rand, n int) {
	t.Helper()
	c := New(p)
	cols := make([]fuse.Array, p.Params)
	for i := range cols {
		cols[i] = make(fuse.Array, n)
		for j := range cols[i] {
			cols[i][j] = progtest.Word(r)
		}
	}
	items := make([][]uint64, n)
	for j := range items {
		for i := range cols {
			items[j] = append(items[j], cols[i][j])
		}
	}
	spaces := make([]fuse.Space, len(cols))
	for i := range cols {
		spaces[i] = cols[i]
	}
	for method := fuse.Map; method <= fuse.Filter; method++ {
		limit := uint64(n)
		if method == fuse.Filter && r.IntN(3) == 0 {
			limit = uint64(r.IntN(n + 1))
		}
		want, wantErr := naive(p, items, method, limit)
		for workers := 1; workers <= 3; workers++ {
			opt := fuse.Options{Workers: workers, Limit: limit}
			if method == fuse.Map {
				opt.Out = make([]uint64, n)
			}
			got, err := c.Run(context.Background(), spaces, method, opt)
			if method == fuse.Map && err == nil {
				got.Items = opt.Out
			}
			sameOutcome(t, fmt.Sprintf("method %d, %d workers\n%s", method, workers, p), got, err, want, wantErr, method)
		}
	}
}

func TestRandomPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 120
	if testscale.Short() {
		rounds = 60
	}
	for i := 0; i < rounds; i++ {
		p := progtest.Line(r, 1+r.IntN(3), 1+r.IntN(30))
		checkProgram(t, p, r, []int{0, 1, 5, 300, 3000}[r.IntN(5)])
	}
}

func FuzzProgram(f *testing.F) {
	f.Add(uint64(1), uint8(10), uint16(100))
	f.Fuzz(func(t *testing.T, seed uint64, size uint8, n uint16) {
		r := rand.New(rand.NewPCG(seed, 7))
		p := progtest.Line(r, 1+r.IntN(3), 1+int(size%40))
		checkProgram(t, p, r, int(n%2000))
	})
}

func TestSpaces(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := New(b.Finish(b.Param(0))) // identity
	d := uint64(0xf0f1)
	var all, k3 []uint64
	for x := uint64(0); ; x = (x - d) & d {
		all = append(all, x)
		if bits.OnesCount64(x) == 3 {
			k3 = append(k3, x)
		}
		if x == d {
			break
		}
	}
	seek := func(list []uint64) func(uint64) uint64 { return func(i uint64) uint64 { return list[i] } }
	for _, c := range []struct {
		name  string
		space fuse.Space
		want  []uint64
	}{
		{"range", fuse.Range{Start: 5, Step: ^uint64(2), N: 1000}, func() []uint64 {
			var w []uint64
			for i := 0; i < 1000; i++ {
				w = append(w, 5+uint64(i)*^uint64(2))
			}
			return w
		}()},
		{"subsets", fuse.Subsets{D: d, K: -1, N: uint64(len(all)), Seek: seek(all)}, all},
		{"k-subsets", fuse.Subsets{D: d, K: 3, N: uint64(len(k3)), Seek: seek(k3)}, k3},
	} {
		for workers := 1; workers <= 3; workers++ {
			out := make([]uint64, c.space.Len())
			if _, err := p.Run(context.Background(), []fuse.Space{c.space}, fuse.Map, fuse.Options{Workers: workers, Out: out}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(out) != fmt.Sprint(c.want) {
				t.Errorf("%s, %d workers: %v, want %v", c.name, workers, out[:min(10, len(out))], c.want[:min(10, len(c.want))])
			}
		}
	}
}

func TestCancel(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := New(b.Finish(b.Op1(fuse.OpPopcount, b.Param(0), 0)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Run(ctx, []fuse.Space{fuse.Range{N: 1 << 40, Step: 1}}, fuse.Count, fuse.Options{Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

func TestSumExact(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := New(b.Finish(b.Op1(fuse.OpNot, b.Param(0), 0))) // ~s: near 2^64
	n := uint64(100000)
	for workers := 1; workers <= 3; workers++ {
		res, err := p.Run(context.Background(), []fuse.Space{fuse.Range{Step: 1, N: n}}, fuse.Sum, fuse.Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := new(big.Int).Lsh(new(big.Int).SetUint64(res.SumHi), 64)
		got.Add(got, new(big.Int).SetUint64(res.SumLo))
		want := new(big.Int)
		for i := uint64(0); i < n; i++ {
			want.Add(want, new(big.Int).SetUint64(^i))
		}
		if got.Cmp(want) != 0 {
			t.Fatalf("%d workers: sum %s, want %s", workers, got, want)
		}
	}
}

// TestProgress: a run reports its progress, ending at the space's size.
func TestProgress(t *testing.T) {
	b := fuse.NewBuilder(1)
	p := New(b.Finish(b.Op1(fuse.OpPopcount, b.Param(0), 0)))
	var last, calls int64
	var mu sync.Mutex // workers report concurrently
	n := uint64(1 << 20)
	opt := fuse.Options{Workers: 2, Progress: func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if total != int64(n) {
			t.Errorf("total %d, want %d", total, n)
		}
		calls++
		last = max(last, done)
	}}
	if _, err := p.Run(context.Background(), []fuse.Space{fuse.Range{Step: 1, N: n}}, fuse.Count, opt); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != int64(n) {
		t.Fatalf("%d progress calls, last done %d, want up to %d", calls, last, n)
	}
}

// TestPeephole: the fused passes (popcount(x & K), x ^ x >> K, x ^ x << K)
// give what the plain instructions give.
func TestPeephole(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, k := range []uint64{0, 1, 7, 63, 64, 100} {
		b := fuse.NewBuilder(2)
		s, u := b.Param(0), b.Param(1)
		kk := b.Const(k)
		v1 := b.Op2(fuse.OpXor, s, b.Op2(fuse.OpShr, s, kk, 0), 0)
		v2 := b.Op2(fuse.OpXor, b.Op2(fuse.OpShl, s, kk, 0), s, 0)
		v3 := b.Op2(fuse.OpXor, s, b.Op2(fuse.OpShr, u, kk, 0), 0) // not the pattern: another operand
		v4 := b.Op1(fuse.OpPopcount, b.Op2(fuse.OpAnd, s, b.Const(k*0x9e3779b97f4a7c15), 0), 0)
		p := b.Finish(b.Op2(fuse.OpAdd, b.Op2(fuse.OpAdd, v1, v2, 0), b.Op2(fuse.OpMul, v3, v4, 0), 0))
		c := New(p)
		for i := 0; i < 1000; i++ {
			in := []uint64{r.Uint64(), r.Uint64()}
			want, _ := p.Eval(in)
			if got, err := c.Call(in); err != nil || got != want {
				t.Fatalf("k = %d, %#x: %#x, want %#x", k, in, got, want)
			}
		}
	}
}

// TestPeepholeRewrites: which instructions the block executor runs for the
// patterns peephole knows, and for near misses; the results agree with Eval.
func TestPeepholeRewrites(t *testing.T) {
	const k = 0x9e3779b97f4a7c15
	xs := func(b *fuse.Builder, op fuse.Op, x fuse.Value, n uint64) fuse.Value {
		return b.Op2(fuse.OpXor, x, b.Op2(op, x, b.Const(n), 0), 0)
	}
	cases := []struct {
		name string
		f    func(b *fuse.Builder, s, u fuse.Value) fuse.Value
		want string // the executor's instructions, in order
	}{
		{"popcount(s & K)", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op1(fuse.OpPopcount, b.Op2(fuse.OpAnd, s, b.Const(k), 0), 0)
		}, "pop_and_k"},
		{"s ^ s >> 7", func(b *fuse.Builder, s, u fuse.Value) fuse.Value { return xs(b, fuse.OpShr, s, 7) }, "xor_shr_k"},
		{"(s ^ s >> 7) * K", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op2(fuse.OpMul, xs(b, fuse.OpShr, s, 7), b.Const(k), 0)
		}, "xor_shr_mul"},
		{"K * (s ^ s << 0)", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op2(fuse.OpMul, b.Const(k), xs(b, fuse.OpShl, s, 0), 0)
		}, "xor_shl_mul"},
		{"(s ^ s >> 63) * u", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op2(fuse.OpMul, xs(b, fuse.OpShr, s, 63), u, 0)
		}, "xor_shr_mul"},
		{"splitmix64's steps", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			z := b.Op2(fuse.OpMul, xs(b, fuse.OpShr, s, 30), b.Const(0xbf58476d1ce4e5b9), 0)
			z = b.Op2(fuse.OpMul, xs(b, fuse.OpShr, z, 27), b.Const(0x94d049bb133111eb), 0)
			return xs(b, fuse.OpShr, z, 31)
		}, "xor_shr_mul xor_shr_mul xor_shr_k"},
		{"an xorshift used twice", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			x := xs(b, fuse.OpShr, s, 7)
			return b.Op2(fuse.OpAdd, b.Op2(fuse.OpMul, x, b.Const(k), 0), x, 0)
		}, "xor_shr_k mul add"},
		{"(s ^ s >> 64) * K", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op2(fuse.OpMul, xs(b, fuse.OpShr, s, 64), b.Const(k), 0)
		}, "shr xor mul"},
		{"(s ^ u >> 7) * K", func(b *fuse.Builder, s, u fuse.Value) fuse.Value {
			return b.Op2(fuse.OpMul, b.Op2(fuse.OpXor, s, b.Op2(fuse.OpShr, u, b.Const(7), 0), 0), b.Const(k), 0)
		}, "shr xor mul"},
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range cases {
		b := fuse.NewBuilder(2)
		p := b.Finish(c.f(b, b.Param(0), b.Param(1)))
		comp := New(p)
		var ops []string
		for _, x := range comp.pl.code {
			ops = append(ops, opName(x.op))
		}
		if got := strings.Join(ops, " "); got != c.want {
			t.Errorf("%s: the executor runs %q, want %q", c.name, got, c.want)
		}
		for i := 0; i < 1000; i++ {
			in := []uint64{progtest.Word(r), progtest.Word(r)}
			want, _ := p.Eval(in)
			if got, err := comp.Call(in); err != nil || got != want {
				t.Fatalf("%s of %#x = %#x, want %#x", c.name, in, got, want)
			}
		}
	}
}
