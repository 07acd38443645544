package builtins_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// elementwise describes a call of an elementwise builtin: its name and how
// to draw valid scalar arguments after the first (the word).
type elementwise struct {
	name string
	// rest returns the other arguments of a call, and a mask to keep x valid.
	rest func(r *rand.Rand) (args []starlark.Value, xmask uint64, nonzero bool)
	// arrays: the indices of rest that may be arrays (word arguments).
	arrays []int
}

func w(x uint64) starlark.Value { return starlark.MakeUint64(x) }

var elementwiseCases = []elementwise{
	{name: "popcount", rest: none},
	{name: "parity", rest: none},
	{name: "lsb", rest: none},
	{name: "gray", rest: none},
	{name: "gray_inverse", rest: none},
	{name: "bsf", rest: func(*rand.Rand) ([]starlark.Value, uint64, bool) { return nil, ^uint64(0), true }},
	{name: "bsr", rest: func(*rand.Rand) ([]starlark.Value, uint64, bool) { return nil, ^uint64(0), true }},
	{name: "rotl", rest: rotArgs, arrays: []int{0}},
	{name: "rotr", rest: rotArgs, arrays: []int{0}},
	{name: "reverse_bits", rest: widthArgs},
	{name: "swap_bytes", rest: widthArgs},
	{name: "pdep", rest: maskArgs, arrays: []int{0}},
	{name: "pext", rest: maskArgs, arrays: []int{0}},
	{name: "delta_swap", rest: func(r *rand.Rand) ([]starlark.Value, uint64, bool) {
		d := 1 + r.UintN(40)
		m := r.Uint64() & (^uint64(0) >> d)
		m &^= m << d
		m &^= m >> d
		return []starlark.Value{w(m), starlark.MakeInt(int(d))}, ^uint64(0), false
	}, arrays: []int{0}}, // an array mask comes with an array delta
	{name: "debruijn_bsf", rest: func(r *rand.Rand) ([]starlark.Value, uint64, bool) {
		switch r.IntN(3) {
		case 0:
			return nil, ^uint64(0), true
		case 1:
			return []starlark.Value{w(0x1D), starlark.MakeInt(8)}, 0xff, true
		}
		return []starlark.Value{w(0x022fdd63cc95386d)}, ^uint64(0), true
	}, arrays: []int{0}},
	{name: "flip_horizontal", rest: indexArgs},
	{name: "flip_vertical", rest: indexArgs},
	{name: "flip_diag", rest: indexArgs},
	{name: "canonical", rest: indexArgs},
}

func none(*rand.Rand) ([]starlark.Value, uint64, bool) { return nil, ^uint64(0), false }

func widths(r *rand.Rand) uint { return []uint{8, 16, 32, 64}[r.IntN(4)] }

func widthArgs(r *rand.Rand) ([]starlark.Value, uint64, bool) {
	wd := widths(r)
	return []starlark.Value{starlark.MakeInt(int(wd))}, ^uint64(0) >> (64 - wd), false
}

func rotArgs(r *rand.Rand) ([]starlark.Value, uint64, bool) {
	wd := widths(r)
	return []starlark.Value{starlark.MakeInt(r.IntN(300) - 150), starlark.MakeInt(int(wd))}, ^uint64(0) >> (64 - wd), false
}

func maskArgs(r *rand.Rand) ([]starlark.Value, uint64, bool) {
	return []starlark.Value{w(r.Uint64() & r.Uint64())}, ^uint64(0), false
}

func indexArgs(r *rand.Rand) ([]starlark.Value, uint64, bool) {
	n := 1 + r.IntN(10)
	num := []string{"natural", "symmetric"}[r.IntN(2)]
	return []starlark.Value{starlark.MakeInt(n), starlark.String(num)}, ^uint64(0) >> (64 - 6*uint(n)), false
}

func call(t *testing.T, fn starlark.Value, args ...starlark.Value) (starlark.Value, error) {
	t.Helper()
	return starlark.Call(&starlark.Thread{}, fn, starlark.Tuple(args), nil)
}

