package native_test

import (
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

// magicSrc is the magic check of docs/fuse.md: a candidate for the rook on
// d4 from splitmix64's finalizer, checked against every occupancy.
const magicSrc = `
mask = chess.rook_mask(27)
occ = words(subsets(mask))
att = chess.rook_attacks(27, occ)
bits = popcount(mask)

def mix(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & U64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & U64
    return x ^ (x >> 31)

def candidate(i):
    return mix(3 * i) & mix(3 * i + 1) & mix(3 * i + 2)

def is_magic(i):
    m = candidate(i)
    if popcount(((mask * m) & U64) >> 56) < 6:
        return False
    seen = [0] * 4096
    for j in range(len(occ)):
        k = ((occ[j] * m) & U64) >> (64 - bits)
        if seen[k] == 0:
            seen[k] = att[j]
        elif seen[k] != att[j]:
            return False
    return True
`

const serialiseSrc = `
def f(b):
    n = 0
    while b:
        n += bsf(b)
        b &= b - 1
    return n
`

// eachEngine runs bench as a sub-benchmark for each engine this machine
// runs (amd64, wasm), so that one run compares them.
func eachEngine(b *testing.B, bench func(b *testing.B, e native.Engine)) {
	for _, e := range engines(b) {
		b.Run(e.String(), func(b *testing.B) { bench(b, e) })
	}
}

func compileSrc(tb testing.TB, e native.Engine, src, name string) (*fuse.Func, *native.Executable) {
	tb.Helper()
	s, err := fusescript.Load(src)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := s.Compile(name)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	p, err := native.CompileWith(f, e)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: compiled by %v in %v", name, e, time.Since(start))
	return f, p
}

// benchRange runs p over items 0, 1, ... and reports ns per item.
func benchRange(b *testing.B, p *native.Executable, gen func(i uint64) uint64) {
	w, err := p.NewWorker(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ResetTimer()
	var sink uint64
	for i := 0; i < b.N; i += native.Batch {
		in := w.Params(0)
		for j := range in {
			in[j] = gen(uint64(i + j))
		}
		_, res, err := w.Run(native.Batch, false)
		if err != nil {
			b.Fatal(err)
		}
		sink += res[0]
	}
	_ = sink
}

func BenchmarkMagicCheck(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, magicSrc, "is_magic")
		defer p.Close()
		benchRange(b, p, func(i uint64) uint64 { return i })
	})
}

func BenchmarkSerialise(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, serialiseSrc, "f")
		defer p.Close()
		benchRange(b, p, func(i uint64) uint64 { return i * 0x9e3779b97f4a7c15 })
	})
}

func BenchmarkCompileMagic(b *testing.B) {
	s, err := fusescript.Load(magicSrc)
	if err != nil {
		b.Fatal(err)
	}
	eachEngine(b, func(b *testing.B, e native.Engine) {
		for i := 0; i < b.N; i++ {
			f, err := s.Compile("is_magic")
			if err != nil {
				b.Fatal(err)
			}
			p, err := native.CompileWith(f, e)
			if err != nil {
				b.Fatal(err)
			}
			p.Close()
		}
	})
}

func BenchmarkTrivial(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, "def f(x):\n    return x + 1\n", "f")
		defer p.Close()
		benchRange(b, p, func(i uint64) uint64 { return i })
	})
}

func BenchmarkMixOnly(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, magicSrc+`
	def pre(i):
	    m = candidate(i)
	    return popcount(((mask * m) & U64) >> 56) < 6
	`, "pre")
		defer p.Close()
		benchRange(b, p, func(i uint64) uint64 { return i })
	})
}

// BenchmarkTrivialRunOnly times Run alone on a block filled once: the cost
// of an item in the compiled loop.
func BenchmarkTrivialRunOnly(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, "def f(x):\n    return x + 1\n", "f")
		defer p.Close()
		w, err := p.NewWorker(nil)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		for j := range w.Params(0) {
			w.Params(0)[j] = uint64(j)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i += native.Batch {
			if _, _, err := w.Run(native.Batch, false); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkScratchLoop times the magic check's inner loop without its early
// exit: ns/op divided by 1024 is the cost of one iteration.
func BenchmarkScratchLoop(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		_, p := compileSrc(b, e, magicSrc+`
	def loop(i):
	    seen = [0] * 4096
	    n = 0
	    for j in range(len(occ)):
	        k = ((occ[j] * (i * 0x9e3779b97f4a7c15 | 1)) & U64) >> 54
	        if seen[k] == 0:
	            seen[k] = att[j]
	        elif seen[k] != att[j]:
	            n += 1
	    return n
	`, "loop")
		defer p.Close()
		benchRange(b, p, func(i uint64) uint64 { return i })
	})
}

