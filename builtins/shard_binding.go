package builtins

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"runtime"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/builtins/shard"
	"github.com/bitsh/bitsh/builtins/subset"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

func init() {
	register(
		Builtin{Name: "shard", Topic: "shards", Fn: shardFn, Doc: `shard()
Returns the running shard as a struct (index, count): shard().index is in
0..shard().count-1. It is (0, 1) unless the command line says otherwise
(bitsh -shard I/N, bitsh -j N). See docs/cluster.md.`},
		Builtin{Name: "share", Topic: "shards", Fn: shareFn, Doc: `share(space)
Returns this shard's part of space: a subsets, debruijn_sequences or
set_classes value, a range, a words array, a list or a tuple. The part is of
the same kind (len, .count, indexing, chunks work on it); the parts of
shards 0..count-1 are disjoint, cover space exactly and are balanced by work:
contiguous index ranges whose sizes differ by at most one (set_classes:
search subtrees dealt round-robin). With one shard, share(space) is space.`},
		Builtin{Name: "emit", Topic: "shards", Fn: emitFn, Doc: `emit(key, value, op="sum")
Records value under the string key. The results of all shards combine by op:
"sum" (ints, exact), "min", "max" (values of one kind: ints, strings, bools
or lists), "append" (a list of the values, in shard order, then emission
order) or "union" (the set of distinct values, printed sorted). A value is
None, a bool, an int, a string, a list or tuple of values, or a dict with
string keys. A key keeps its first op: another op is an error. Results are
printed as "key = value" lines when the script ends, or written as JSON
with -o; bitsh merge combines the parts of a cluster job.`},
	)
}

// A sharer is a space that cuts itself into the parts of share():
// part index of count, disjoint from the others, covering it together.
// Lazy values implement it (set_classes deals search subtrees).
type sharer interface {
	share(index, count int) (starlark.Value, error)
}

// Shard returns the shard thread runs: (0, 1) unless its Env says.
func Shard(thread *starlark.Thread) (index, count int) {
	e := envOf(thread)
	if e == nil || e.ShardCount < 1 {
		return 0, 1
	}
	return e.ShardIndex, e.ShardCount
}

func shardFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	i, n := Shard(thread)
	return starlarkstruct.FromStringDict(starlark.String("shard"), starlark.StringDict{
		"index": starlark.MakeInt(i),
		"count": starlark.MakeInt(n),
	}), nil
}

func shareFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var space starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "space", &space); err != nil {
		return nil, err
	}
	i, n := Shard(thread)
	v, err := sharePart(space, i, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return v, nil
}

// sharePart returns part index of count of space; with one shard, space.
func sharePart(space starlark.Value, index, count int) (starlark.Value, error) {
	var n int // the length of a space cut here
	switch s := space.(type) {
	case sharer:
		if count == 1 {
			return space, nil
		}
		return s.share(index, count)
	case *Words:
		n = s.Len()
	case starlark.Sliceable:
		switch space.Type() {
		case "range", "list", "tuple":
			n = s.Len()
		default:
			return nil, spaceError(space)
		}
	default:
		return nil, spaceError(space)
	}
	if count == 1 {
		return space, nil
	}
	lo, hi := shard.Range64(uint64(n), index, count)
	if w, ok := space.(*Words); ok {
		return NewWords(w.Uint64s()[lo:hi]), nil
	}
	return space.(starlark.Sliceable).Slice(int(lo), int(hi), 1), nil
}

func spaceError(space starlark.Value) error {
	return fmt.Errorf("space: got %s, want subsets, debruijn_sequences, set_classes, range, words, list or tuple", space.Type())
}

func emitFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var (
		key   string
		value starlark.Value
		opStr = "sum"
	)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "key", &key, "value", &value, "op?", &opStr); err != nil {
		return nil, err
	}
	if err := emitValue(thread, b.Name(), key, opStr, value); err != nil {
		return nil, err
	}
	return starlark.None, nil
}

