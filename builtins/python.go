package builtins

// Builtins that Python has and Starlark lacks, with Python's results:
// sum, divmod, round, pow, format, and print with end=. Starlark has no
// ** operator, no f-strings and no width or precision in %, so scripts
// reach for these.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/bitsh/bitsh/builtins/pyformat"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// maxPowBits bounds the size of an exact pow(a, b) result: a larger one
// would take seconds and megabytes that no cancellation can interrupt.
const maxPowBits = 1 << 22

func init() {
	register(
		Builtin{Name: "sum", Topic: "starlark", Fn: sumFn, Doc: `sum(iterable, start=0)
Returns start plus the sum of the elements of iterable, as Python's sum:
exact for ints, compensated (as Python 3.12 does) for floats, so that
sum([0.1] * 10) == 1.0. Lists and tuples concatenate from a list or tuple
start; strings are an error (use "".join(iterable)).`},
		Builtin{Name: "divmod", Topic: "starlark", Fn: divmodFn, Doc: `divmod(a, b)
Returns the pair (a // b, a % b) as Python computes it: floored, with the
remainder taking the sign of b, for ints (exact) and floats
(divmod(1, 0.1) == (9.0, 0.09999999999999995)).`},
		Builtin{Name: "round", Topic: "starlark", Fn: roundFn, Doc: `round(x, ndigits=None)
Returns x rounded to ndigits decimal digits, halves to even, as Python's
round: an int without ndigits (round(2.5) == 2, round(3.5) == 4), else a
value of x's type (round(2.675, 2) == 2.67: the float is just below
2.675; round(1250, -2) == 1200). Correctly rounded from x's exact value.`},
		Builtin{Name: "pow", Topic: "starlark", Fn: powFn, Doc: `pow(base, exp, mod=None)
Returns base to the power exp, as Python's pow and ** (Starlark has no **):
an exact int for ints with exp >= 0 (pow(2, 100)), a float otherwise
(pow(2, -1) == 0.5). With mod, all three ints, the exact modular power
(pow(3, 1000000, 7) == 4), with a modular inverse for a negative exp
(pow(3, -1, 7) == 5); the result has mod's sign. 1 << n is 2 to the n.
An exact result of more than 4194304 bits is an error.`},
		Builtin{Name: "format", Topic: "starlark", Fn: formatFn, Doc: `format(value, spec="")
Returns value formatted by spec, Python's format-specification
mini-language: [[fill]align][sign][z][#][0][width][grouping][.precision][type].
align is < > = ^; sign + - or space; # adds 0b 0o 0x; 0 pads with zeros
after the sign; grouping , or _ (every 4 digits for b o x X); types
b c d o x X n for ints, e E f F g G n % for floats (and ints), s for
strings. format(5, "08b") == "00000101", format(x, ".2f"),
format((1 << 40) - 1, "_x") == "ff_ffff_ffff", format(0.25, ".1%") == "25.0%",
format("ab", "^6") == "  ab  ". Ints, floats and strings take a spec;
other values only the empty one (their str).`},
		Builtin{Name: "print", Topic: "starlark", Fn: printFn, Doc: `print(*args, sep=" ", end="\n", flush=False)
Writes the str() of each argument, separated by sep and followed by end,
to standard output (the interpreter's stdout when embedded), as Python's
print: print(x, end="") continues the line. flush=True writes standard
output out at once where it is buffered (the bitsh command buffers a
script's output; from a function run as machine code, it comes out within
0.1 s anyway).`},
	)
}

func sumFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var iterable starlark.Iterable
	var start starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "iterable", &iterable, "start?", &start); err != nil {
		return nil, err
	}
	switch start.(type) {
	case starlark.String, starlark.Bytes:
		return nil, fmt.Errorf("sum: start = %s is a %s: use \"\".join(iterable) instead", Short(start), start.Type())
	}
	ctx := Context(thread)
	it := iterable.Iterate()
	defer it.Done()
	acc := start
	var x starlark.Value
	// Floats add up with Neumaier's compensation, as CPython 3.12's sum:
	// f is the running sum and c the lost low-order part.
	var f, c float64
	floating := false
	for i := 0; it.Next(&x); i++ {
		// Every 4096 numbers, or every item when the sum is something
		// else (a word array adds a whole array per item).
		_, isInt := acc.(starlark.Int)
		if (i%4096 == 4095 || !isInt && !floating) && ctx.Err() != nil {
			return nil, fmt.Errorf("sum: %v", context.Cause(ctx))
		}
		if !floating {
			if af, ok := acc.(starlark.Float); ok {
				floating, f, c = true, float64(af), 0
			}
		}
		if floating {
			var xf float64
			switch v := x.(type) {
			case starlark.Float:
				xf = float64(v)
			case starlark.Int:
				g, ok := starlark.AsFloat(v)
				if !ok {
					return nil, fmt.Errorf("sum: element %d: int too large to convert to float", i)
				}
				xf = g
			default:
				// Leave the float path: add the rest with +.
				floating = false
				acc = starlark.Float(f + c)
			}
			if floating {
				t := f + xf
				if math.Abs(f) >= math.Abs(xf) {
					c += (f - t) + xf
				} else {
					c += (xf - t) + f
				}
				f = t
				continue
			}
		}
		var err error
		if acc, err = binaryOn(thread, syntax.PLUS, acc, x); err != nil {
			return nil, fmt.Errorf("sum: element %d: %v", i, err)
		}
	}
	if floating {
		if c != 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
			f += c
		}
		return starlark.Float(f), nil
	}
	return acc, nil
}

// number returns v as an int or a float, or an error naming the argument.
func number(fn, name string, v starlark.Value) (starlark.Value, error) {
	switch v.(type) {
	case starlark.Int, starlark.Float:
		return v, nil
	}
	return nil, fmt.Errorf("%s: %s = %s is a %s, want int or float", fn, name, Short(v), v.Type())
}

func divmodFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var a, d starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &a, &d); err != nil {
		return nil, err
	}
	if _, err := number(b.Name(), "a", a); err != nil {
		return nil, err
	}
	if _, err := number(b.Name(), "b", d); err != nil {
		return nil, err
	}
	ai, aInt := a.(starlark.Int)
	di, dInt := d.(starlark.Int)
	if aInt && dInt {
		if di.Sign() == 0 {
			return nil, fmt.Errorf("divmod: integer division or modulo by zero")
		}
		q, r := new(big.Int).DivMod(ai.BigInt(), di.BigInt(), new(big.Int))
		// DivMod's remainder is never negative; Python's has b's sign.
		if r.Sign() != 0 && di.Sign() < 0 {
			r.Add(r, di.BigInt())
			q.Sub(q, big.NewInt(1))
		}
		return starlark.Tuple{starlark.MakeBigInt(q), starlark.MakeBigInt(r)}, nil
	}
	x, _ := starlark.AsFloat(a)
	y, _ := starlark.AsFloat(d)
	if y == 0 {
		return nil, fmt.Errorf("divmod: float divmod() by zero")
	}
	q, r := floatDivmod(x, y)
	return starlark.Tuple{starlark.Float(q), starlark.Float(r)}, nil
}

// floatDivmod is CPython's float_divmod (Objects/floatobject.c): the
// remainder from fmod, the quotient from it, so that q*y + r is as close
// to x as floats allow.
func floatDivmod(x, y float64) (q, r float64) {
	r = math.Mod(x, y)
	div := (x - r) / y
	if r != 0 {
		if (y < 0) != (r < 0) {
			r += y
			div -= 1
		}
	} else {
		r = math.Copysign(0, y)
	}
	if div != 0 {
		q = math.Floor(div)
		if div-q > 0.5 {
			q += 1
		}
	} else {
		q = math.Copysign(0, x/y)
	}
	return q, r
}

func roundFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var nd starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "x", &x, "ndigits?", &nd); err != nil {
		return nil, err
	}
	if _, err := number(b.Name(), "x", x); err != nil {
		return nil, err
	}
	if nd == starlark.None {
		switch x := x.(type) {
		case starlark.Int:
			return x, nil
		case starlark.Float:
			f := float64(x)
			switch {
			case math.IsInf(f, 0):
				return nil, fmt.Errorf("round: cannot convert float infinity to integer")
			case math.IsNaN(f):
				return nil, fmt.Errorf("round: cannot convert float NaN to integer")
			}
			r := math.RoundToEven(f)
			n, _ := new(big.Float).SetFloat64(r).Int(nil)
			return starlark.MakeBigInt(n), nil
		}
	}
	ndi, ok := nd.(starlark.Int)
	if !ok {
		return nil, fmt.Errorf("round: ndigits = %s is a %s, want int or None", Short(nd), nd.Type())
	}
	n, ok := ndi.Int64()
	if !ok {
		n = 1 << 40 * int64(ndi.Sign()) // far beyond every float and any sensible int
	}
	n = max(n, -1<<40) // -n cannot overflow
	switch x := x.(type) {
	case starlark.Int:
		if n >= 0 {
			return x, nil
		}
		// Round to a multiple of 10**-n, halves to even.
		q, err := roundIntDigits(thread, b.Name(), x.BigInt(), -n)
		if err != nil {
			return nil, err
		}
		return starlark.MakeBigInt(q), nil
	default:
		f := float64(x.(starlark.Float))
		if math.IsInf(f, 0) || math.IsNaN(f) || f == 0 || n > 400 {
			return x, nil
		}
		if n < -400 {
			return starlark.Float(math.Copysign(0, f)), nil
		}
		// As CPython's double_round: the exact value times 10**n, rounded
		// halves to even, divided back, correctly rounded to a float.
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(max(n, -n)), nil)
		r := new(big.Rat).SetFloat64(f)
		if n >= 0 {
			r.Mul(r, new(big.Rat).SetInt(p))
		} else {
			r.Quo(r, new(big.Rat).SetInt(p))
		}
		q := new(big.Rat).SetInt(roundRat(r))
		if n >= 0 {
			q.Quo(q, new(big.Rat).SetInt(p))
		} else {
			q.Mul(q, new(big.Rat).SetInt(p))
		}
		g, _ := q.Float64()
		if math.IsInf(g, 0) {
			return nil, fmt.Errorf("round: rounded value too large to represent")
		}
		return starlark.Float(math.Copysign(g, f)), nil
	}
}

// roundRat rounds r to the nearest integer, halves to even.
func roundRat(r *big.Rat) *big.Int {
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).DivMod(num, den, new(big.Int)) // floor, 0 <= m < den
	twice := new(big.Int).Lsh(m, 1)
	if c := twice.Cmp(den); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func powFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var base, exp starlark.Value
	var mod starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "base", &base, "exp", &exp, "mod?", &mod); err != nil {
		return nil, err
	}
	if _, err := number(b.Name(), "base", base); err != nil {
		return nil, err
	}
	if _, err := number(b.Name(), "exp", exp); err != nil {
		return nil, err
	}
	bi, bInt := base.(starlark.Int)
	ei, eInt := exp.(starlark.Int)
	if mod != starlark.None {
		mi, mInt := mod.(starlark.Int)
		if !bInt || !eInt || !mInt {
			return nil, fmt.Errorf("pow: a mod argument needs base, exp and mod all ints (got %s, %s, %s)", base.Type(), exp.Type(), mod.Type())
		}
		return modPow(thread, bi.BigInt(), ei.BigInt(), mi.BigInt())
	}
	if bInt && eInt && ei.Sign() >= 0 {
		x, e := bi.BigInt(), ei.BigInt()
		// |x| <= 1 stays small whatever e is.
		if x.CmpAbs(big.NewInt(1)) <= 0 {
			switch {
			case e.Sign() == 0:
				return starlark.MakeInt(1), nil
			case x.Sign() >= 0 || e.Bit(0) == 0:
				return starlark.MakeBigInt(new(big.Int).Abs(x)), nil
			}
			return bi, nil
		}
		if !e.IsInt64() || e.Int64()*int64(x.BitLen()-1) > maxPowBits {
			return nil, fmt.Errorf("pow: the result would have more than %d bits (pow(base, exp, mod) keeps it small)", maxPowBits)
		}
		r, err := powPolled(thread, b.Name(), x, e)
		if err != nil {
			return nil, err
		}
		return starlark.MakeBigInt(r), nil
	}
	x, ok1 := starlark.AsFloat(base)
	y, ok2 := starlark.AsFloat(exp)
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("pow: int too large to convert to float")
	}
	switch {
	case x == 0 && y < 0:
		return nil, fmt.Errorf("pow: 0.0 cannot be raised to a negative power")
	case x < 0 && !math.IsInf(x, 0) && y != math.Trunc(y) && !math.IsInf(y, 0):
		return nil, fmt.Errorf("pow: a negative base (%v) to a fractional power (%v) has no real result", x, y)
	}
	r := math.Pow(x, y)
	if math.IsInf(r, 0) && !math.IsInf(x, 0) && !math.IsInf(y, 0) {
		return nil, fmt.Errorf("pow: result too large for a float")
	}
	return starlark.Float(r), nil
}

