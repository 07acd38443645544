package builtins

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/bitsh/bitsh/builtins/words"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Words is the word array of SPEC §8 (type "words"): an immutable slice
// of 64-bit words. Other bindings (chess, fuse, shards) take and return
// arrays through NewWords and Uint64s.
type Words struct {
	w []uint64
	// origin finds the run that uses the array, for operators, which get
	// no thread, to check the memory budget; zero for NewWords arrays.
	origin Origin
}

// NewWords returns an array holding ws. The array owns ws: the caller must
// not modify it afterwards.
func NewWords(ws []uint64) *Words { return &Words{w: ws} }

// Uint64s returns the array's words. The caller must not modify them.
func (a *Words) Uint64s() []uint64 { return a.w }

// MaxWords is the most words one array may hold (2^27 words, 1 GiB);
// chunks iterates bigger sources an array at a time.
const MaxWords = 1 << 27

var (
	_ starlark.Indexable  = (*Words)(nil)
	_ starlark.Sequence   = (*Words)(nil)
	_ starlark.Sliceable  = (*Words)(nil)
	_ starlark.Container  = (*Words)(nil)
	_ starlark.HasBinary  = (*Words)(nil)
	_ starlark.HasUnary   = (*Words)(nil)
	_ starlark.HasAttrs   = (*Words)(nil)
	_ starlark.Comparable = (*Words)(nil)
)

// reprItems is how many items repr shows before "...".
const reprItems = 8

// String shows the length and the first items.
func (a *Words) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "words(len=%d, [", len(a.w))
	for i, x := range a.w {
		if i == reprItems {
			b.WriteString(", ...")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", x)
	}
	b.WriteString("])")
	return b.String()
}

// Type returns "words".
func (a *Words) Type() string { return "words" }

// Freeze does nothing: arrays are immutable.
func (a *Words) Freeze() {}

// Truth reports whether the array is non-empty.
func (a *Words) Truth() starlark.Bool { return len(a.w) > 0 }

// Hash fails: arrays are not hashable.
func (a *Words) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: words") }

// Len returns the number of words.
func (a *Words) Len() int { return len(a.w) }

// Index returns word i as an int.
func (a *Words) Index(i int) starlark.Value { return starlark.MakeUint64(a.w[i]) }

// Iterate yields the words as ints.
func (a *Words) Iterate() starlark.Iterator { return &wordsIter{a: a} }

type wordsIter struct {
	a *Words
	i int
}

func (it *wordsIter) Next(p *starlark.Value) bool {
	if it.i >= len(it.a.w) {
		return false
	}
	*p = starlark.MakeUint64(it.a.w[it.i])
	it.i++
	return true
}

func (it *wordsIter) Done() {}

// Slice returns a[start:end:step]. A step of 1 shares the words, which
// never change.
func (a *Words) Slice(start, end, step int) starlark.Value {
	if step == 1 {
		return &Words{w: a.w[start:end:end], origin: a.origin}
	}
	var out []uint64
	if step > 0 {
		for i := start; i < end; i += step {
			out = append(out, a.w[i])
		}
	} else {
		for i := start; i > end; i += step {
			out = append(out, a.w[i])
		}
	}
	return &Words{w: out, origin: a.origin}
}

// Has reports whether x, a word (negative ints as two's complement), is
// an element.
func (a *Words) Has(x starlark.Value) (bool, error) {
	i, ok := x.(starlark.Int)
	if !ok {
		return false, fmt.Errorf("in: got %s in words, want int", x.Type())
	}
	w, ok := intWord(i)
	if !ok {
		return false, nil
	}
	return words.Index(a.w, w) >= 0, nil
}

// intWord converts an int in [-2^63, 2^64) to a word.
func intWord(i starlark.Int) (uint64, bool) {
	if x, ok := i.Int64(); ok {
		return uint64(x), true
	}
	return i.Uint64()
}

// CompareSameType implements == and != (same length, same words); the
// ordered comparisons are the .lt .le .gt .ge methods.
func (a *Words) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	b := y.(*Words)
	eq := len(a.w) == len(b.w)
	for i := 0; eq && i < len(a.w); i++ {
		eq = a.w[i] == b.w[i]
	}
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("words %s words not supported: use the .lt .le .gt .ge methods for elementwise comparisons", op)
}

