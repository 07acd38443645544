package builtins

import (
	"fmt"
	"strings"

	"go.starlark.net/starlark"
)

// A Word is a 64-bit word argument. Bindings pass a *Word to unpack, which
// accepts any Starlark int in [-2^63, 2^64), negative values as their
// two's complement, and reports anything else as an error naming the
// builtin and the parameter.
type Word uint64

// A Width is a word width argument: 8, 16, 32 or 64.
type Width int

// unpack is starlark.UnpackArgs with two extra target types, *Word and
// *Width, whose errors follow the bitsh contract ("popcount: x = 2^64 does
// not fit in 64 bits") instead of go.starlark.net's generic wording.
func unpack(fn string, args starlark.Tuple, kwargs []starlark.Tuple, pairs ...any) error {
	type deferred struct {
		name string
		raw  *starlark.Value
		dst  any
	}
	var later []deferred
	fwd := make([]any, len(pairs))
	copy(fwd, pairs)
	for i := 1; i < len(pairs); i += 2 {
		switch dst := pairs[i].(type) {
		case *Word, *Width:
			raw := new(starlark.Value)
			name := strings.TrimRight(pairs[i-1].(string), "?")
			later = append(later, deferred{name, raw, dst})
			fwd[i] = raw
		}
	}
	if err := starlark.UnpackArgs(fn, args, kwargs, fwd...); err != nil {
		return err
	}
	for _, d := range later {
		if *d.raw == nil {
			continue // optional and absent: keep the caller's default
		}
		switch dst := d.dst.(type) {
		case *Word:
			w, err := toWord(fn, d.name, *d.raw)
			if err != nil {
				return err
			}
			*dst = w
		case *Width:
			w, err := toWidth(fn, d.name, *d.raw)
			if err != nil {
				return err
			}
			*dst = w
		}
	}
	return nil
}

func toWord(fn, name string, v starlark.Value) (Word, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s: got %s, want int", fn, name, v.Type())
	}
	if x, ok := i.Int64(); ok {
		return Word(x), nil
	}
	if x, ok := i.Uint64(); ok {
		return Word(x), nil
	}
	return 0, fmt.Errorf("%s: %s = %s does not fit in 64 bits", fn, name, Short(i))
}

func toWidth(fn, name string, v starlark.Value) (Width, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s: got %s, want int", fn, name, v.Type())
	}
	switch x, _ := i.Int64(); x {
	case 8, 16, 32, 64:
		return Width(x), nil
	}
	return 0, fmt.Errorf("%s: %s = %s is not one of 8, 16, 32, 64", fn, name, Short(i))
}

// fits checks that x fits in w bits, naming the builtin and the argument.
func fits(fn, name string, x Word, w Width) error {
	if w < 64 && uint64(x)>>uint(w) != 0 {
		return fmt.Errorf("%s: %s = %s does not fit in width = %d bits", fn, name, hexWord(x), w)
	}
	return nil
}

// hexWord formats a word for error messages, as the contract's examples do.
func hexWord(x Word) string { return fmt.Sprintf("%#x", uint64(x)) }

// wordValue converts a kernel result to a Starlark int in [0, 2^64).
func wordValue(x uint64) starlark.Value { return starlark.MakeUint64(x) }

// argWord returns the word an int argument stands for (docs/scripting.md, negative
// values as their two's complement) without allocating: the fast paths'
// conversion. ok is false for a non-int or an int outside [-2^63, 2^64);
// the general path then reports it.
func argWord(v starlark.Value) (uint64, bool) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	if x, ok := i.Int64(); ok {
		return uint64(x), true
	}
	return i.Uint64()
}

// argInt returns an int argument in int64 range, without allocating.
func argInt(v starlark.Value) (int64, bool) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, false
	}
	return i.Int64()
}

// wordWidthFast converts the common call (x, width=64) of a word builtin
// with a width, positional, without allocating.
func wordWidthFast(args starlark.Tuple, kwargs []starlark.Tuple) (x Word, w Width, ok bool) {
	if len(kwargs) != 0 || len(args) < 1 || len(args) > 2 {
		return 0, 0, false
	}
	xw, ok := argWord(args[0])
	if !ok {
		return 0, 0, false
	}
	w = 64
	if len(args) == 2 {
		n, ok := argInt(args[1])
		if !ok || (n != 8 && n != 16 && n != 32 && n != 64) {
			return 0, 0, false
		}
		w = Width(n)
	}
	return Word(xw), w, true
}

// wordWidthArgs is the general path of (name, width=64).
func wordWidthArgs(fn, name string, args starlark.Tuple, kwargs []starlark.Tuple) (x Word, w Width, err error) {
	w = 64
	err = unpack(fn, args, kwargs, name, &x, "width?", &w)
	return x, w, err
}

// wordArg converts the single word argument of a builtin such as bits(x):
// positional, without allocating, or through unpack for anything else.
func wordArg(fn, name string, args starlark.Tuple, kwargs []starlark.Tuple) (Word, error) {
	if len(kwargs) == 0 && len(args) == 1 {
		if x, ok := argWord(args[0]); ok {
			return Word(x), nil
		}
	}
	return wordArgSlow(fn, name, args, kwargs)
}

func wordArgSlow(fn, name string, args starlark.Tuple, kwargs []starlark.Tuple) (x Word, err error) {
	err = unpack(fn, args, kwargs, name, &x)
	return x, err
}

// wordWidthArg converts the arguments (name, width=64) of a builtin such
// as is_debruijn(m, width=64), fast for the common call.
func wordWidthArg(fn, name string, args starlark.Tuple, kwargs []starlark.Tuple) (Word, Width, error) {
	if x, w, ok := wordWidthFast(args, kwargs); ok {
		return x, w, nil
	}
	return wordWidthArgs(fn, name, args, kwargs)
}
