package builtins

import (
	"context"
	"fmt"
	"math/big"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func init() {
	register(
		Builtin{Name: "is_debruijn", Topic: "debruijn", Fn: isDebruijn, Doc: `is_debruijn(m, width=64)
Reports whether m is a De Bruijn magic for width (8, 16, 32 or 64): with
s = log2(width), the width windows ((m << i) mod 2^width) >> (width - s),
i = 0..width-1, are pairwise distinct. m must fit in width bits.`},
		Builtin{Name: "debruijn_table", Topic: "debruijn", Fn: debruijnTable, Doc: `debruijn_table(m, width=64)
Returns the bitscan table of the magic m: the list T of width ints with
T[((m << i) mod 2^width) >> (width - s)] = i. debruijn_table(0x1D, 8) ==
[0, 1, 6, 2, 7, 5, 4, 3]. Error if m is not a De Bruijn magic.`},
		wordBuiltin("debruijn_bsf", "debruijn", debruijnBsfOp),
		Builtin{Name: "debruijn", Topic: "debruijn", Fn: debruijnFn, Doc: `debruijn(n, width=64)
Returns the n-th (from 1) De Bruijn magic for width in ascending numeric
order among those whose top log2(width) bits are zero, the order of Gerd
Isenberg's generator: debruijn(4061955) == 0x022fdd63cc95386d. Computed by
counting completions (BEST theorem), a millisecond for any n. Error outside
1..count (2, 16, 2048, 67108864 for widths 8, 16, 32, 64).`},
		Builtin{Name: "debruijn_sequences", Topic: "debruijn", Fn: debruijnSequences, Doc: `debruijn_sequences(width=64)
Returns a lazy value over all De Bruijn magics for width whose top
log2(width) bits are zero, ascending (the order of debruijn). Supports
for loops (native enumeration), len() (2, 16, 2048 or 67108864), s[i]
(= debruijn(i + 1), negative i from the end), m in s, s.count, and
s.index(m), the 0-based position of the magic m (s[s.index(m)] == m, the
inverse of debruijn(n, width) less one), computed by counting like
debruijn, not by iterating; error if m is not in s.`},
	)
}

// defaultScanner is the scanner of debruijn_bsf's default magic.
var defaultScanner, _ = debruijn.NewScanner(debruijn.Default64, 64)

func magicError(fn, name string, m Word, w Width) error {
	return fmt.Errorf("%s: %s = %s is not a De Bruijn magic for width = %d", fn, name, hexWord(m), w)
}

func isDebruijn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m, width, err := wordWidthArg(b.Name(), "m", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := fits(b.Name(), "m", m, width); err != nil {
		return nil, err
	}
	return starlark.Bool(debruijn.IsMagic(uint64(m), int(width))), nil
}

func debruijnTable(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	m, width, err := wordWidthArg(b.Name(), "m", args, kwargs)
	if err != nil {
		return nil, err
	}
	if err := fits(b.Name(), "m", m, width); err != nil {
		return nil, err
	}
	t, ok := debruijn.Table(uint64(m), int(width))
	if !ok {
		return nil, magicError(b.Name(), "m", m, width)
	}
	elems := make([]starlark.Value, len(t))
	for i, v := range t {
		elems[i] = starlark.MakeInt(v)
	}
	return starlark.NewList(elems), nil
}

// debruijnBsfOp is debruijn_bsf, scalar and elementwise.
var debruijnBsfOp = newWordOp(wordOp{
	params: wordParams("debruijn_bsf"),
	check: func(fn string, v [4]uint64, nm *argNames) error {
		x, magic, width := Word(v[0]), Word(v[1]), Width(v[2])
		if err := fits(fn, nm.name(0), x, width); err != nil {
			return err
		}
		if err := fits(fn, nm.name(1), magic, width); err != nil {
			return err
		}
		if (magic != debruijn.Default64 || width != 64) && !debruijn.IsMagic(uint64(magic), int(width)) {
			return magicError(fn, nm.name(1), magic, width)
		}
		if x == 0 {
			return fmt.Errorf("%s: %s = 0 has no one bit", fn, nm.name(0))
		}
		return nil
	},
	scalar: func(v [4]uint64) uint64 {
		if v[1] == debruijn.Default64 && v[2] == 64 {
			return uint64(defaultScanner.Bsf(v[0]))
		}
		sc, _ := debruijn.ScannerOf(v[1], int(v[2]))
		return uint64(sc.Bsf(v[0]))
	},
	array: func(dst []uint64, c [4][]uint64) bool {
		x, magic, width := c[0], c[1], int(c[2][0])
		ok := true
		// One scanner per run of equal magics: one per block when magic
		// is a single word.
		for lo := 0; lo < len(dst); {
			hi := lo + 1
			for hi < len(dst) && magic[hi] == magic[lo] {
				hi++
			}
			sc, good := debruijn.ScannerOf(magic[lo], width)
			if !good {
				return false
			}
			ok = sc.BsfAll(dst[lo:hi], x[lo:hi]) && ok
			lo = hi
		}
		return ok
	},
})

func debruijnFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	n, width, err := debruijnArgs(b.Name(), args, kwargs)
	if err != nil {
		return nil, err
	}
	count := debruijn.Count(int(width))
	u, ok := n.Uint64()
	if !ok || u < 1 || u > count {
		return nil, fmt.Errorf("%s: n = %s is not in 1..%d (the magics for width = %d)", b.Name(), Short(n), count, width)
	}
	m, _ := debruijn.Nth(u, int(width))
	return wordValue(m), nil
}