// modPow is Python's three-argument pow: x**e mod m with m's sign, and
// the modular inverse for e < 0.
func modPow(thread *starlark.Thread, x, e, m *big.Int) (starlark.Value, error) {
	if m.Sign() == 0 {
		return nil, errors.New("pow: mod = 0 (pow's third argument cannot be 0)")
	}
	am := new(big.Int).Abs(m)
	if am.Cmp(big.NewInt(1)) == 0 {
		return starlark.MakeInt(0), nil
	}
	base := new(big.Int).Mod(x, am) // in [0, |m|)
	if e.Sign() < 0 && base.ModInverse(base, am) == nil {
		return nil, fmt.Errorf("pow: base %s is not invertible modulo %s", Short(starlark.MakeBigInt(x)), Short(starlark.MakeBigInt(am)))
	}
	r, err := expPolled(thread, "pow", base, new(big.Int).Abs(e), am)
	if err != nil {
		return nil, err
	}
	if m.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, m)
	}
	return starlark.MakeBigInt(r), nil
}

func formatFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var spec string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "value", &v, "spec?", &spec); err != nil {
		return nil, err
	}
	var s string
	var err error
	switch v := v.(type) {
	case starlark.Int:
		s, err = pyformat.Int(v.BigInt(), spec)
	case starlark.Float:
		s, err = pyformat.Float(float64(v), spec)
	case starlark.String:
		s, err = pyformat.String(string(v), spec)
	case starlark.Bool:
		if spec == "" {
			return starlark.String(v.String()), nil
		}
		n := int64(0)
		if v {
			n = 1
		}
		s, err = pyformat.Int(big.NewInt(n), spec)
	default:
		if spec == "" {
			return starlark.String(str(v)), nil
		}
		return nil, fmt.Errorf("format: spec = %q needs an int, float or string, got a %s", spec, v.Type())
	}
	if err != nil {
		return nil, fmt.Errorf("format: spec = %q: %v", spec, err)
	}
	return starlark.String(s), nil
}

// str is Starlark's str(v).
func str(v starlark.Value) string {
	if s, ok := starlark.AsString(v); ok {
		return s
	}
	if b, ok := v.(starlark.Bytes); ok {
		return string(b)
	}
	return v.String()
}

func printFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sep, end := " ", "\n"
	var sepV, endV starlark.Value = starlark.None, starlark.None
	var flush bool
	if err := starlark.UnpackArgs(b.Name(), nil, kwargs, "sep?", &sepV, "end?", &endV, "flush?", &flush); err != nil {
		return nil, err
	}
	for _, kv := range []struct {
		name string
		v    starlark.Value
		dst  *string
	}{{"sep", sepV, &sep}, {"end", endV, &end}} {
		if kv.v == starlark.None {
			continue
		}
		s, ok := kv.v.(starlark.String)
		if !ok {
			return nil, fmt.Errorf("print: %s = %s, want a string or None", kv.name, Short(kv.v))
		}
		*kv.dst = string(s)
	}
	// The text of each argument (go.starlark.net's str checks the memory
	// budget before it builds that of a container), then the budget for
	// the whole line, before it is built: eight copies of a 64 MiB string
	// with a 64 MiB sep are a 1 GiB line.
	parts := make([]string, len(args))
	total := int64(len(end)) + int64(max(len(args)-1, 0))*int64(len(sep))
	for i, a := range args {
		switch a.(type) {
		case starlark.String, starlark.Bytes:
			parts[i] = str(a)
		case starlark.Int, starlark.Float, starlark.Bool, starlark.NoneType:
			parts[i] = a.String() // at most a few times the value's size
		default:
			s, err := starlark.Call(thread, starlark.Universe["str"], starlark.Tuple{a}, nil)
			if err != nil {
				return nil, fmt.Errorf("print: %w", err)
			}
			parts[i] = string(s.(starlark.String))
		}
		total += int64(len(parts[i]))
	}
	if total > 1<<20 {
		if err := CheckAlloc(thread, "print", total); err != nil {
			return nil, err
		}
	}
	var buf strings.Builder
	buf.Grow(int(total))
	for i, p := range parts {
		if i > 0 {
			buf.WriteString(sep)
		}
		buf.WriteString(p)
	}
	if err := writePrint(thread, buf.String(), end); err != nil {
		return nil, err
	}
	if flush {
		// The bitsh command buffers standard output (docs/scripting.md).
		if f, ok := Stdout(thread).(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil {
				return nil, fmt.Errorf("print: %w", err)
			}
		}
	}
	return starlark.None, nil
}
