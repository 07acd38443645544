package builtins

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"runtime"
	"strings"

	"github.com/bitsh/bitsh/builtins/subset"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func init() {
	register(
		Builtin{Name: "subsets", Topic: "subsets", Fn: subsetsFn, Doc: `subsets(d, k=None)
Returns a lazy subsets value over the subsets of the word d. Iterating it
yields every subset of d in ascending numeric order, 0 first and d last (the
carry-rippler n = (n - d) & d); with k, only the subsets of exactly k bits,
ascending (the snoob order), none when k > popcount(d). Nothing is
materialised: len(s), s[i] (the i-th subset, negative i from the end,
computed directly), x in s and s.count (the exact count, 2^popcount(d) or
C(popcount(d), k), even 2^64) cost no iteration. len(s) is an error when the
count exceeds 2^63-1, and list(s), sorted(s), tuple(s) and the like are an
error beyond 16777216 items; iterate with for instead.`},
		Builtin{Name: "snoob", Topic: "subsets", Fn: snoobFn(false), Doc: `snoob(x, set=U64)
Returns the next greater subset of set with as many one bits as x (Gosper's
HAKMEM 175 generalised to any set), or None when x is the greatest. Error if
x == 0 or x is not a subset of set.`},
		Builtin{Name: "rsnoob", Topic: "subsets", Fn: snoobFn(true), Doc: `rsnoob(x, set=U64)
Returns the next smaller subset of set with as many one bits as x, or None
when x is the smallest. Error if x == 0 or x is not a subset of set.`},
		Builtin{Name: "len", Topic: "subsets", Fn: lenFn, Doc: `len(x)
Returns the number of elements of x, as Starlark's len, extended to bitsh's
lazy values (subsets, debruijn_sequences), whose length may exceed 2^31.
Error when it exceeds 2^63-1: s.count holds the exact count.`},
	)
}

// MaxMaterialise is the most items that a Go builtin such as list, tuple,
// sorted or set may draw from one of bitsh's lazy values. Beyond it the
// value reports an error instead of letting the builtin exhaust memory.
const MaxMaterialise = 1 << 24

// A lazyCounter is a lazy bitsh value whose exact length len() reports.
//
// Lazy values deliberately do not implement starlark.Sequence: go.starlark.net's
// list(), tuple(), sorted() and enumerate() preallocate Len() slots before
// iterating, so list(subsets(2**40 - 1)) would crash the process with an
// out-of-memory error before any check could run. Instead bitsh's len
// builtin (which shadows Starlark's) asks lazyCount, and the iterators
// stop materialising builtins at MaxMaterialise items.
type lazyCounter interface {
	starlark.Value
	lazyCount() *big.Int
}

func lenFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) == 1 && len(kwargs) == 0 {
		if lc, ok := args[0].(lazyCounter); ok {
			n := lc.lazyCount()
			if !n.IsInt64() {
				return nil, fmt.Errorf("len: %s has %s items, more than 2^63-1 (use .count)", lc.String(), n)
			}
			return starlark.MakeInt64(n.Int64()), nil
		}
	}
	return starlark.Call(thread, starlark.Universe["len"], args, kwargs)
}

// consumer names the Go function that called a lazy value's Iterate, or ""
// for a Starlark for loop or comprehension, which the interpreter itself
// bounds by steps and cancellation.
func consumer() string {
	var pcs [10]uintptr
	n := runtime.Callers(2, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch {
		case strings.HasPrefix(f.Function, "github.com/bitsh/bitsh/builtins."),
			f.Function == "go.starlark.net/starlark.Iterate":
			// this package, or the generic helper: look further up
		case strings.HasSuffix(f.Function, "starlark.(*Function).CallInternal"):
			return ""
		default:
			return f.Function
		}
		if !more {
			return ""
		}
	}
}

// streaming lists Go consumers that look at items one at a time without
// keeping them.
var streaming = map[string]bool{
	"go.starlark.net/starlark.minmax": true,
	"go.starlark.net/starlark.any":    true,
	"go.starlark.net/starlark.all":    true,
}

