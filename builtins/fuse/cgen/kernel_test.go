package cgen

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
	"github.com/bitsh/bitsh/internal/testscale"
)

// cudaShim lets the C compiler build the CUDA kernel: the grid becomes
// loops (see the generated main) and atomics become plain updates.
const cudaShim = `#include <stdio.h>
#define FUSE_EXTERN
#define __global__
#define __device__
struct fuse_dim { unsigned x; };
static struct fuse_dim blockIdx, threadIdx, blockDim, gridDim;
static unsigned long long atomicAdd(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; *p += v; return o; }
static unsigned long long atomicMin(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; if (v < o) *p = v; return o; }
static unsigned long long atomicMax(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; if (v > o) *p = v; return o; }
static unsigned long long atomicOr(unsigned long long *p, unsigned long long v) { unsigned long long o = *p; *p |= v; return o; }
#define __popcll(x) __builtin_popcountll(x)
#define __ffsll(x) __builtin_ffsll(x)
#define __clzll(x) ((x) ? __builtin_clzll(x) : 64)
#define __umul64hi(a, b) ((unsigned long long)(((unsigned __int128)(a) * (b)) >> 64))
`

// TestCUDAKernelAsC runs the CUDA kernel of random programs, compiled as C
// with the shim, over a small grid (3 blocks of 4 threads, so the
// grid-stride loop and the per-thread reductions are exercised), and
// compares every method with the CPU executor. This is how the GPU path is
// checked on machines without a GPU.
func TestCUDAKernelAsC(t *testing.T) {
	cc := cCompiler()
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang) found: the CUDA kernel is not checked as C")
	}
	r := rand.New(rand.NewPCG(5, 6))
	rounds := 12
	if testscale.Short() {
		rounds = 4
	}
	compared, errs := 0, 0
	defer func() { t.Logf("%d results compared, %d first errors compared", compared, errs) }()
	for round := 0; round < rounds; round++ {
		p := progtest.Line(r, 1+r.IntN(3), 1+r.IntN(20))
		n := uint64(1 + r.IntN(120))
		base := uint64(r.IntN(1000))
		rng := fuse.Range{Start: progtest.Word(r), Step: progtest.Word(r), N: base + n}
		cols := make([]fuse.Array, 3)
		for i := range cols {
			cols[i] = make(fuse.Array, n)
			for j := range cols[i] {
				cols[i][j] = progtest.Word(r)
			}
		}
		var src strings.Builder
		src.WriteString(cudaShim)
		src.WriteString(CUDASource(p))
		src.WriteString("int main(void) {\n")
		for i, c := range cols {
			fmt.Fprintf(&src, "\tstatic u64 x%d[] = {", i)
			for _, v := range c {
				fmt.Fprintf(&src, "%#xULL, ", v)
			}
			src.WriteString("};\n")
		}
		fmt.Fprintf(&src, "\tstatic u64 out[%d];\n", n)
		src.WriteString("\tgridDim.x = 3; blockDim.x = 4;\n")
		src.WriteString("\tfor (int kind = 0; kind < 2; kind++) for (int m = 0; m < 7; m++) {\n")
		src.WriteString("\t\tu64 acc[4] = {m == 3 ? ~0ULL : 0, 0, ~0ULL, ~0ULL};\n")
		src.WriteString("\t\tfor (unsigned b = 0; b < 3; b++) for (unsigned t = 0; t < 4; t++) {\n")
		src.WriteString("\t\t\tblockIdx.x = b; threadIdx.x = t;\n")
		x1, x2 := "0", "0"
		if p.Params > 1 {
			x1 = "(u64)x1"
		}
		if p.Params > 2 {
			x2 = "(u64)x2"
		}
		fmt.Fprintf(&src, "\t\t\tfuse_run(m, kind, %#xULL, %#xULL, (u64)x0, %s, %s, %d, %d, (u64)out, (u64)acc);\n", rng.Start, rng.Step, x1, x2, base, n)
		src.WriteString("\t\t}\n")
		src.WriteString("\t\tprintf(\"%llu %llu %llu %llu\", acc[0], acc[1], acc[2], acc[3]);\n")
		fmt.Fprintf(&src, "\t\tfor (int i = 0; i < %d; i++) printf(\" %%llu\", (m == 0 || m == 6) ? out[i] : 0ULL);\n", n)
		src.WriteString("\t\tprintf(\"\\n\");\n\t}\n\treturn 0;\n}\n")
		lines := strings.Split(strings.TrimSpace(runC(t, cc, src.String())), "\n")

		c := block.New(p)
		for kind := 0; kind < 2; kind++ {
			// The CPU sees the same items: positions base.. of the range,
			// or the arrays.
			var sp0 fuse.Space = cols[0]
			if kind == KindRange {
				all := make(fuse.Array, n)
				rng.Fill(base, all)
				sp0 = all
			}
			spaces := []fuse.Space{sp0, cols[1], cols[2]}[:p.Params]
			for m := fuse.Map; m <= fuse.Filter; m++ {
				f := strings.Fields(lines[kind*7+int(m)])
				var acc [4]uint64
				for i := range acc {
					fmt.Sscan(f[i], &acc[i])
				}
				outs := make([]uint64, n)
				for i := range outs {
					fmt.Sscan(f[4+i], &outs[i])
				}
				opt := fuse.Options{Workers: 1, Out: make([]uint64, n), Limit: n}
				res, err := c.Run(context.Background(), spaces, m, opt)
				what := fmt.Sprintf("round %d, kind %d, method %d\n%s", round, kind, m, p)
				var ie *fuse.ItemError
				if errors.As(err, &ie) {
					if acc[AccErr] != base+ie.Index {
						t.Fatalf("%s: kernel's first error at %d, CPU's at %d", what, acc[AccErr]-base, ie.Index)
					}
					errs++
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if m == fuse.First {
					if res.Found != (acc[AccFirst] != ^uint64(0) && acc[AccFirst] < acc[AccErr]) || res.Found && acc[AccFirst] != base+res.Index {
						t.Fatalf("%s: kernel first %d (error %d), CPU %v %d", what, acc[AccFirst], acc[AccErr], res.Found, res.Index)
					}
					continue
				}
				if acc[AccErr] != ^uint64(0) {
					t.Fatalf("%s: kernel reports an error at %d, the CPU none", what, acc[AccErr])
				}
				var got, want any
				switch m {
				case fuse.Map:
					got, want = outs, opt.Out
				case fuse.Count:
					got, want = acc[AccLo], res.Count
				case fuse.Sum:
					got, want = [2]uint64{acc[AccHi], acc[AccLo]}, [2]uint64{res.SumHi, res.SumLo}
				case fuse.Min, fuse.Max:
					got, want = acc[AccLo], res.Value
				case fuse.Filter:
					var items []uint64
					all := make([]uint64, n)
					sp0.Fill(0, all)
					for i, v := range outs {
						if v != 0 {
							items = append(items, all[i])
						}
					}
					got, want = fmt.Sprint(items), fmt.Sprint(res.Items)
					if len(items) == 0 {
						got = fmt.Sprint([]uint64(nil))
						want = fmt.Sprint([]uint64(nil))
						if len(res.Items) != 0 {
							want = "nonempty"
						}
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("%s: kernel %v, CPU %v", what, got, want)
				}
				compared++
			}
		}
	}
}