// TestElementwiseAgainstScalar checks every elementwise builtin: the array
// form equals the scalar builtin applied to each element (the naive
// reference), for random lengths including 0 and 1, with the other word
// arguments as words or as arrays; elements drawn from negative ints are
// their two's complement.
func TestElementwiseAgainstScalar(t *testing.T) {
	env := builtins.Predeclared()
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range elementwiseCases {
		fn := env[c.name]
		for trial := 0; trial < 30; trial++ {
			n := []int{0, 1, 2, r.IntN(50), r.IntN(2000)}[trial%5]
			rest, xmask, nonzero := c.rest(r)
			xs := make([]uint64, n)
			for i := range xs {
				x := r.Uint64() >> r.UintN(64)
				if r.IntN(4) == 0 {
					x = uint64(-int64(r.IntN(1000))) // a negative int
				}
				x &= xmask
				if nonzero && x == 0 {
					x = 1
				}
				xs[i] = x
			}
			// Other word arguments: words, or arrays of per-element values.
			restArr := append([]starlark.Value(nil), rest...)
			var perElem [][]starlark.Value
			for _, j := range c.arrays {
				if j >= len(rest) || r.IntN(2) == 0 {
					continue
				}
				col := make([]uint64, n)
				if perElem == nil {
					perElem = make([][]starlark.Value, n)
				}
				for i := range col {
					// Same kind of value, drawn again per element.
					again, _, _ := c.rest(r)
					if len(again) != len(rest) {
						again = rest
					} else if c.name == "rotl" || c.name == "rotr" {
						again[len(again)-1] = rest[len(rest)-1] // keep the width
					} else if c.name == "debruijn_bsf" && len(rest) == 2 {
						again = rest // one width-8 magic is enough
					}
					v, _ := again[j].(starlark.Int).Int64()
					col[i] = uint64(v)
					if u, ok := again[j].(starlark.Int).Uint64(); ok {
						col[i] = u
					}
					row := append([]starlark.Value(nil), rest...)
					if c.name == "delta_swap" {
						row = again
						col[i], _ = again[j].(starlark.Int).Uint64()
					}
					row[j] = again[j]
					perElem[i] = row
				}
				restArr[j] = builtins.NewWords(col)
				if c.name == "delta_swap" {
					// mask and delta must stay paired: make both arrays.
					dc := make([]uint64, n)
					for i := range dc {
						d, _ := perElem[i][1].(starlark.Int).Int64()
						dc[i] = uint64(d)
					}
					restArr[1] = builtins.NewWords(dc)
				}
				break
			}
			got, err := call(t, fn, append([]starlark.Value{builtins.NewWords(xs)}, restArr...)...)
			if err != nil {
				t.Fatalf("%s(array of %d, %v): %v", c.name, n, restArr, err)
			}
			a, ok := got.(*builtins.Words)
			if !ok || a.Len() != n {
				t.Fatalf("%s: got %v, want an array of %d", c.name, got, n)
			}
			for i, x := range xs {
				args := rest
				if perElem != nil {
					args = perElem[i]
				}
				want, err := call(t, fn, append([]starlark.Value{w(x)}, args...)...)
				if err != nil {
					t.Fatalf("%s(%#x, %v): %v", c.name, x, args, err)
				}
				if eq, _ := starlark.Equal(want, w(a.Uint64s()[i])); !eq {
					t.Fatalf("%s: element %d of %#x with %v is %#x; want %v", c.name, i, x, args, a.Uint64s()[i], want)
				}
			}
		}
	}
}