// lazyIter holds what every lazy iterator shares: cancellation polling and
// the materialisation limit.
type lazyIter struct {
	thread *starlark.Thread // nil when unknown
	poll   int
	stop   bool
}

// start prepares the iteration of value v with count items; it reports an
// error on the iterating thread, and returns stop == true, when a
// materialising Go builtin asks for more than MaxMaterialise items.
func startLazy(v lazyCounter, o Origin) lazyIter {
	li := lazyIter{thread: o.Thread(), poll: 4096}
	if li.thread == nil {
		return li
	}
	if c := consumer(); c != "" && !streaming[c] {
		n := v.lazyCount()
		if n.Cmp(big.NewInt(MaxMaterialise)) > 0 {
			name := c[strings.LastIndexAny(c, "./")+1:]
			li.thread.Cancel(fmt.Sprintf("%s: %s has %s items, more than the %d that a builtin may collect; iterate it with a for loop, index it or use .count",
				name, v.String(), n, MaxMaterialise))
			li.stop = true
		}
	}
	return li
}

// tick is called once per item; every 4096 items it polls the iterating
// thread's context and stops the iteration when it is done.
func (li *lazyIter) tick() bool {
	if li.poll--; li.poll > 0 {
		return true
	}
	li.poll = 4096
	if li.thread != nil && Context(li.thread).Err() != nil {
		li.stop = true
		return false
	}
	return true
}

// indexArg converts a Starlark index for a value of count items (count
// may be 2^64) into an offset in [0, count), negative indices counting
// from the end.
func indexArg(typ string, key starlark.Value, count *big.Int) (uint64, error) {
	i, ok := key.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s index: got %s, want int", typ, key.Type())
	}
	bi := i.BigInt()
	if bi.Sign() < 0 {
		bi.Add(bi, count)
	}
	if bi.Sign() < 0 || bi.Cmp(count) >= 0 {
		if count.Sign() == 0 {
			return 0, fmt.Errorf("%s index %s out of range: empty %s", typ, i, typ)
		}
		return 0, fmt.Errorf("%s index %s out of range [-%s:%s]", typ, i, count, new(big.Int).Sub(count, big.NewInt(1)))
	}
	return bi.Uint64(), nil
}

// memberWord converts the left operand of `in` to a word: ok is false for
// a non-int or an int outside [0, 2^64).
func memberWord(x starlark.Value) (uint64, bool) {
	i, ok := x.(starlark.Int)
	if !ok {
		return 0, false
	}
	return i.Uint64()
}

// ---- subsets ----

func subsetsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var d Word
	var kv starlark.Value = starlark.None
	if err := unpack(b.Name(), args, kwargs, "d", &d, "k?", &kv); err != nil {
		return nil, err
	}
	k := -1
	if kv != starlark.None {
		ki, ok := kv.(starlark.Int)
		if !ok {
			return nil, fmt.Errorf("%s: k: got %s, want int or None", b.Name(), kv.Type())
		}
		n, ok := ki.Int64()
		if !ok || n < 0 {
			if ki.Sign() < 0 {
				return nil, fmt.Errorf("%s: k = %s is negative", b.Name(), ki)
			}
			n = 65 // huge k: no subsets
		}
		k = int(min(n, 65))
	}
	return &subsetsValue{d: uint64(d), k: k, origin: OriginOf(thread)}, nil
}

// subsetsValue is the lazy value subsets(d, k) returns; k < 0 means every
// subset.
type subsetsValue struct {
	d      uint64
	k      int
	origin Origin
}

var (
	_ starlark.Iterable   = (*subsetsValue)(nil)
	_ starlark.Mapping    = (*subsetsValue)(nil) // s[i] with any int i
	_ starlark.Container  = (*subsetsValue)(nil)
	_ starlark.HasAttrs   = (*subsetsValue)(nil)
	_ starlark.Comparable = (*subsetsValue)(nil)
	_ lazyCounter         = (*subsetsValue)(nil)
)

