// bitsh fork: tests of the uint64 fast paths and one-allocation big ints
// of int.go against math/big (see ../README.bitsh.md).

package starlark_test

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// edgeInts are values around every boundary the fast paths test: int32,
// uint32, int64, uint64 and 2^128, on both sides of zero.
func edgeInts() []*big.Int {
	var out []*big.Int
	for _, e := range []uint{0, 1, 30, 31, 32, 33, 62, 63, 64, 65, 100, 127, 128, 129} {
		p := new(big.Int).Lsh(big.NewInt(1), e)
		for _, d := range []int64{-1, 0, 1} {
			v := new(big.Int).Add(p, big.NewInt(d))
			out = append(out, v, new(big.Int).Neg(v))
		}
	}
	out = append(out, big.NewInt(0x5555555555555), new(big.Int).SetUint64(0x9E3779B97F4A7C15))
	// Words (int_posix64.go): 2^56 bounds the negative words; the top bytes
	// 0x5A, 0xA5 and 0x69 are not words, nor is the word whose address
	// would be the runtime's clobberdeadPtr.
	for _, top := range []uint64{0x59, 0x5A, 0x5B, 0x68, 0x69, 0x6A, 0xA4, 0xA5, 0xA6, 0x80, 0xFF} {
		for _, v := range []uint64{top << 56, top<<56 - 1, top<<56 | 1<<56 - 1} {
			out = append(out, new(big.Int).SetUint64(v), new(big.Int).Neg(new(big.Int).SetUint64(v)))
		}
	}
	for _, v := range []uint64{0xdeaddeaddeaddead ^ 0x5A<<56, 0xdeaddeaddeaddead} {
		for _, d := range []uint64{0, 1, ^uint64(0)} {
			out = append(out, new(big.Int).SetUint64(v+d), new(big.Int).Neg(new(big.Int).SetUint64(v+d)))
		}
	}
	return out
}

// wantBinary computes x op y with math/big, as Python defines it.
func wantBinary(op syntax.Token, x, y *big.Int) (*big.Int, bool) {
	z := new(big.Int)
	switch op {
	case syntax.PLUS:
		return z.Add(x, y), true
	case syntax.MINUS:
		return z.Sub(x, y), true
	case syntax.STAR:
		return z.Mul(x, y), true
	case syntax.AMP:
		return z.And(x, y), true
	case syntax.PIPE:
		return z.Or(x, y), true
	case syntax.CIRCUMFLEX:
		return z.Xor(x, y), true
	case syntax.SLASHSLASH, syntax.PERCENT:
		if y.Sign() == 0 {
			return nil, false
		}
		var m big.Int
		z.DivMod(x, y, &m) // Euclidean (0 <= m < |y|): adjust to floored
		if m.Sign() != 0 && y.Sign() < 0 {
			z.Sub(z, big.NewInt(1))
			m.Add(&m, y)
		}
		if op == syntax.PERCENT {
			return &m, true
		}
		return z, true
	}
	return nil, false
}

func TestIntFastPaths(t *testing.T) {
	vals := edgeInts()
	ops := []syntax.Token{syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.AMP, syntax.PIPE,
		syntax.CIRCUMFLEX, syntax.SLASHSLASH, syntax.PERCENT}
	for _, xb := range vals {
		x := starlark.MakeBigInt(xb)
		for _, yb := range vals {
			y := starlark.MakeBigInt(yb)
			for _, op := range ops {
				want, ok := wantBinary(op, xb, yb)
				if !ok {
					continue
				}
				got, err := starlark.Binary(op, x, y)
				if err != nil {
					t.Fatalf("%v %v %v: %v", xb, op, yb, err)
				}
				if g := got.(starlark.Int).BigInt(); g.Cmp(want) != 0 {
					t.Errorf("%v %v %v = %v, want %v", xb, op, yb, g, want)
				}
			}
			c, err := x.Cmp(y, 0)
			if err != nil || c != xb.Cmp(yb) {
				t.Errorf("Cmp(%v, %v) = %d, %v, want %d", xb, yb, c, err, xb.Cmp(yb))
			}
		}
		for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 127, 128, 200} {
			for _, op := range []syntax.Token{syntax.LTLT, syntax.GTGT} {
				want := new(big.Int).Lsh(xb, uint(n))
				if op == syntax.GTGT {
					want = new(big.Int).Rsh(xb, uint(n))
				}
				got, err := starlark.Binary(op, x, starlark.MakeInt(n))
				if err != nil {
					t.Fatal(err)
				}
				if g := got.(starlark.Int).BigInt(); g.Cmp(want) != 0 {
					t.Errorf("%v %v %d = %v, want %v", xb, op, n, g, want)
				}
			}
		}
	}
}

