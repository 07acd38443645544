package native_test

import (
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
	"github.com/bitsh/bitsh/builtins/fuse/native"
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

func compileSrc(tb testing.TB, src, name string) (*fuse.Func, *native.Program) {
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
	p, err := native.Compile(f)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Logf("%s: compiled in %v", name, time.Since(start))
	return f, p
}

// benchRange runs p over items 0, 1, ... and reports ns per item.
func benchRange(b *testing.B, p *native.Program, gen func(i uint64) uint64) {
	w, err := p.NewWorker(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	b.ResetTimer()
	var sink uint64
	for i := 0; i < b.N; i += native.Block {
		in := w.Params(0)
		for j := range in {
			in[j] = gen(uint64(i + j))
		}
		_, res, err := w.Run(native.Block, false)
		if err != nil {
			b.Fatal(err)
		}
		sink += res[0]
	}
	_ = sink
}

func BenchmarkMagicCheck(b *testing.B) {
	_, p := compileSrc(b, magicSrc, "is_magic")
	defer p.Close()
	benchRange(b, p, func(i uint64) uint64 { return i })
}

func BenchmarkSerialise(b *testing.B) {
	_, p := compileSrc(b, serialiseSrc, "f")
	defer p.Close()
	benchRange(b, p, func(i uint64) uint64 { return i * 0x9e3779b97f4a7c15 })
}

func BenchmarkCompileMagic(b *testing.B) {
	s, err := fusescript.Load(magicSrc)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		f, err := s.Compile("is_magic")
		if err != nil {
			b.Fatal(err)
		}
		p, err := native.Compile(f)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}

func BenchmarkTrivial(b *testing.B) {
	_, p := compileSrc(b, "def f(x):\n    return x + 1\n", "f")
	defer p.Close()
	benchRange(b, p, func(i uint64) uint64 { return i })
}

func BenchmarkMixOnly(b *testing.B) {
	_, p := compileSrc(b, magicSrc+`
def pre(i):
    m = candidate(i)
    return popcount(((mask * m) & U64) >> 56) < 6
`, "pre")
	defer p.Close()
	benchRange(b, p, func(i uint64) uint64 { return i })
}