func (s *subsetsValue) String() string {
	if s.k < 0 {
		return fmt.Sprintf("subsets(%#x)", s.d)
	}
	return fmt.Sprintf("subsets(%#x, k=%d)", s.d, s.k)
}
func (s *subsetsValue) Type() string         { return "subsets" }
func (s *subsetsValue) Freeze()              {}
func (s *subsetsValue) Truth() starlark.Bool { return s.lazyCount().Sign() > 0 }
func (s *subsetsValue) Hash() (uint32, error) {
	return uint32(s.d^s.d>>32) ^ uint32(s.k)*0x9e3779b9, nil
}

func (s *subsetsValue) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	t := y.(*subsetsValue)
	eq := s.d == t.d && s.k == t.k
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", s.Type(), op, t.Type())
}

// lazyCount returns 2^popcount(d), or C(popcount(d), k).
func (s *subsetsValue) lazyCount() *big.Int {
	p := bits.OnesCount64(s.d)
	if s.k < 0 {
		return new(big.Int).Lsh(big.NewInt(1), uint(p))
	}
	return new(big.Int).SetUint64(subset.Binomial(p, s.k))
}

func (s *subsetsValue) Attr(name string) (starlark.Value, error) {
	if name == "count" {
		return starlark.MakeBigInt(s.lazyCount()), nil
	}
	return nil, nil
}

func (s *subsetsValue) AttrNames() []string { return []string{"count"} }

// Get implements s[i]: the i-th subset, by depositing i into d, or by
// unranking among the k-subsets.
func (s *subsetsValue) Get(key starlark.Value) (starlark.Value, bool, error) {
	i, err := indexArg(s.Type(), key, s.lazyCount())
	if err != nil {
		return nil, false, err
	}
	if s.k < 0 {
		return wordValue(subset.Deposit(i, s.d)), true, nil
	}
	return wordValue(subset.UnrankK(s.d, s.k, i)), true, nil
}

func (s *subsetsValue) Has(x starlark.Value) (bool, error) {
	w, ok := memberWord(x)
	if !ok || w&^s.d != 0 {
		return false, nil
	}
	return s.k < 0 || bits.OnesCount64(w) == s.k, nil
}

func (s *subsetsValue) Iterate() starlark.Iterator {
	it := &subsetsIter{lazyIter: startLazy(s, s.origin), d: s.d, k: s.k}
	switch {
	case s.k < 0:
	case s.k > bits.OnesCount64(s.d):
		it.stop = true
	default:
		it.n = subset.Lowest(s.d, s.k)
	}
	return it
}

type subsetsIter struct {
	lazyIter
	n, d uint64
	k    int
}

func (it *subsetsIter) Next(p *starlark.Value) bool {
	if it.stop || !it.tick() {
		return false
	}
	*p = wordValue(it.n)
	if it.k < 0 {
		it.n = subset.Next(it.n, it.d)
		it.stop = it.n == 0
	} else {
		var ok bool
		it.n, ok = subset.Snoob(it.n, it.d)
		it.stop = !ok
	}
	return true
}

func (it *subsetsIter) Done() {}

// ---- snoob, rsnoob ----

func snoobFn(reverse bool) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var x Word
		set := Word(math.MaxUint64)
		if err := unpack(b.Name(), args, kwargs, "x", &x, "set?", &set); err != nil {
			return nil, err
		}
		if x == 0 {
			return nil, fmt.Errorf("%s: x = 0 has no one bit, want a nonempty subset of set", b.Name())
		}
		if x&^set != 0 {
			return nil, fmt.Errorf("%s: x = %s is not a subset of set = %s", b.Name(), hexWord(x), hexWord(set))
		}
		var y uint64
		var ok bool
		if reverse {
			y, ok = subset.RSnoob(uint64(x), uint64(set))
		} else {
			y, ok = subset.Snoob(uint64(x), uint64(set))
		}
		if !ok {
			return starlark.None, nil
		}
		return wordValue(y), nil
	}
}