// emitValue records value under key by op, as emit does; an emit a rerun
// of code that failed reproduces is skipped (native_print.go).
func emitValue(thread *starlark.Thread, name, key, opStr string, value starlark.Value) error {
	op, err := shard.ParseOp(opStr)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	v, err := toJSONValue(value, 0)
	if err != nil {
		return fmt.Errorf("%s: value: %w", name, err)
	}
	var r *shard.Results
	rp := replayOf(thread)
	if e := envOf(thread); e != nil {
		r = e.Results
	}
	if r == nil {
		return fmt.Errorf("%s: no result sink: run the script with bitsh (or interp.New), which collects results", name)
	}
	if rp != nil && rp.pos < rp.lines && rp.skipHash(emitHash(key, opStr, value)) {
		return nil
	}
	if err := r.Emit(key, op, v); err != nil {
		return fmt.Errorf("%s: key = %q: %w", name, key, err)
	}
	if rp != nil && rp.runs > 0 {
		rp.wroteHash(emitHash(key, opStr, value))
	}
	return nil
}

// toJSONValue converts a Starlark value to the shard package's model.
func toJSONValue(v starlark.Value, depth int) (any, error) {
	if depth > 100 {
		return nil, errors.New("nested more than 100 deep")
	}
	switch v := v.(type) {
	case starlark.NoneType:
		return nil, nil
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		return v.BigInt(), nil
	case starlark.String:
		return string(v), nil
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		out := make([]any, seq.Len())
		for i := range out {
			x, err := toJSONValue(seq.Index(i), depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case *starlark.Dict:
		o := &shard.Object{}
		for _, kv := range v.Items() {
			k, ok := kv[0].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("dict key %s is a %s, want string", kv[0], kv[0].Type())
			}
			x, err := toJSONValue(kv[1], depth+1)
			if err != nil {
				return nil, err
			}
			o.Keys = append(o.Keys, string(k))
			o.Values = append(o.Values, x)
		}
		return o, nil
	}
	return nil, fmt.Errorf("%s is not JSON-representable (want None, bool, int, string, list, tuple or dict with string keys)", v.Type())
}

// ---- parts of subsets ----

func (s *subsetsValue) share(index, count int) (starlark.Value, error) {
	lo, hi := shard.Range(s.lazyCount(), index, count)
	n := new(big.Int).Sub(hi, lo)
	if !n.IsUint64() {
		return s, nil // one shard: 2^64 items
	}
	return &subsetsPart{d: s.d, k: s.k, lo: lo.Uint64(), n: n.Uint64(), origin: s.origin}, nil
}

// subsetsPart is the part of subsets(d, k) of indices [lo, lo+n): a
// shard's share. It behaves as the subsets value it is part of, indexed
// from 0.
type subsetsPart struct {
	d      uint64
	k      int
	lo, n  uint64
	origin Origin
}

var (
	_ starlark.Iterable   = (*subsetsPart)(nil)
	_ starlark.Mapping    = (*subsetsPart)(nil)
	_ starlark.Container  = (*subsetsPart)(nil)
	_ starlark.HasAttrs   = (*subsetsPart)(nil)
	_ starlark.Comparable = (*subsetsPart)(nil)
	_ lazyCounter         = (*subsetsPart)(nil)
	_ sharer              = (*subsetsPart)(nil)
)

func (s *subsetsPart) whole() *subsetsValue { return &subsetsValue{d: s.d, k: s.k, origin: s.origin} }

func (s *subsetsPart) String() string {
	return fmt.Sprintf("%s[%d:%d]", s.whole().String(), s.lo, s.lo+s.n)
}
func (s *subsetsPart) Type() string         { return "subsets" }
func (s *subsetsPart) Freeze()              {}
func (s *subsetsPart) Truth() starlark.Bool { return s.n > 0 }
func (s *subsetsPart) Hash() (uint32, error) {
	h, _ := s.whole().Hash()
	return h ^ uint32(s.lo)*0x85ebca6b ^ uint32(s.n)*0xc2b2ae35, nil
}
func (s *subsetsPart) lazyCount() *big.Int { return new(big.Int).SetUint64(s.n) }

func (s *subsetsPart) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	t, ok := y.(*subsetsPart)
	eq := ok && s.d == t.d && s.k == t.k && s.lo == t.lo && s.n == t.n
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", s.Type(), op, y.Type())
}

