//go:build (linux || darwin || dragonfly || freebsd || netbsd || solaris) && (amd64 || arm64 || mips64x || ppc64 || ppc64le || loong64 || s390x)

// bitsh fork: tests of the words of int_posix64.go (README.bitsh.md).

package starlark

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// isWord reports whether v should be a word: in [2^31, 2^64) with a top
// byte other than 0x5A, 0xA5 and 0x69 and not 0xdeaddeaddeaddead ^
// 0x5A<<56, or in [-2^56, -2^31).
func isWord(v *big.Int) bool {
	if v.Sign() > 0 && v.IsUint64() {
		u := v.Uint64()
		t := u >> 56
		return u > math.MaxInt32 && t != 0x5A && t != 0xA5 && t != 0x69 && u != 0xdeaddeaddeaddead^0x5A<<56
	}
	if v.Sign() < 0 && v.IsInt64() {
		n := v.Int64()
		return n < math.MinInt32 && n >= -1<<56
	}
	return false
}

// wordValues returns values around every bound of the words, both signs.
func wordValues() []*big.Int {
	var out []*big.Int
	add := func(u uint64) {
		for _, d := range []uint64{0, 1, ^uint64(0)} {
			b := new(big.Int).SetUint64(u + d)
			out = append(out, b, new(big.Int).Neg(b))
		}
	}
	for _, e := range []uint{31, 32, 40, 55, 56, 57, 63} {
		add(1 << e)
	}
	add(0)
	add(math.MaxUint64)
	add(0xdeaddeaddeaddead)
	add(0xdeaddeaddeaddead ^ 0x5A<<56)
	for top := uint64(0); top < 256; top++ {
		add(top << 56)
		add(top<<56 | 0x123456789abcde)
	}
	for _, e := range []uint{64, 65, 100, 126, 127, 128, 129, 200} {
		p := new(big.Int).Lsh(big.NewInt(1), e)
		for _, d := range []int64{-1, 0, 1} {
			b := new(big.Int).Add(p, big.NewInt(d))
			out = append(out, b, new(big.Int).Neg(b))
		}
	}
	return out
}

// TestWordRepresentation checks which values are words, that every way
// of making an Int gives a value one representation, and that a word's
// address is one no memory has.
func TestWordRepresentation(t *testing.T) {
	vals := wordValues()
	for _, v := range vals {
		x := MakeBigInt(v)
		_, _, tagged := x.tagged()
		if tagged != isWord(v) {
			t.Errorf("%v: tagged %v, want %v", v, tagged, isWord(v))
		}
		if p := uint64(uintptr(x.impl)); tagged && (p>>56 == 0 || p>>56 == 0xFF || p == 0xdeaddeaddeaddead) {
			t.Errorf("%v: address %#x", v, p)
		}
		if x.String() != v.String() {
			t.Errorf("%v: String %s", v, x)
		}
		ways := []Int{MakeBigInt(new(big.Int).Set(v))}
		if v.IsInt64() {
			ways = append(ways, MakeInt64(v.Int64()))
		}
		if v.IsUint64() {
			ways = append(ways, MakeUint64(v.Uint64()))
		}
		// Results of each operation path: v + 0, v - 0, v * 1, v | 0,
		// v & -1 (v & 2^64-1 for words), v << 0, v >> 0, ~~v, v // 1.
		one, zero := MakeInt(1), MakeInt(0)
		ways = append(ways, x.Add(zero), zero.Add(x), x.Sub(zero), x.Mul(one), one.Mul(x), x.Or(zero),
			x.Xor(zero), x.Lsh(0), x.Rsh(0), x.Not().Not(), x.Div(one), zero.Sub(zero.Sub(x)))
		if v.Sign() >= 0 && v.IsUint64() {
			ways = append(ways, x.And(MakeUint64(math.MaxUint64)))
		}
		if got, want := intKind(x), wantKind(v); got != want {
			t.Errorf("%v is %s, want %s", v, got, want)
		}
		for i, w := range ways {
			if intKind(w) != intKind(x) || (tagged || isSmallInt(x)) && w.impl != x.impl {
				t.Errorf("%v: way %d gives another representation (%s %#x, %s %#x)", v, i, intKind(w), uintptr(w.impl), intKind(x), uintptr(x.impl))
			}
			if w.String() != v.String() {
				t.Errorf("%v: way %d gives %s", v, i, w)
			}
		}
	}
}

// intKind returns the representation of i: small, word, wide or big.
func intKind(i Int) string {
	if _, ok := i.small(); ok {
		return "small"
	}
	if _, _, ok := i.tagged(); ok {
		return "word"
	}
	if _, _, ok := i.wide(); ok {
		return "wide"
	}
	return "big"
}

// wantKind returns the representation the value v should have.
func wantKind(v *big.Int) string {
	switch {
	case v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32:
		if smallints == 0 {
			return "big"
		}
		return "small"
	case isWord(v):
		return "word"
	case v.BitLen() < 128 && wideOK:
		return "wide" // |v| < 2^127
	}
	return "big"
}

