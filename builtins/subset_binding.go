package builtins

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"runtime"

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
	)
}

// ---- subsets ----

func subsetsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) == 0 && len(args) == 1 {
		if d, ok := argWord(args[0]); ok { // the common call, subsets(d)
			return &subsetsValue{d: d, k: -1, origin: OriginOf(thread)}, nil
		}
	}
	return subsetsSlow(thread, b, args, kwargs)
}

func subsetsSlow(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
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
				return nil, fmt.Errorf("%s: k = %s is negative", b.Name(), Short(ki))
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
	it := &subsetsIter{lazyIter: startLazy(s.origin), d: s.d, k: s.k}
	switch {
	case s.k < 0:
	case s.k > bits.OnesCount64(s.d):
		it.stop = true
	default:
		it.n = subset.Lowest(s.d, s.k)
	}
	if !it.stop && s.d > math.MaxInt32 && runtime.GOMAXPROCS(0) > 1 {
		// Items above 2^31-1 are heap-allocated big ints, about 50 ns
		// each, 70 times the kernel's cost: make them on another core.
		return newPrefetch(it.lazyIter, s.origin.Context(), it.produce, func(v starlark.Value) starlark.Value { return v })
	}
	return it
}

// produce emits the iterator's items as Starlark values, polling ctx.
func (it *subsetsIter) produce(ctx context.Context, emit func(starlark.Value) bool) error {
	for n := 1; !it.stop; n++ {
		if n&4095 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		var v starlark.Value
		it.advance(&v)
		if !emit(v) {
			return nil
		}
	}
	return nil
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
	it.advance(p)
	return true
}

// advance stores the current item in *p and steps to the next one.
func (it *subsetsIter) advance(p *starlark.Value) {
	*p = wordValue(it.n)
	if it.k < 0 {
		it.n = subset.Next(it.n, it.d)
		it.stop = it.n == 0
	} else {
		var ok bool
		it.n, ok = subset.Snoob(it.n, it.d)
		it.stop = !ok
	}
}

func (it *subsetsIter) Done() {}

// ---- snoob, rsnoob ----

func snoobFn(reverse bool) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, set, ok := snoobFast(args, kwargs)
		if !ok {
			var err error
			if x, set, err = snoobArgs(b.Name(), args, kwargs); err != nil {
				return nil, err
			}
		}
		if x == 0 {
			return nil, fmt.Errorf("%s: x = 0 has no one bit, want a nonempty subset of set", b.Name())
		}
		if x&^set != 0 {
			return nil, fmt.Errorf("%s: x = %s is not a subset of set = %s", b.Name(), hexWord(x), hexWord(set))
		}
		var y uint64
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

// snoobFast converts the common call of snoob and rsnoob without
// allocating: one or two positional words.
func snoobFast(args starlark.Tuple, kwargs []starlark.Tuple) (x, set Word, ok bool) {
	if len(kwargs) != 0 || len(args) < 1 || len(args) > 2 {
		return 0, 0, false
	}
	xw, ok := argWord(args[0])
	if !ok {
		return 0, 0, false
	}
	sw := uint64(math.MaxUint64)
	if len(args) == 2 {
		if sw, ok = argWord(args[1]); !ok {
			return 0, 0, false
		}
	}
	return Word(xw), Word(sw), true
}

// snoobArgs is the general path of snoob and rsnoob's arguments.
func snoobArgs(fn string, args starlark.Tuple, kwargs []starlark.Tuple) (x, set Word, err error) {
	set = Word(math.MaxUint64)
	err = unpack(fn, args, kwargs, "x", &x, "set?", &set)
	return x, set, err
}
