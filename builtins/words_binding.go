package builtins

import (
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/words"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Words is the word array of docs/words.md (type "words"): an immutable slice
// of 64-bit words. Other bindings (chess, fuse, shards) take and return
// arrays through NewWords and Uint64s.
type Words struct {
	// w holds the words; those of a deferred array only after once has
	// run materialize.
	w []uint64
	// lazy is the computation of a deferred array's words until
	// materialize runs (then nil, so that its operands can be collected).
	lazy   atomic.Pointer[words.Lazy]
	isLazy bool // set at construction
	n      int  // the length, which a deferred array knows before its words
	once   sync.Once
	// origin finds the run that uses the array, for operators, which get
	// no thread, to check the memory budget; zero for NewWords arrays.
	origin Origin
}

// NewWords returns an array holding ws. The array owns ws: the caller must
// not modify it afterwards.
func NewWords(ws []uint64) *Words { return &Words{w: ws, n: len(ws)} }

// newWords returns an array holding ws for the run of origin.
func newWords(ws []uint64, origin Origin) *Words {
	return &Words{w: ws, n: len(ws), origin: origin}
}

// newLazy returns an array whose words l computes when they are first
// needed; the caller has checked the budget for them.
func newLazy(l *words.Lazy, origin Origin) *Words {
	a := &Words{n: l.Len(), isLazy: true, origin: origin}
	a.lazy.Store(l)
	return a
}

// Uint64s returns the array's words. The caller must not modify them.
func (a *Words) Uint64s() []uint64 { return a.words() }

// words returns the words, computing those of a lazy array once.
func (a *Words) words() []uint64 {
	if a.isLazy {
		a.once.Do(a.materialize)
	}
	return a.w
}

func (a *Words) materialize() {
	if l := a.lazy.Load(); l != nil {
		a.w = l.Materialize()
		a.lazy.Store(nil)
	}
}

// deferLimit is the longest array whose operations are deferred. The
// words of a deferred array are computed without polling cancellation
// (by whatever first needs them): for 2^21 words a chain of typical
// operations takes milliseconds and the longest chain of the slowest
// deferred operations about 0.1 s. Longer arrays are computed at once.
const deferLimit = 1 << 21

// canDefer reports whether operations on a are deferred.
func (a *Words) canDefer() bool { return a.n > 0 && a.n <= deferLimit }

// checkDeferred checks a deferred result of fn of a's length.
func (a *Words) checkDeferred(thread *starlark.Thread, fn string) error {
	return checkWords(thread, fn, a.n)
}

// deferred returns an array computed by l, for a's run.
func (a *Words) deferred(l *words.Lazy) *Words { return newLazy(l, a.origin) }

// blocks calls fn with a's words in order, all at once or, for a deferred
// array, a block at a time without computing the whole array; fn returns
// false to stop.
func (a *Words) blocks(fn func(blk []uint64) bool) {
	if l := a.lazy.Load(); l != nil {
		l.Blocks(fn)
		return
	}
	fn(a.words())
}

// asLazy returns the deferred computation of a's words: its own while it
// is lazy and cheap enough to extend, else one that starts from its words.
func (a *Words) asLazy() *words.Lazy {
	if l := a.lazy.Load(); l != nil && l.Cost() < words.MaxSteps {
		return l
	}
	return words.NewLazy(a.words())
}

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
	fmt.Fprintf(&b, "words(len=%d, [", a.n)
	for i, x := range a.words() {
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
func (a *Words) Truth() starlark.Bool { return a.n > 0 }

// Hash fails: arrays are not hashable.
func (a *Words) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: words") }

// Len returns the number of words.
func (a *Words) Len() int { return a.n }

// Index returns word i as an int.
func (a *Words) Index(i int) starlark.Value { return starlark.MakeUint64(a.words()[i]) }

// Iterate yields the words as ints.
func (a *Words) Iterate() starlark.Iterator { return &wordsIter{w: a.words()} }

type wordsIter struct {
	w []uint64
	i int
}

func (it *wordsIter) Next(p *starlark.Value) bool {
	if it.i >= len(it.w) {
		return false
	}
	*p = starlark.MakeUint64(it.w[it.i])
	it.i++
	return true
}

func (it *wordsIter) Done() {}

// Slice returns a[start:end:step]. A step of 1 shares the words, which
// never change.
func (a *Words) Slice(start, end, step int) starlark.Value {
	w := a.words()
	if step == 1 {
		return newWords(w[start:end:end], a.origin)
	}
	var out []uint64
	if step > 0 {
		for i := start; i < end; i += step {
			out = append(out, w[i])
		}
	} else {
		for i := start; i > end; i += step {
			out = append(out, w[i])
		}
	}
	return newWords(out, a.origin)
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
	return words.Index(a.words(), w) >= 0, nil
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
	eq := a.n == b.n
	if eq {
		aw, bw := a.words(), b.words()
		for i := 0; eq && i < len(aw); i++ {
			eq = aw[i] == bw[i]
		}
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

// checkWords checks that a result of n words fits in an array and in the
// budget of the run of thread (none when nil).
func checkWords(thread *starlark.Thread, fn string, n int) error {
	if n > MaxWords {
		return fmt.Errorf("%s: %d words are more than an array holds (%d); iterate with chunks instead", fn, n, MaxWords)
	}
	if thread != nil {
		return CheckAlloc(thread, fn, 8*int64(n))
	}
	return nil
}

// allocWords returns n words for a result of fn, after checkWords.
func allocWords(thread *starlark.Thread, fn string, n int) ([]uint64, error) {
	if err := checkWords(thread, fn, n); err != nil {
		return nil, err
	}
	return makeSlice[uint64](thread, fn, n)
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
// same length or a word, on either side. Operators that cannot fail give
// a deferred array (see deferred in docs/words.md): its words are
// computed when first needed, a block at a time, together with the
// operations applied to it since.
func (a *Words) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	return a.binary(nil, op, y, side)
}

// binaryOn returns x op y as the interpreter computes it, except that an
// operator of a word array checks the budget and polls the context of
// thread, the run calling it (a builtin that applies operators, as sum),
// instead of the run that made the array (the interpreter's operators
// get no thread).
func binaryOn(thread *starlark.Thread, op syntax.Token, x, y starlark.Value) (starlark.Value, error) {
	if a, ok := x.(*Words); ok {
		if v, err := a.binary(thread, op, y, starlark.Left); v != nil || err != nil {
			return v, err
		}
	} else if b, ok := y.(*Words); ok {
		if v, err := b.binary(thread, op, x, starlark.Right); v != nil || err != nil {
			return v, err
		}
	}
	return starlark.Binary(op, x, y)
}

// binary is Binary for the run of thread, or when nil for the run using
// the arrays now (their origin's).
func (a *Words) binary(thread *starlark.Thread, op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
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
	left := side == starlark.Right // the other operand is on the left
	origin := a.origin
	if y, ok := y.(*Words); ok && origin.Thread() == nil {
		// a came from NewWords (another builtin's result): take the
		// run from the other operand, for the budget check.
		origin = y.origin
	}
	th := thread // the run whose budget and context apply
	if th == nil {
		th = origin.Thread()
	} else {
		origin = OriginOf(thread) // the result is the caller's
	}
	switch y := y.(type) {
	case *Words:
		if y.n != a.n {
			return nil, fmt.Errorf("%s: %s has %d words and %s has %d, want equal lengths", fn, selfName, a.n, otherName, y.n)
		}
		if err := checkWords(th, fn, a.n); err != nil {
			return nil, err
		}
		if words.Deferrable(kop) && a.canDefer() {
			if yl := y.lazy.Load(); yl != nil && yl.Cost() < words.MaxSteps {
				return newLazy(a.asLazy().OpLazy(kop, yl, left), origin), nil
			}
			return newLazy(a.asLazy().OpArray(kop, y.words(), left), origin), nil
		}
		dst, err := makeSlice[uint64](th, fn, a.n)
		if err != nil {
			return nil, err
		}
		l, r := a.words(), y.words()
		if left {
			l, r = r, l
		}
		zero := -1
		if err := inChunks(th, fn, a.n, pollWords, func(lo, hi int) {
			if i := words.Apply(kop, dst[lo:hi], l[lo:hi], r[lo:hi]); i >= 0 && zero < 0 {
				zero = lo + i
			}
		}); err != nil {
			return nil, err
		}
		if zero >= 0 {
			return nil, fmt.Errorf("%s: b[%d] = 0, division by zero", fn, zero)
		}
		return newWords(dst, origin), nil
	case starlark.Int:
		x, ok := intWord(y)
		if !ok {
			return nil, fmt.Errorf("%s: %s = %s does not fit in 64 bits", fn, otherName, Short(y))
		}
		if err := checkWords(th, fn, a.n); err != nil {
			return nil, err
		}
		if words.Deferrable(kop) && a.canDefer() {
			return newLazy(a.asLazy().OpWord(kop, x, left), origin), nil
		}
		if !left && (kop == words.Div || kop == words.Mod) && x == 0 {
			return nil, fmt.Errorf("%s: b = 0, division by zero", fn)
		}
		dst, err := makeSlice[uint64](th, fn, a.n)
		if err != nil {
			return nil, err
		}
		src := a.words()
		zero := -1
		if err := inChunks(th, fn, a.n, pollWords, func(lo, hi int) {
			if !left {
				words.ApplyRight(kop, dst[lo:hi], src[lo:hi], x)
			} else if i := words.ApplyLeft(kop, dst[lo:hi], x, src[lo:hi]); i >= 0 && zero < 0 {
				zero = lo + i
			}
		}); err != nil {
			return nil, err
		}
		if zero >= 0 {
			return nil, fmt.Errorf("%s: b[%d] = 0, division by zero", fn, zero)
		}
		return newWords(dst, origin), nil
	}
	return nil, nil // Starlark reports the unsupported operand type
}

// Unary implements ~a and -a (and +a, the array itself), deferred.
func (a *Words) Unary(op syntax.Token) (starlark.Value, error) {
	switch op {
	case syntax.TILDE, syntax.MINUS:
		if err := checkWords(a.thread(), op.String(), a.n); err != nil {
			return nil, err
		}
		kern := words.Not
		if op == syntax.MINUS {
			kern = words.Neg
		}
		if !a.canDefer() {
			dst, err := makeSlice[uint64](a.thread(), op.String(), a.n)
			if err != nil {
				return nil, err
			}
			src := a.words()
			if err := inChunks(a.thread(), op.String(), a.n, pollWords, func(lo, hi int) { kern(dst[lo:hi], src[lo:hi]) }); err != nil {
				return nil, err
			}
			return newWords(dst, a.origin), nil
		}
		return newLazy(a.asLazy().Map(kern), a.origin), nil
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