// TestIntMakers checks MakeInt64, MakeUint64 and MakeBigInt round trips,
// and that MakeBigInt copies its argument.
func TestIntMakers(t *testing.T) {
	for _, v := range edgeInts() {
		if v.IsInt64() {
			if got := starlark.MakeInt64(v.Int64()).BigInt(); got.Cmp(v) != 0 {
				t.Errorf("MakeInt64(%v) = %v", v, got)
			}
		}
		if v.IsUint64() {
			if got := starlark.MakeUint64(v.Uint64()).BigInt(); got.Cmp(v) != 0 {
				t.Errorf("MakeUint64(%v) = %v", v, got)
			}
		}
		w := new(big.Int).Set(v)
		i := starlark.MakeBigInt(w)
		w.Add(w, big.NewInt(12345))
		if got := i.BigInt(); got.Cmp(v) != 0 {
			t.Errorf("MakeBigInt(%v) = %v after changing its argument", v, got)
		}
		if s := i.String(); s != v.String() {
			t.Errorf("String() = %s, want %s", s, v)
		}
	}
}

func FuzzIntFastPaths(f *testing.F) {
	f.Add(uint64(1<<40), uint64(3), uint8(0), false, false)
	f.Add(^uint64(0), uint64(1), uint8(2), false, true)
	// The bounds of the words and wide ints (int_posix64.go).
	f.Add(uint64(1<<56-1<<32), uint64(1), uint8(1), true, false)
	f.Add(uint64(0x5A<<56), uint64(0xA5<<56-1), uint8(5), false, true)
	f.Add(uint64(0x69<<56|12345), uint64(0xdeaddeaddeaddead^0x5A<<56), uint8(3), true, true)
	f.Add(uint64(1<<63), uint64(1<<63), uint8(2), true, false)
	ops := []syntax.Token{syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.AMP, syntax.PIPE,
		syntax.CIRCUMFLEX, syntax.SLASHSLASH, syntax.PERCENT, syntax.LTLT, syntax.GTGT}
	f.Fuzz(func(t *testing.T, a, b uint64, o uint8, negA, negB bool) {
		xb, yb := new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)
		if negA {
			xb.Neg(xb)
		}
		if negB {
			yb.Neg(yb)
		}
		op := ops[int(o)%len(ops)]
		var want *big.Int
		y := starlark.MakeBigInt(yb)
		switch op {
		case syntax.LTLT, syntax.GTGT:
			n := uint(b % 200)
			y = starlark.MakeInt(int(n))
			want = new(big.Int).Lsh(xb, n)
			if op == syntax.GTGT {
				want = new(big.Int).Rsh(xb, n)
			}
		default:
			var ok bool
			if want, ok = wantBinary(op, xb, yb); !ok {
				return
			}
		}
		x := starlark.MakeBigInt(xb)
		got, err := starlark.Binary(op, x, y)
		if err != nil {
			t.Fatal(err)
		}
		if g := got.(starlark.Int).BigInt(); g.Cmp(want) != 0 {
			t.Errorf("%v %v %v = %v, want %v", xb, op, y, g, want)
		}
		if g := x.Not().BigInt(); g.Cmp(new(big.Int).Not(xb)) != 0 {
			t.Errorf("~%v = %v", xb, g)
		}
		if c, _ := x.Cmp(y, 0); op != syntax.LTLT && op != syntax.GTGT && c != xb.Cmp(yb) {
			t.Errorf("Cmp(%v, %v) = %d", xb, yb, c)
		}
	})
}

