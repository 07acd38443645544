//go:build linux

package cuda_test

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

// serialiseSrc is the bit-serialising loop of bench/fuse_search.star.
const serialiseSrc = `
def f(b):
    n = 0
    while b:
        n += bsf(b)
        b &= b - 1
    return n
`

// serialise is serialiseSrc in Go.
func serialise(b uint64) uint64 {
	n := uint64(0)
	for ; b != 0; b &= b - 1 {
		n += uint64(bits.TrailingZeros64(b))
	}
	return n
}

// bigWords is n pseudo-random words.
func bigWords(n int) fuse.Array {
	ws := make(fuse.Array, n)
	for i := range ws {
		ws[i] = uint64(i+1) * 0x9e3779b97f4a7c15
	}
	return ws
}

// digest is a run's answer in a line, with a digest of its results.
func digest(res *fuse.Result, err error, out []uint64) string {
	if err != nil {
		var ie *fuse.ItemError
		if errors.As(err, &ie) {
			return fmt.Sprintf("item %d fails (%v)", ie.Index, ie.Params)
		}
		return "error: " + err.Error()
	}
	h, items := uint64(0), uint64(0)
	for _, w := range out {
		h = (h ^ w) * 0x100000001b3
	}
	for _, w := range res.Items {
		items = (items ^ w) * 0x100000001b3
	}
	return fmt.Sprint(res.Count, res.SumHi, res.SumLo, res.Value, res.Found, res.Index, len(res.Items), items, h)
}

// TestGPUTransfer compares the GPU with the CPU over a words array of
// several chunks (a pinned buffer holds 2^20 words): a straight line that
// fails on one item, and a loop, every method, every result and item. It
// needs a GPU.
func TestGPUTransfer(t *testing.T) {
	dev, err := cuda.Open()
	if err != nil {
		t.Skipf("no GPU to test on (%v); the launcher is tested on a simulated device by TestLauncher*", err)
	}
	ws := bigWords(5<<20 + 12345)
	ws[4<<20+99] = 0
	n := uint64(len(ws))
	ctx := context.Background()

	// bsf fails at the zero: the error is the first failing item's, the
	// results before it the CPU's.
	b := fuse.NewBuilder(1)
	b.Check(fuse.Check{Kind: fuse.CheckNonZero, A: b.Param(0), Mask: fuse.NoMask, Msg: "bsf: x = 0 has no one bit"})
	p := b.Finish(b.Op1(fuse.OpBsf, b.Param(0), 0))
	k, err := dev.Kernel(p)
	if err != nil {
		t.Fatal(err)
	}
	cpu := block.New(p)
	for m := fuse.Map; m <= fuse.Filter; m++ {
		o1 := fuse.Options{Workers: 4, Out: make([]uint64, n), Limit: n}
		o2 := fuse.Options{Workers: 4, Out: make([]uint64, n), Limit: n}
		got, gerr := k.Run(ctx, []fuse.Space{ws}, m, o1)
		want, werr := cpu.Run(ctx, []fuse.Space{ws}, m, o2)
		if g, w := digest(got, gerr, o1.Out), digest(want, werr, o2.Out); g != w {
			t.Errorf("bsf, method %d: GPU %s, CPU %s", m, g, w)
		}
	}

	// The loop, against Go.
	s, err := fusescript.Load(serialiseSrc)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		t.Fatal(err)
	}
	fk, err := dev.FuncKernel(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fk.Close()
	want := &fuse.Result{Value: ^uint64(0), Found: true}
	wantOut := make([]uint64, n)
	var wantMax uint64
	first := true
	for i, w := range ws {
		r := serialise(w)
		wantOut[i] = r
		var c uint64
		want.SumLo, c = bits.Add64(want.SumLo, r, 0)
		want.SumHi += c
		want.Value = min(want.Value, r)
		wantMax = max(wantMax, r)
		if r != 0 {
			want.Count++
			want.Items = append(want.Items, w)
			if first {
				want.Index, first = uint64(i), false
			}
		}
	}
	for m := fuse.Map; m <= fuse.Filter; m++ {
		o := fuse.Options{Workers: 4, Limit: n}
		if m == fuse.Map {
			o.Out = make([]uint64, n)
		}
		got, err := fk.Run(ctx, []fuse.Space{ws}, m, o)
		if err != nil {
			t.Fatalf("serialise, method %d: %v", m, err)
		}
		var g, w string
		switch m {
		case fuse.Map:
			g, w = digest(&fuse.Result{}, nil, o.Out), digest(&fuse.Result{}, nil, wantOut)
		case fuse.Count:
			g, w = fmt.Sprint(got.Count), fmt.Sprint(want.Count)
		case fuse.Sum:
			g, w = fmt.Sprint(got.SumHi, got.SumLo), fmt.Sprint(want.SumHi, want.SumLo)
		case fuse.Min:
			g, w = fmt.Sprint(got.Value), fmt.Sprint(want.Value)
		case fuse.Max:
			g, w = fmt.Sprint(got.Value), fmt.Sprint(wantMax)
		case fuse.First:
			g, w = fmt.Sprint(got.Found, got.Index), fmt.Sprint(true, want.Index)
		case fuse.Filter:
			g, w = digest(&fuse.Result{Items: got.Items}, nil, nil), digest(&fuse.Result{Items: want.Items}, nil, nil)
		}
		if g != w {
			t.Errorf("serialise, method %d: GPU %s, Go %s", m, g, w)
		}
	}
}