func (s *subsetsPart) Attr(name string) (starlark.Value, error) {
	if name == "count" {
		return starlark.MakeUint64(s.n), nil
	}
	return nil, nil
}

func (s *subsetsPart) AttrNames() []string { return []string{"count"} }

// at returns the subset of rank i of the whole value.
func (s *subsetsPart) at(i uint64) uint64 {
	if s.k < 0 {
		return subset.Deposit(i, s.d)
	}
	return subset.UnrankK(s.d, s.k, i)
}

func (s *subsetsPart) Get(key starlark.Value) (starlark.Value, bool, error) {
	i, err := indexArg(s.Type(), key, s.lazyCount())
	if err != nil {
		return nil, false, err
	}
	return wordValue(s.at(s.lo + i)), true, nil
}

func (s *subsetsPart) Has(x starlark.Value) (bool, error) {
	w, ok := memberWord(x)
	if !ok || w&^s.d != 0 {
		return false, nil
	}
	var r uint64
	if s.k < 0 {
		r = subset.Extract(w, s.d)
	} else {
		if bits.OnesCount64(w) != s.k {
			return false, nil
		}
		r = subset.RankK(w, s.d)
	}
	return r-s.lo < s.n, nil
}

func (s *subsetsPart) Iterate() starlark.Iterator {
	it := &subsetsPartIter{lazyIter: startLazy(s.origin), d: s.d, k: s.k, left: s.n}
	if s.n > 0 {
		it.x = s.at(s.lo)
	}
	if s.n > 0 && s.d > math.MaxInt32 && runtime.GOMAXPROCS(0) > 1 {
		// As for whole subsets values: big-int items are made a batch
		// ahead on another core.
		return newPrefetch(it.lazyIter, s.origin.Context(), func(ctx context.Context, emit func(uint64) bool) error {
			for n := uint64(1); it.left > 0; n++ {
				if n&4095 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				if !emit(it.x) {
					return nil
				}
				it.step()
			}
			return nil
		}, wordValue)
	}
	return it
}

func (s *subsetsPart) share(index, count int) (starlark.Value, error) {
	lo, hi := shard.Range64(s.n, index, count)
	return &subsetsPart{d: s.d, k: s.k, lo: s.lo + lo, n: hi - lo, origin: s.origin}, nil
}

type subsetsPartIter struct {
	lazyIter
	x, d, left uint64
	k          int
}

func (it *subsetsPartIter) Next(p *starlark.Value) bool {
	if it.left == 0 || it.stop || !it.tick() {
		return false
	}
	*p = wordValue(it.x)
	it.step()
	return true
}

// step moves past the current item.
func (it *subsetsPartIter) step() {
	it.left--
	if it.left > 0 {
		if it.k < 0 {
			it.x = subset.Next(it.x, it.d)
		} else {
			it.x, _ = subset.Snoob(it.x, it.d)
		}
	}
}

func (it *subsetsPartIter) Done() {}

// ---- parts of debruijn_sequences ----

func (s *debruijnSeqs) share(index, count int) (starlark.Value, error) {
	lo, hi := shard.Range64(debruijn.Count(s.width), index, count)
	return newDebruijnPart(s.width, lo, hi-lo, s.origin), nil
}

func newDebruijnPart(width int, lo, n uint64, o Origin) *debruijnPart {
	p := &debruijnPart{width: width, lo: lo, n: n, origin: o}
	if n > 0 {
		p.first, _ = debruijn.Nth(lo+1, width)
		p.last, _ = debruijn.Nth(lo+n, width)
	}
	return p
}

// debruijnPart is the part of debruijn_sequences(width) of indices
// [lo, lo+n), whose magics are first..last (ascending).
type debruijnPart struct {
	width       int
	lo, n       uint64
	first, last uint64
	origin      Origin
}