// BenchmarkIntOps: one operation per iteration on values below 2^31
// (int32, allocation-free), in [2^40, 2^64) and beyond 2^64, and on a
// negative value below -2^31 and one in [2^40, 2^64).
func BenchmarkIntOps(b *testing.B) {
	for _, c := range []struct {
		name string
		x, y starlark.Int
	}{
		{"small", starlark.MakeInt(12345), starlark.MakeInt(678)},
		{"u64", starlark.MakeUint64(1<<40 + 12345), starlark.MakeUint64(1<<41 + 1)},
		{"u64x2", starlark.MakeUint64(1<<63 + 12345), starlark.MakeUint64(1<<62 + 1)},
		{"neg", starlark.MakeInt64(-(1<<40 + 12345)), starlark.MakeUint64(1<<41 + 1)},
	} {
		for _, op := range []syntax.Token{syntax.PLUS, syntax.CIRCUMFLEX, syntax.AMP, syntax.STAR} {
			b.Run(c.name+"/"+op.String(), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := starlark.Binary(op, c.x, c.y); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkIntLoop: the loop x = (x + a) ^ b of bitsh's bench/word_loop.star,
// per iteration, with int32 values and with values in [2^40, 2^64).
func BenchmarkIntLoop(b *testing.B) {
	const src = `
def loop(x, a, b, n):
    for _ in range(n):
        x = (x + a) ^ b
    return x
`
	thread := new(starlark.Thread)
	g, err := starlark.ExecFile(thread, "loop.star", src, nil)
	if err != nil {
		b.Fatal(err)
	}
	const n = 1 << 16
	for _, c := range []struct {
		name    string
		x, a, c uint64
	}{
		{"small", 1, 3, 0x55},
		{"u64", 1<<40 + 12345, 1<<41 + 1, 0x5555555555555},
	} {
		args := starlark.Tuple{starlark.MakeUint64(c.x), starlark.MakeUint64(c.a), starlark.MakeUint64(c.c), starlark.MakeInt(n)}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := starlark.Call(thread, g["loop"], args, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/iter")
		})
	}
}

// TestIntMethods checks Int's other methods against math/big on the edge
// values: unary operators, conversions, Sign, Hash, String and formatting.
func TestIntMethods(t *testing.T) {
	maxI64, minI64 := big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64)
	for _, v := range edgeInts() {
		x := starlark.MakeBigInt(v)
		for _, c := range []struct {
			op   syntax.Token
			want *big.Int
		}{
			{syntax.MINUS, new(big.Int).Neg(v)},
			{syntax.PLUS, v},
			{syntax.TILDE, new(big.Int).Not(v)},
		} {
			got, err := starlark.Unary(c.op, x)
			if err != nil {
				t.Fatal(err)
			}
			if g := got.(starlark.Int).BigInt(); g.Cmp(c.want) != 0 {
				t.Errorf("%s%v = %v, want %v", c.op, v, g, c.want)
			}
		}
		if i, ok := x.Int64(); ok != (v.Cmp(minI64) >= 0 && v.Cmp(maxI64) <= 0) || ok && i != v.Int64() {
			t.Errorf("Int64(%v) = %d, %v", v, i, ok)
		}
		if u, ok := x.Uint64(); ok != (v.Sign() >= 0 && v.IsUint64()) || ok && u != v.Uint64() {
			t.Errorf("Uint64(%v) = %d, %v", v, u, ok)
		}
		if f, _ := new(big.Float).SetInt(v).Float64(); float64(x.Float()) != f {
			t.Errorf("Float(%v) = %v, want %v", v, x.Float(), f)
		}
		if x.Sign() != v.Sign() || bool(x.Truth()) != (v.Sign() != 0) {
			t.Errorf("Sign(%v) = %d", v, x.Sign())
		}
		// Hash: of the low word of a big value's magnitude (int32
		// values: of their two's complement), both its halves
		// (upstream's hashes the low half only: wordHash).
		var lo uint64
		if v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32 {
			lo = uint64(v.Int64())
		} else {
			lo = new(big.Int).Abs(v).Uint64() // the low 64 bits
		}
		if want := 12582917 * (uint32(lo+3) ^ uint32((lo+3)>>32)); true {
			if h, err := x.Hash(); err != nil || h != want {
				t.Errorf("Hash(%v) = %d, %v, want %d", v, h, err, want)
			}
		}
		if got, want := fmt.Sprintf("%d %x %v", x, x, x), fmt.Sprintf("%d %x %v", v, v, v); got != want {
			t.Errorf("Sprintf(%v) = %q, want %q", v, got, want)
		}
		if b := x.BigInt(); b.Cmp(v) != 0 {
			t.Errorf("BigInt(%v) = %v", v, b)
		} else if b.Add(b, big.NewInt(1)); x.BigInt().Cmp(v) != 0 {
			t.Errorf("BigInt(%v) shares its value", v)
		}
		if i, err := starlark.AsInt32(x); (err == nil) != (v.IsInt64() && v.Int64() >= math.MinInt32 && v.Int64() <= math.MaxInt32) || err == nil && int64(i) != v.Int64() {
			t.Errorf("AsInt32(%v) = %d, %v", v, i, err)
		}
	}
}

// TestIntInterpreter runs the operators in the interpreter (its own int
// paths: interp_fast.go and the fused instructions) on the edge values
// against math/big.
func TestIntInterpreter(t *testing.T) {
	const src = `
def f(x, y):
    r = [x + y, x - y, x * y, x & y, x | y, x ^ y, -x, ~x, x < y, x == y, x >= y]
    if y != 0:
        r += [x // y, x % y]
    for n in [0, 1, 31, 32, 63, 64, 65]:
        r += [x << n, x >> n]
    return r
`
	thread := new(starlark.Thread)
	g, err := starlark.ExecFile(thread, "f.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	vals := edgeInts()
	for _, xb := range vals {
		for _, yb := range vals {
			res, err := starlark.Call(thread, g["f"], starlark.Tuple{starlark.MakeBigInt(xb), starlark.MakeBigInt(yb)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, op := range []syntax.Token{syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX} {
				z, _ := wantBinary(op, xb, yb)
				want = append(want, z.String())
			}
			want = append(want, new(big.Int).Neg(xb).String(), new(big.Int).Not(xb).String())
			c := xb.Cmp(yb)
			for _, b := range []bool{c < 0, c == 0, c >= 0} {
				want = append(want, starlark.Bool(b).String())
			}
			if yb.Sign() != 0 {
				q, _ := wantBinary(syntax.SLASHSLASH, xb, yb)
				m, _ := wantBinary(syntax.PERCENT, xb, yb)
				want = append(want, q.String(), m.String())
			}
			for _, n := range []uint{0, 1, 31, 32, 63, 64, 65} {
				want = append(want, new(big.Int).Lsh(xb, n).String(), new(big.Int).Rsh(xb, n).String())
			}
			list := res.(*starlark.List)
			for i := range want {
				if got := list.Index(i).String(); got != want[i] {
					t.Errorf("f(%v, %v)[%d] = %s, want %s", xb, yb, i, got, want[i])
				}
			}
		}
	}
}

// BenchmarkIntWide: the hashing step of a magic-number search, whose
// product of two words has up to 128 bits before the mask, the
// lowest-bit loop b & -b over words with bit 63 set, whose negatives are
// below -2^56, and the high word of a 64x64 product: each makes an int
// beyond the words at each step.
func BenchmarkIntWide(b *testing.B) {
	const src = `
M = (1 << 64) - 1

def hash(occs, m):
    s = 0
    for o in occs:
        s += ((o * m) & M) >> 52
    return s

def lowbits(bs):
    n = 0
    for b in bs:
        for _ in range(64):
            if not b:
                break
            b ^= b & -b
            n += 1
    return n

def mulhi(xs, m):
    s = 0
    for x in xs:
        s ^= (x * m) >> 64
    return s

def bench_mulhi():
    return mulhi([(i * 0x9E3779B97F4A7C15) & M for i in range(1000)], 0xD6E8FEB86659FD93)

def bench_hash():
    return hash([(i * 0x9E3779B97F4A7C15) & M for i in range(1000)], 0x0080001020400080)

def bench_lowbits():
    return lowbits([(i * 0x9E3779B97F4A7C15) & M | (1 << 63) for i in range(100)])
`
	thread := new(starlark.Thread)
	g, err := starlark.ExecFile(thread, "wide.star", src, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"hash", "lowbits", "mulhi"} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := starlark.Call(thread, g["bench_"+name], nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
