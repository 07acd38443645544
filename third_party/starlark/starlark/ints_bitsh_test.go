// bitsh fork: tests of products and shifts of words carried on 128 bits
// through the operators after them (compile.FusedWideOp, ints_fast.go;
// README.bitsh.md), against math/big and the operators one by one.

package starlark_test

import (
	"math/big"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// wideSrc's functions hit FusedWideOp (a product or left shift, then + or
// >> of a global or of a constant, then >> and & of constants) on every
// path; V, predeclared, is the global G.
const wideSrc = `
G = V

def f(x, y):
    return [
        (x * y + G) >> 32 & 0xFFFFFFFF,
        (x * y + G) >> 64,
        (x * y + G) >> 100 >> 27,
        x * y + G,
        (x << 7) + G,
        (x * y + 0x9E3779B97F4A7C15) >> 64 & 0xFF,
        (x * y + 0xFFFFFFFFFFFFFFFF) >> 1,
        (x * y) >> 32,
        (x * y) >> 127,
        (x << 63) >> 63 & 3,
        (x * y + G) >> 128,
        (x * y + G) >> 64 & -1,
        (x * y + G) >> 64 ^ 5,
        (x * y) >> G >> 1 if 0 <= G and G < 512 else 0,
        (x << 40) + G >> 3,
    ]

def g(x, y):
    return (x * y) >> G

def h(x, y):
    return (x << y) + G
`

// wideWant computes f(x, y) with math/big for G = z.
func wideWant(x, y, z *big.Int) []string {
	mul := new(big.Int).Mul(x, y)
	add := new(big.Int).Add(mul, z)
	sh := func(v *big.Int, n uint) *big.Int { return new(big.Int).Rsh(v, n) }
	and := func(v *big.Int, m int64) *big.Int { return new(big.Int).And(v, big.NewInt(m)) }
	lsh := func(v *big.Int, n uint) *big.Int { return new(big.Int).Lsh(v, n) }
	c1, _ := new(big.Int).SetString("9E3779B97F4A7C15", 16)
	c2, _ := new(big.Int).SetString("FFFFFFFFFFFFFFFF", 16)
	out := []*big.Int{
		and(sh(add, 32), 0xFFFFFFFF),
		sh(add, 64),
		sh(sh(add, 100), 27),
		add,
		new(big.Int).Add(lsh(x, 7), z),
		and(sh(new(big.Int).Add(mul, c1), 64), 0xFF),
		sh(new(big.Int).Add(mul, c2), 1),
		sh(mul, 32),
		sh(mul, 127),
		and(sh(lsh(x, 63), 63), 3),
		sh(add, 128),
		and(sh(add, 64), -1),
		new(big.Int).Xor(sh(add, 64), big.NewInt(5)),
		big.NewInt(0),
		sh(new(big.Int).Add(lsh(x, 40), z), 3),
	}
	if z.Sign() >= 0 && z.Cmp(big.NewInt(512)) < 0 {
		out[13] = sh(sh(mul, uint(z.Int64())), 1)
	}
	s := make([]string, len(out))
	for i, v := range out {
		s[i] = v.String()
	}
	return s
}

// wideModule runs wideSrc's top level with G = z.
func wideModule(t testing.TB, prog *starlark.Program, z *big.Int) starlark.StringDict {
	g, err := prog.Init(new(starlark.Thread), starlark.StringDict{"V": starlark.MakeBigInt(z)})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func wideProgram(t testing.TB) *starlark.Program {
	_, prog, err := starlark.SourceProgramOptions(&syntax.FileOptions{}, "w.star", wideSrc, func(s string) bool { return s == "V" })
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// oneByOne computes (x op1 y) op2 z with Binary, the operators one by one:
// the value or the error the interpreter gives for them written apart.
func oneByOne(op1, op2 syntax.Token, x, y, z starlark.Value) string {
	v, err := starlark.Binary(op1, x, y)
	if err == nil {
		v, err = starlark.Binary(op2, v, z)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}

// callString calls fn(x, y) and returns its result's text, or its error's
// message.
func callString(thread *starlark.Thread, fn starlark.Value, x, y starlark.Value) string {
	v, err := starlark.Call(thread, fn, starlark.Tuple{x, y}, nil)
	if err != nil {
		if e, ok := err.(*starlark.EvalError); ok {
			return "error: " + e.Msg
		}
		return "error: " + err.Error()
	}
	return v.String()
}

// checkWide checks f, g and h of the module with G = z at x, y.
func checkWide(t *testing.T, thread *starlark.Thread, mod starlark.StringDict, xb, yb, zb *big.Int) {
	x, y, z := starlark.MakeBigInt(xb), starlark.MakeBigInt(yb), starlark.MakeBigInt(zb)
	res, err := starlark.Call(thread, mod["f"], starlark.Tuple{x, y}, nil)
	if err != nil {
		t.Fatalf("f(%v, %v) with G = %v: %v", xb, yb, zb, err)
	}
	want := wideWant(xb, yb, zb)
	list := res.(*starlark.List)
	for i := range want {
		if got := list.Index(i).String(); got != want[i] {
			t.Errorf("f(%v, %v)[%d] with G = %v: %s, want %s", xb, yb, i, zb, got, want[i])
		}
	}
	if got, want := callString(thread, mod["g"], x, y), oneByOne(syntax.STAR, syntax.GTGT, x, y, z); got != want {
		t.Errorf("g(%v, %v) with G = %v: %s, want %s", xb, yb, zb, got, want)
	}
	if got, want := callString(thread, mod["h"], x, y), oneByOne(syntax.LTLT, syntax.PLUS, x, y, z); got != want {
		t.Errorf("h(%v, %v) with G = %v: %s, want %s", xb, yb, zb, got, want)
	}
}

// TestWideOpAgainstBig runs the fused products and shifts on the edge
// values (every boundary of int32, uint32, int64, uint64 and 2^128, both
// signs; the words' own bounds) and shift counts, against math/big and the
// operators one by one.
func TestWideOpAgainstBig(t *testing.T) {
	prog := wideProgram(t)
	vals := edgeInts()
	shifts := []int64{0, 1, 31, 32, 63, 64, 65, 100, 127, 128, 511, 512, -1}
	var zs []*big.Int
	for _, n := range shifts {
		zs = append(zs, big.NewInt(n))
	}
	// Every x; a third of the values (each with its negative) as y, a
	// sixth as G, besides the shift counts.
	var ys []*big.Int
	for i, v := range vals {
		if i%6 < 2 {
			ys = append(ys, v)
		}
		if i%12 < 2 {
			zs = append(zs, v)
		}
	}
	for _, n := range shifts {
		ys = append(ys, big.NewInt(n))
	}
	thread := new(starlark.Thread)
	for _, zb := range zs {
		mod := wideModule(t, prog, zb)
		for _, xb := range vals {
			for _, yb := range ys {
				checkWide(t, thread, mod, xb, yb, zb)
			}
		}
		if t.Failed() {
			return
		}
	}
}

// FuzzWideOp is TestWideOpAgainstBig on random operands
// (go test -fuzz FuzzWideOp ./starlark).
func FuzzWideOp(f *testing.F) {
	f.Add(uint64(0x9E3779B97F4A7C15), uint64(1<<24-1), uint64(0xD1B54A32D192ED03), false, false, false)
	f.Add(^uint64(0), ^uint64(0), ^uint64(0), false, false, false)
	f.Add(uint64(1<<63), uint64(2), uint64(1), true, false, false)
	f.Add(uint64(0x5A<<56), uint64(63), uint64(64), false, false, true)
	prog := wideProgram(f)
	thread := new(starlark.Thread)
	f.Fuzz(func(t *testing.T, a, b, c uint64, negA, negB, negC bool) {
		xb, yb, zb := new(big.Int).SetUint64(a), new(big.Int).SetUint64(b), new(big.Int).SetUint64(c)
		for _, p := range []struct {
			v   *big.Int
			neg bool
		}{{xb, negA}, {yb, negB}, {zb, negC}} {
			if p.neg {
				p.v.Neg(p.v)
			}
		}
		checkWide(t, thread, wideModule(t, prog, zb), xb, yb, zb)
		checkWide(t, thread, wideModule(t, prog, big.NewInt(int64(c%140))), xb, big.NewInt(int64(b%70)), big.NewInt(int64(c%140)))
	})
}

// TestWideOpAllocs: 100 steps of a multiply-add-shift hash on words make
// no int object (without the fused instruction, two 128-bit values each).
func TestWideOpAllocs(t *testing.T) {
	const src = `
A = 0x9E3779B97F4A7C15
B = 0xD1B54A32D192ED03

def f(n):
    s = 0
    for x in range(n):
        s ^= ((A * x + B) >> 32) & 0xFFFFFFFF
    return s
`
	thread := new(starlark.Thread)
	g, err := starlark.ExecFile(thread, "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := starlark.MakeInt(100)
	if _, err := starlark.Call(thread, g["f"], starlark.Tuple{n}, nil); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := starlark.Call(thread, g["f"], starlark.Tuple{n}, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 10 {
		t.Errorf("%v allocations for 100 steps, want at most 10", allocs)
	}
}