var (
	_ starlark.Iterable   = (*debruijnPart)(nil)
	_ starlark.Mapping    = (*debruijnPart)(nil)
	_ starlark.Container  = (*debruijnPart)(nil)
	_ starlark.HasAttrs   = (*debruijnPart)(nil)
	_ starlark.Comparable = (*debruijnPart)(nil)
	_ lazyCounter         = (*debruijnPart)(nil)
	_ sharer              = (*debruijnPart)(nil)
)

func (s *debruijnPart) String() string {
	return fmt.Sprintf("debruijn_sequences(%d)[%d:%d]", s.width, s.lo, s.lo+s.n)
}
func (s *debruijnPart) Type() string         { return "debruijn_sequences" }
func (s *debruijnPart) Freeze()              {}
func (s *debruijnPart) Truth() starlark.Bool { return s.n > 0 }
func (s *debruijnPart) Hash() (uint32, error) {
	return uint32(s.width)*0x9e3779b9 ^ uint32(s.lo)*0x85ebca6b ^ uint32(s.n)*0xc2b2ae35, nil
}
func (s *debruijnPart) lazyCount() *big.Int { return new(big.Int).SetUint64(s.n) }

func (s *debruijnPart) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	t, ok := y.(*debruijnPart)
	eq := ok && s.width == t.width && s.lo == t.lo && s.n == t.n
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", s.Type(), op, y.Type())
}

func (s *debruijnPart) Attr(name string) (starlark.Value, error) {
	if name == "count" {
		return starlark.MakeUint64(s.n), nil
	}
	return nil, nil
}

func (s *debruijnPart) AttrNames() []string { return []string{"count"} }

func (s *debruijnPart) Get(key starlark.Value) (starlark.Value, bool, error) {
	i, err := indexArg(s.Type(), key, s.lazyCount())
	if err != nil {
		return nil, false, err
	}
	m, _ := debruijn.Nth(s.lo+i+1, s.width)
	return wordValue(m), true, nil
}

func (s *debruijnPart) Has(x starlark.Value) (bool, error) {
	m, ok := memberWord(x)
	if !ok || s.n == 0 || m < s.first || m > s.last {
		return false, nil
	}
	return debruijn.IsMagic(m, s.width), nil
}

func (s *debruijnPart) share(index, count int) (starlark.Value, error) {
	lo, hi := shard.Range64(s.n, index, count)
	return newDebruijnPart(s.width, s.lo+lo, hi-lo, s.origin), nil
}

func (s *debruijnPart) Iterate() starlark.Iterator {
	it, _ := debruijn.NewIter(s.width)
	pi := &debruijnPartIter{lazyIter: startLazy(s.origin), it: it, left: s.n}
	if s.n > 0 {
		// Seek leaves the iterator on first: Next yields it before advancing.
		pi.pending = it.Seek(s.first)
	}
	if s.width == 64 && s.n > 0 && runtime.GOMAXPROCS(0) > 1 {
		// As for the whole value: the kernel runs a batch ahead.
		return newPrefetch(pi.lazyIter, s.origin.Context(), func(ctx context.Context, emit func(uint64) bool) error {
			for n := 1; pi.left > 0; n++ {
				if n&4095 == 0 && ctx.Err() != nil {
					return ctx.Err()
				}
				m, ok := pi.next()
				if !ok || !emit(m) {
					return nil
				}
			}
			return nil
		}, wordValue)
	}
	return pi
}

type debruijnPartIter struct {
	lazyIter
	it      *debruijn.Iter
	left    uint64
	pending bool // the iterator's current value is not yet yielded
}

func (it *debruijnPartIter) Next(p *starlark.Value) bool {
	if it.left == 0 || it.stop || !it.tick() {
		return false
	}
	m, ok := it.next()
	if ok {
		*p = wordValue(m)
	}
	return ok
}

// next returns the part's next magic (left > 0).
func (it *debruijnPartIter) next() (uint64, bool) {
	if it.pending {
		it.pending = false
	} else if !it.it.Next() {
		return 0, false
	}
	it.left--
	return it.it.Value(), true
}

func (it *debruijnPartIter) Done() {}