// TestFastMatchesGeneral checks that the fast positional path and the
// general path (the same call with keywords) agree on results and errors.
func TestFastMatchesGeneral(t *testing.T) {
	env := builtins.Predeclared()
	r := rand.New(rand.NewPCG(33, 34))
	params := map[string][]string{
		"popcount": {"x"}, "bsf": {"x"}, "bsr": {"x"}, "lsb": {"x"}, "parity": {"x"}, "gray": {"x"},
		"gray_inverse": {"x"}, "rotl": {"x", "k", "width"}, "rotr": {"x", "k", "width"},
		"reverse_bits": {"x", "width"}, "swap_bytes": {"x", "width"}, "pdep": {"x", "mask"},
		"pext": {"x", "mask"}, "delta_swap": {"x", "mask", "delta"},
		"debruijn_bsf": {"x", "magic", "width"}, "snoob": {"x", "set"}, "rsnoob": {"x", "set"},
		"flip_diag": {"index", "n"}, "canonical": {"index", "n"}, "hex": {"x", "width"},
		"is_debruijn": {"m", "width"}, "debruijn_table": {"m", "width"}, "debruijn": {"n", "width"},
		"bits": {"x"}, "board": {"bb"}, "bin": {"x", "width"}, "oct": {"x", "width"},
		"flip_horizontal": {"index", "n", "numbering"}, "unpack": {"index", "n"}, "subsets": {"d", "k"},
	}
	draw := func() starlark.Value {
		switch r.IntN(6) {
		case 0:
			return starlark.MakeInt(r.IntN(70) - 3)
		case 1:
			return []starlark.Value{starlark.MakeInt(8), starlark.MakeInt(16), starlark.MakeInt(64)}[r.IntN(3)]
		case 2:
			return starlark.MakeInt64(-r.Int64N(1 << 40))
		case 3:
			return starlark.MakeUint64(r.Uint64()).Add(starlark.MakeInt(r.IntN(2))) // sometimes 2^64
		case 4:
			return starlark.MakeUint64(0x1D)
		}
		return starlark.MakeUint64(r.Uint64() >> r.UintN(64))
	}
	for name, ps := range params {
		for trial := 0; trial < 300; trial++ {
			k := 1 + r.IntN(len(ps))
			args := make(starlark.Tuple, k)
			kwargs := make([]starlark.Tuple, k)
			for i := range args {
				args[i] = draw()
				kwargs[i] = starlark.Tuple{starlark.String(ps[i]), args[i]}
			}
			v1, e1 := starlark.Call(&starlark.Thread{}, env[name], args, nil)
			v2, e2 := starlark.Call(&starlark.Thread{}, env[name], nil, kwargs)
			if (e1 == nil) != (e2 == nil) || (e1 != nil && e1.Error() != e2.Error()) {
				t.Fatalf("%s%v: positional error %v, keyword error %v", name, args, e1, e2)
			}
			if e1 == nil {
				if eq, err := starlark.Equal(v1, v2); err != nil || !eq {
					t.Fatalf("%s%v: positional %v, keyword %v", name, args, v1, v2)
				}
			} else if !strings.HasPrefix(e1.Error(), name+": ") {
				t.Fatalf("%s%v: error %q does not start with the name", name, args, e1)
			}
		}
	}
}

// TestElementwiseErrors checks the errors of the array forms: the bad
// element's position, mismatched lengths, arrays where a scalar is due.
func TestElementwiseErrors(t *testing.T) {
	env := builtins.Predeclared()
	a := func(xs ...uint64) starlark.Value { return builtins.NewWords(xs) }
	big := make([]uint64, 20)
	for i := range big {
		big[i] = 1 << i
	}
	big[17] = 0
	for _, c := range []struct {
		fn   string
		args []starlark.Value
		want string
	}{
		{"bsf", []starlark.Value{builtins.NewWords(big)}, "bsf: a[17] = 0 has no one bit"},
		{"bsr", []starlark.Value{a(1, 0)}, "bsr: a[1] = 0 has no one bit"},
		{"pdep", []starlark.Value{a(1, 2), a(1)}, "pdep: mask has 1 words, want 2 like the first argument"},
		{"rotl", []starlark.Value{a(1, 0x100), w(1), w(8)}, "rotl: a[1] = 0x100 does not fit in width = 8 bits"},
		{"rotl", []starlark.Value{a(1), a(1), a(8)}, "rotl: width: got words, want int"},
		{"reverse_bits", []starlark.Value{a(1, 2, 1<<40), w(32)}, "reverse_bits: a[2] = 0x10000000000 does not fit in width = 32 bits"},
		{"delta_swap", []starlark.Value{a(1, 2), a(0x0f, 0xff), w(4)}, "delta_swap: mask[1] = 0xff overlaps itself shifted by delta = 4"},
		{"delta_swap", []starlark.Value{a(1, 2), w(0xf), w(64)}, "delta_swap: delta = 64 is not in 0..63"},
		{"delta_swap", []starlark.Value{a(1, 2), w(0xf), a(4, 70)}, "delta_swap: delta[1] = 70 is not in 0..63"},
		{"debruijn_bsf", []starlark.Value{a(1, 2), a(0x1D, 0x1E), w(8)}, "debruijn_bsf: magic[1] = 0x1e is not a De Bruijn magic for width = 8"},
		{"debruijn_bsf", []starlark.Value{a(1, 0x100), w(0x1D), w(8)}, "debruijn_bsf: a[1] = 0x100 does not fit in width = 8 bits"},
		{"flip_diag", []starlark.Value{a(0o4562, 1<<12), w(2)}, "flip_diag: a[1] = 0o10000 has bits at or above bit 6n = 12"},
		{"flip_diag", []starlark.Value{a(1), a(2)}, "flip_diag: n: got words, want int"},
		{"canonical", []starlark.Value{a(1), w(2), starlark.String("odd")}, `canonical: numbering = "odd" is not "natural" or "symmetric"`},
		{"popcount", []starlark.Value{w(1), a(1)}, "popcount: got 2 arguments, want at most 1"},
		{"pdep", []starlark.Value{w(1), a(1)}, "pdep: mask: got words, want int"},
	} {
		_, err := call(t, env[c.fn], c.args...)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s%v: error %v; want %q", c.fn, c.args, err, c.want)
		}
	}
	// An empty array gives an empty array, whatever the scalars.
	for _, name := range []string{"popcount", "bsf", "flip_diag"} {
		args := []starlark.Value{a()}
		if name == "flip_diag" {
			args = append(args, w(3))
		}
		v, err := call(t, env[name], args...)
		if err != nil || v.(*builtins.Words).Len() != 0 {
			t.Errorf("%s(empty) = %v, %v", name, v, err)
		}
	}
}