// TestWordsAndCollector keeps many words in the heap, in a Starlark list
// and in Go values, through collections: the collector must ignore their
// addresses (it panics on a pointer it finds bad).
func TestWordsAndCollector(t *testing.T) {
	vals := wordValues()
	var list []Value
	for i := 0; i < 200000; i++ {
		list = append(list, MakeBigInt(vals[i%len(vals)]))
	}
	l := NewList(list)
	for round := 0; round < 3; round++ {
		runtime.GC()
		for i := 0; i < l.Len(); i++ {
			if got, want := l.Index(i).String(), vals[i%len(vals)].String(); got != want {
				t.Fatalf("after a collection, element %d = %s, want %s", i, got, want)
			}
		}
	}
	runtime.KeepAlive(l)
}

// TestWordsWithoutRegion runs the int tests in a child process under an
// address space limit that refuses the 4 GiB smallints region: int32
// values are then big.Ints, the words still words.
func TestWordsWithoutRegion(t *testing.T) {
	if os.Getenv("STARLARK_INT_FALLBACK_CHILD") == "1" {
		if smallints != 0 {
			t.Fatal("the child has the smallints region")
		}
		return
	}
	if runtime.GOOS != "linux" {
		t.Skip("needs ulimit -v")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := "TestWordsWithoutRegion|TestWordRepresentation|TestWordsAndCollector|TestIntFastPaths|FuzzIntFastPaths|TestIntMakers|TestIntMethods|TestIntInterpreter|TestIntFastPathsAgree|TestInt$|TestWordSizeEstimate|TestAllocCheckText"
	cmd := exec.Command("/bin/sh", "-c", fmt.Sprintf("ulimit -v 4000000 && exec %q -test.run '%s'", exe, run))
	cmd.Env = append(os.Environ(), "STARLARK_INT_FALLBACK_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Integer performance may suffer") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// TestWordsParallel runs two interpreters at once on words, wide ints and
// big ints (go test -race checks that they share nothing).
func TestWordsParallel(t *testing.T) {
	const src = `
M = (1 << 64) - 1
def f(seed):
    s, acc = seed, 0
    for _ in range(2000):
        s ^= (s << 13) & M
        s ^= s >> 7
        s ^= (s << 17) & M
        acc = (acc + s * s - (s & -s) + ~s) % (1 << 100)
    return acc
`
	want := func(seed uint64) string {
		m := new(big.Int).SetUint64(math.MaxUint64)
		s, acc := new(big.Int).SetUint64(seed), new(big.Int)
		mod := new(big.Int).Lsh(big.NewInt(1), 100)
		for i := 0; i < 2000; i++ {
			s.Xor(s, new(big.Int).And(new(big.Int).Lsh(s, 13), m))
			s.Xor(s, new(big.Int).Rsh(s, 7))
			s.Xor(s, new(big.Int).And(new(big.Int).Lsh(s, 17), m))
			low := new(big.Int).And(s, new(big.Int).Neg(s))
			acc.Add(acc, new(big.Int).Mul(s, s))
			acc.Sub(acc, low)
			acc.Add(acc, new(big.Int).Not(s))
			acc.Mod(acc, mod)
		}
		return acc.String()
	}
	errs := make(chan error, 2)
	for _, seed := range []uint64{0x9E3779B97F4A7C15, 12345} {
		go func() {
			thread := new(Thread)
			g, err := ExecFile(thread, "p.star", src, nil)
			if err != nil {
				errs <- err
				return
			}
			for i := 0; i < 5; i++ {
				v, err := Call(thread, g["f"], Tuple{MakeUint64(seed)}, nil)
				if err != nil {
					errs <- err
					return
				}
				if w := want(seed); v.String() != w {
					errs <- fmt.Errorf("f(%d) = %s, want %s", seed, v, w)
					return
				}
			}
			errs <- nil
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestWordSizeEstimate checks the bit length alloc.go's estimate of a
// value's text reads, and that it makes no big.Int of a word or a wide.
func TestWordSizeEstimate(t *testing.T) {
	var elems []Value
	for _, v := range wordValues() {
		x := MakeBigInt(v)
		if v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32 {
			if _, ok := x.bigBitLen(); ok {
				t.Errorf("bigBitLen(%v): ok for a small value", v)
			}
			continue
		}
		if got, ok := x.bigBitLen(); !ok || got != v.BitLen() {
			t.Errorf("bigBitLen(%v) = %d, %v, want %d", v, got, ok, v.BitLen())
		}
		if intKind(x) != "big" {
			elems = append(elems, x)
		}
	}
	l := NewList(elems)
	n := testing.AllocsPerRun(10, func() { reprBytes(l) })
	if n > 5 {
		t.Errorf("reprBytes of %d words and wide ints: %v allocations", len(elems), n)
	}
}