func debruijnSequences(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	width := Width(64)
	if err := unpack(b.Name(), args, kwargs, "width?", &width); err != nil {
		return nil, err
	}
	return &debruijnSeqs{width: int(width), origin: OriginOf(thread)}, nil
}

// debruijnSeqs is the lazy value debruijn_sequences(width) returns.
type debruijnSeqs struct {
	width  int
	origin Origin
}

var (
	_ starlark.Iterable   = (*debruijnSeqs)(nil)
	_ starlark.Mapping    = (*debruijnSeqs)(nil)
	_ starlark.Container  = (*debruijnSeqs)(nil)
	_ starlark.HasAttrs   = (*debruijnSeqs)(nil)
	_ starlark.Comparable = (*debruijnSeqs)(nil)
	_ lazyCounter         = (*debruijnSeqs)(nil)
)

func (s *debruijnSeqs) String() string        { return fmt.Sprintf("debruijn_sequences(%d)", s.width) }
func (s *debruijnSeqs) Type() string          { return "debruijn_sequences" }
func (s *debruijnSeqs) Freeze()               {}
func (s *debruijnSeqs) Truth() starlark.Bool  { return true }
func (s *debruijnSeqs) Hash() (uint32, error) { return uint32(s.width) * 0x9e3779b9, nil }
func (s *debruijnSeqs) lazyCount() *big.Int {
	return new(big.Int).SetUint64(debruijn.Count(s.width))
}

func (s *debruijnSeqs) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	eq := s.width == y.(*debruijnSeqs).width
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", s.Type(), op, s.Type())
}

func (s *debruijnSeqs) Attr(name string) (starlark.Value, error) {
	switch name {
	case "count":
		return starlark.MakeUint64(debruijn.Count(s.width)), nil
	case "index":
		return starlark.NewBuiltin("index", s.index).BindReceiver(s), nil
	}
	return nil, nil
}

func (s *debruijnSeqs) AttrNames() []string { return []string{"count", "index"} }

// index is s.index(m): the 0-based position of the magic m, so that
// s[s.index(m)] == m, by counting completions (debruijn.Rank), not by
// iterating.
func (s *debruijnSeqs) index(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	const fn = "debruijn_sequences.index"
	var m Word
	if err := unpack(fn, args, kwargs, "m", &m); err != nil {
		return nil, err
	}
	n, ok := debruijn.Rank(uint64(m), s.width)
	if !ok {
		return nil, fmt.Errorf("%s: m = %s is not in %s (a De Bruijn magic for width = %d with its top %d bits zero)", fn, hexWord(m), s, s.width, bitsLen(s.width))
	}
	return starlark.MakeUint64(n - 1), nil
}

func (s *debruijnSeqs) Get(key starlark.Value) (starlark.Value, bool, error) {
	i, err := indexArg(s.Type(), key, s.lazyCount())
	if err != nil {
		return nil, false, err
	}
	m, _ := debruijn.Nth(i+1, s.width)
	return wordValue(m), true, nil
}

func (s *debruijnSeqs) Has(x starlark.Value) (bool, error) {
	m, ok := memberWord(x)
	if !ok || m>>(uint(s.width)-uint(bitsLen(s.width))) != 0 {
		return false, nil // too wide, or top s bits not zero
	}
	return debruijn.IsMagic(m, s.width), nil
}

// bitsLen returns log2 of a valid width.
func bitsLen(width int) int {
	s, _ := debruijn.Log2(width)
	return int(s)
}

func (s *debruijnSeqs) Iterate() starlark.Iterator {
	li := startLazy(s.origin)
	if s.width == 64 && !li.stop {
		// The kernel costs about 125 ns a magic: run it on a goroutine of
		// its own, a batch ahead, to overlap with the interpreter's loop.
		return newPrefetch(li, s.origin.Context(), func(ctx context.Context, emit func(uint64) bool) error {
			return debruijn.Enumerate(ctx, 64, emit)
		}, wordValue)
	}
	it, _ := debruijn.NewIter(s.width)
	return &debruijnIter{lazyIter: li, it: it}
}

type debruijnIter struct {
	lazyIter
	it *debruijn.Iter
}

func (it *debruijnIter) Next(p *starlark.Value) bool {
	if it.stop || !it.tick() || !it.it.Next() {
		return false
	}
	*p = wordValue(it.it.Value())
	return true
}

func (it *debruijnIter) Done() {}

// debruijnArgs converts debruijn's (n, width=64), fast for the common call.
func debruijnArgs(fn string, args starlark.Tuple, kwargs []starlark.Tuple) (n starlark.Int, width Width, err error) {
	if len(kwargs) == 0 && (len(args) == 1 || len(args) == 2) {
		if n, ok := args[0].(starlark.Int); ok {
			if len(args) == 1 {
				return n, 64, nil
			}
			if w, ok := argInt(args[1]); ok && (w == 8 || w == 16 || w == 32 || w == 64) {
				return n, Width(w), nil
			}
		}
	}
	width = 64
	err = unpack(fn, args, kwargs, "n", &n, "width?", &width)
	return n, width, err
}