func BenchmarkLoopVariants(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		for _, v := range []struct{ name, body string }{
			{"sum", "        n += occ[j] * i\n"},
			{"hash", "        n += ((occ[j] * (i | 1)) & U64) >> 54\n"},
			{"scratchread", "        n += seen[((occ[j] * (i | 1)) & U64) >> 54]\n"},
			{"scratchwrite", "        seen[((occ[j] * (i | 1)) & U64) >> 54] = j\n"},
		} {
			b.Run(v.name, func(b *testing.B) {
				_, p := compileSrc(b, e, magicSrc+"def loop(i):\n    seen = [0] * 4096\n    n = 0\n    for j in range(len(occ)):\n"+v.body+"    return n + seen[i & 4095]\n", "loop")
				defer p.Close()
				benchRange(b, p, func(i uint64) uint64 { return i })
			})
		}
	})
}

func BenchmarkCountingLoop(b *testing.B) {
	eachEngine(b, func(b *testing.B, e native.Engine) {
		for _, v := range []struct{ name, src string }{
			{"while", "def f(x):\n    n = 0\n    while n < 1000:\n        n += 1\n    return n + x\n"},
			{"range", "def f(x):\n    n = 0\n    for j in range(1000):\n        n += j\n    return n + x\n"},
		} {
			b.Run(v.name, func(b *testing.B) {
				_, p := compileSrc(b, e, v.src, "f")
				defer p.Close()
				benchRange(b, p, func(i uint64) uint64 { return i })
			})
		}
	})
}

func BenchmarkCompileParts(b *testing.B) {
	s, err := fusescript.Load(magicSrc)
	if err != nil {
		b.Fatal(err)
	}
	f, err := s.Compile("is_magic")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("starlark-to-func", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Compile("is_magic"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("emit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, _, err := native.Module(f); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, e := range engines(b) {
		b.Run(e.String(), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p, err := native.CompileWith(f, e)
				if err != nil {
					b.Fatal(err)
				}
				p.Close()
			}
		})
	}
	b.Run("worker", func(b *testing.B) {
		p, err := native.Compile(f)
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		for i := 0; i < b.N; i++ {
			w, err := p.NewWorker(nil)
			if err != nil {
				b.Fatal(err)
			}
			w.Close()
		}
	})
}

// findSrc counts, for item i, the De Bruijn sequences below the first K
// branches its bits take.
const findSrc = fusescript.DeBruijnFind + `
K = 12
def f(i):
    return find(0, 58, 0, 6, 1 << 32, i, K)
`

// goFind is find in Go, counting its calls in *calls.
func goFind(calls *uint64, seq, depth, vtx, nz, lock, path, k uint64) uint64 {
	*calls++
	if (lock>>vtx)&1 != 0 || nz > 32 {
		return 0
	}
	if depth == 0 {
		return 1
	}
	lock |= 1 << vtx
	if vtx == 31 && depth > 2 {
		return goFind(calls, seq|1<<(depth-1), depth-2, 62, nz+1, lock, path, k)
	}
	if k > 0 {
		if path&1 != 0 {
			return goFind(calls, seq|1<<(depth-1), depth-1, (2*vtx+1)&63, nz, lock, path>>1, k-1)
		}
		return goFind(calls, seq, depth-1, (2*vtx)&63, nz+1, lock, path>>1, k-1)
	}
	return goFind(calls, seq, depth-1, (2*vtx)&63, nz+1, lock, 0, 0) +
		goFind(calls, seq|1<<(depth-1), depth-1, (2*vtx+1)&63, nz, lock, 0, 0)
}

// BenchmarkDeBruijnFind counts the De Bruijn sequences of two subtrees
// (items of K = 12) with the recursive find, on the engines that compile
// calls and as Go compiled ahead of time (a reference on a noisy
// machine); it reports ns per call of find (and checks the counts against
// find in Go).
func BenchmarkDeBruijnFind(b *testing.B) {
	items := []uint64{485, 1455}
	var calls, want uint64
	for _, i := range items {
		want += goFind(&calls, 0, 58, 0, 6, 1<<32, i, 12)
	}
	for _, e := range callEngines(b) {
		b.Run(e.String(), func(b *testing.B) {
			_, p := compileSrc(b, e, findSrc, "f")
			defer p.Close()
			w, err := p.NewWorker(nil)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			copy(w.Params(0), items)
			b.ResetTimer()
			for range b.N {
				_, res, err := w.Run(len(items), false)
				if err != nil {
					b.Fatal(err)
				}
				if res[0]+res[1] != want {
					b.Fatalf("%d sequences; want %d", res[0]+res[1], want)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
		})
	}
	b.Run("go", func(b *testing.B) {
		for range b.N {
			var n, got uint64
			for _, i := range items {
				got += goFind(&n, 0, 58, 0, 6, 1<<32, i, 12)
			}
			if got != want {
				b.Fatalf("%d sequences; want %d", got, want)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(calls), "ns/call")
	})
}