// BenchmarkGPUArraySerialise: one op is the serialising sum over a 2^24-word
// array on the GPU (128 MiB across the bus), after compilation; the
// figure of docs/performance.md's GPU section. GB/s is the array's bytes
// over the time.
func BenchmarkGPUArraySerialise(b *testing.B) {
	dev, err := cuda.Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	s, err := fusescript.Load(serialiseSrc)
	if err != nil {
		b.Fatal(err)
	}
	f, err := s.Compile("f")
	if err != nil {
		b.Fatal(err)
	}
	k, err := dev.FuncKernel(f)
	if err != nil {
		b.Fatal(err)
	}
	defer k.Close()
	benchArray(b, func(ctx context.Context, ws fuse.Array) error {
		_, err := k.Run(ctx, []fuse.Space{ws}, fuse.Sum, fuse.Options{Workers: runtime.NumCPU()})
		return err
	})
}

// BenchmarkGPUArrayPopcount: one op is the sum of popcount(x & m) over a
// 2^24-word array on the GPU, a straight line whose time is the bus's.
func BenchmarkGPUArrayPopcount(b *testing.B) {
	dev, err := cuda.Open()
	if err != nil {
		b.Skipf("no GPU: %v", err)
	}
	bl := fuse.NewBuilder(1)
	k, err := dev.Kernel(bl.Finish(bl.Op1(fuse.OpPopcount, bl.Op2(fuse.OpAnd, bl.Param(0), bl.Const(0x2a5a5a), 0), 0)))
	if err != nil {
		b.Fatal(err)
	}
	benchArray(b, func(ctx context.Context, ws fuse.Array) error {
		_, err := k.Run(ctx, []fuse.Space{ws}, fuse.Sum, fuse.Options{Workers: runtime.NumCPU()})
		return err
	})
}

func benchArray(b *testing.B, run func(context.Context, fuse.Array) error) {
	ws := bigWords(1 << 24)
	if err := run(context.Background(), ws); err != nil { // the pinned buffers, the first launch
		b.Fatal(err)
	}
	b.ResetTimer()
	t0 := time.Now()
	for range b.N {
		if err := run(context.Background(), ws); err != nil {
			b.Fatal(err)
		}
	}
	el := time.Since(t0)
	b.ReportMetric(float64(el.Milliseconds())/float64(b.N), "ms/run")
	b.ReportMetric(float64(len(ws)*8)*float64(b.N)/el.Seconds()/1e9, "GB/s")
}