// BenchmarkElementwise measures the array forms on 2^20 words through
// starlark.Call (argument parsing, result allocation and the kernel; the
// words of a deferred result are computed):
// ns/word is the figure of docs/performance.md.
func BenchmarkElementwise(b *testing.B) {
	env := builtins.Predeclared()
	const n = 1 << 20
	r := rand.New(rand.NewPCG(35, 36))
	xs := make([]uint64, n)
	for i := range xs {
		xs[i] = r.Uint64() | 1
	}
	arr := builtins.NewWords(xs)
	for _, c := range []struct {
		fn   string
		rest []starlark.Value
	}{
		{"popcount", nil}, {"bsf", nil}, {"parity", nil}, {"gray_inverse", nil},
		{"rotl", []starlark.Value{w(13)}}, {"pext", []starlark.Value{w(0x00ff00ff00ff00ff)}},
		{"debruijn_bsf", nil},
	} {
		b.Run(c.fn, func(b *testing.B) {
			args := append(starlark.Tuple{arr}, c.rest...)
			thread := &starlark.Thread{}
			clock := startCPU()
			for b.Loop() {
				v, err := starlark.Call(thread, env[c.fn], args, nil)
				if err != nil {
					b.Fatal(err)
				}
				v.(*builtins.Words).Uint64s() // a deferred result: compute its words
			}
			clock.report(b, b.N*n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/word")
		})
	}
}

// FuzzElementwise calls every elementwise builtin with arrays and words
// drawn from the input, valid or not, and checks that each returns an
// array of the first argument's length or fails with an error that starts
// with its name: never a panic.
func FuzzElementwise(f *testing.F) {
	f.Add([]byte{1, 2, 3, 0, 255}, int64(8), int64(3), false)
	f.Add([]byte{}, int64(-1), int64(64), true)
	env := builtins.Predeclared()
	f.Fuzz(func(t *testing.T, data []byte, b, c int64, arrays bool) {
		xs := make([]uint64, len(data))
		for i, d := range data {
			xs[i] = uint64(d) * 0x0101010101 >> (d % 9)
		}
		arr := builtins.NewWords(xs)
		second := starlark.Value(starlark.MakeInt64(b))
		if arrays {
			ys := make([]uint64, len(xs))
			for i := range ys {
				ys[i] = uint64(b) >> (i % 64)
			}
			second = builtins.NewWords(ys)
		}
		for _, c0 := range elementwiseCases {
			for n := 0; n <= 2; n++ {
				args := starlark.Tuple{arr, second, starlark.MakeInt64(c)}[:1+n]
				v, err := starlark.Call(&starlark.Thread{}, env[c0.name], args, nil)
				if err != nil {
					if !strings.HasPrefix(err.Error(), c0.name+": ") {
						t.Fatalf("%s%v: error %q does not start with the name", c0.name, args, err)
					}
					continue
				}
				if a, ok := v.(*builtins.Words); !ok || a.Len() != len(xs) {
					t.Fatalf("%s%v = %v; want an array of %d", c0.name, args, v, len(xs))
				}
			}
		}
	})
}