// thread returns the thread running now in the array's interpreter, or nil.
func (a *Words) thread() *starlark.Thread { return a.origin.Thread() }

// alloc returns n words for a result of fn, after checking the budget of
// the run that uses the array (none when unknown).
func allocWords(thread *starlark.Thread, fn string, n int) ([]uint64, error) {
	if n > MaxWords {
		return nil, fmt.Errorf("%s: %d words are more than an array holds (%d); iterate with chunks instead", fn, n, MaxWords)
	}
	if thread != nil {
		if err := CheckAlloc(thread, fn, 8*int64(n)); err != nil {
			return nil, err
		}
	}
	return make([]uint64, n), nil
}

var binaryOps = map[syntax.Token]words.Op{
	syntax.PLUS:       words.Add,
	syntax.MINUS:      words.Sub,
	syntax.STAR:       words.Mul,
	syntax.AMP:        words.And,
	syntax.PIPE:       words.Or,
	syntax.CIRCUMFLEX: words.Xor,
	syntax.LTLT:       words.Shl,
	syntax.GTGT:       words.Shr,
	syntax.SLASHSLASH: words.Div,
	syntax.PERCENT:    words.Mod,
}

// Binary implements the elementwise operators with another array of the
// same length or a word, on either side.
func (a *Words) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	kop, ok := binaryOps[op]
	if !ok {
		return nil, nil
	}
	fn := op.String()
	// Name the operands as the script wrote them: a on the left, b on the right.
	selfName, otherName := "a", "b"
	if side == starlark.Right {
		selfName, otherName = "b", "a"
	}
	switch y := y.(type) {
	case *Words:
		if a.origin.Thread() == nil {
			// a came from NewWords (another builtin's result): take the
			// run from the other operand, for the budget check.
			a = &Words{w: a.w, origin: y.origin}
		}
		if len(y.w) != len(a.w) {
			return nil, fmt.Errorf("%s: %s has %d words and %s has %d, want equal lengths", fn, selfName, len(a.w), otherName, len(y.w))
		}
		dst, err := allocWords(a.thread(), fn, len(a.w))
		if err != nil {
			return nil, err
		}
		l, r := a.w, y.w
		if side == starlark.Right {
			l, r = r, l
		}
		if i := words.Apply(kop, dst, l, r); i >= 0 {
			return nil, fmt.Errorf("%s: b[%d] = 0, division by zero", fn, i)
		}
		return &Words{w: dst, origin: a.origin}, nil
	case starlark.Int:
		x, ok := intWord(y)
		if !ok {
			return nil, fmt.Errorf("%s: %s = %s does not fit in 64 bits", fn, otherName, y)
		}
		dst, err := allocWords(a.thread(), fn, len(a.w))
		if err != nil {
			return nil, err
		}
		if side == starlark.Left {
			if !words.ApplyRight(kop, dst, a.w, x) {
				return nil, fmt.Errorf("%s: b = 0, division by zero", fn)
			}
		} else if i := words.ApplyLeft(kop, dst, x, a.w); i >= 0 {
			return nil, fmt.Errorf("%s: b[%d] = 0, division by zero", fn, i)
		}
		return &Words{w: dst, origin: a.origin}, nil
	}
	return nil, nil // Starlark reports the unsupported operand type
}

// Unary implements ~a and -a (and +a, the array itself).
func (a *Words) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.TILDE, syntax.MINUS:
		dst, err := allocWords(a.thread(), op.String(), len(a.w))
		if err != nil {
			return nil, err
		}
		if op == syntax.TILDE {
			words.Not(dst, a.w)
		} else {
			words.Neg(dst, a.w)
		}
		return &Words{w: dst, origin: a.origin}, nil
	case syntax.PLUS:
		return a, nil
	}
	return nil, nil
}

// sumValue converts a 128-bit sum to an int.
func sumValue(hi, lo uint64) starlark.Value {
	if hi == 0 {
		return starlark.MakeUint64(lo)
	}
	z := new(big.Int).SetUint64(hi)
	z.Lsh(z, 64)
	z.Or(z, new(big.Int).SetUint64(lo))
	return starlark.MakeBigInt(z)
}
