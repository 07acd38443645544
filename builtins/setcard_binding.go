package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/bitsh/bitsh/builtins/setcard"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

func init() {
	register(
		Builtin{Name: "card", Topic: "set", Fn: cardFn, Doc: `card(spec)
Returns the card number 0..80 of a SET card given as a string of four
digits 1..3 ("1123") or a sequence of four ints 1..3 ([1, 1, 2, 3]): the
card (x1, x2, x3, x4) is 27(x1-1) + 9(x2-1) + 3(x3-1) + (x4-1).
card("1111") == 0, card("3333") == 80.`},
		Builtin{Name: "card_str", Topic: "set", Fn: cardStr, Doc: `card_str(c)
Returns the four digits 1..3 of card c (an int 0..80) as a string; the
inverse of card. card_str(5) == "1123".`},
		Builtin{Name: "third", Topic: "set", Fn: thirdFn, Doc: `third(x, y)
Returns the card that makes a SET with the cards x and y: in each
coordinate, the value equal to both or different from both. Error if x == y.`},
		Builtin{Name: "is_set", Topic: "set", Fn: isSetFn, Doc: `is_set(x, y, z)
Reports whether the cards x, y, z are three distinct cards forming a SET
(every coordinate all equal or all different).`},
		Builtin{Name: "set_free", Topic: "set", Fn: setFreeFn, Doc: `set_free(cards)
Reports whether no three of the cards (an iterable of distinct cards 0..80)
form a SET.`},
		Builtin{Name: "set_canon", Topic: "set", Fn: setCanonFn, Doc: `set_canon(cards)
Returns the canonical form of a set of cards (an iterable of distinct cards
0..80) under the 31104 symmetries (permute the four coordinates and,
independently in each coordinate, the three values), as a struct with
cards (the least image in the order of Knuth's SETSET: sort each image ascending,
compare lexicographically; a sorted list), automorphisms (how many
symmetries fix the set) and orbit (31104 / automorphisms, the number of
sets isomorphic to it).`},
		Builtin{Name: "setless", Topic: "set", Fn: setlessFn, Doc: `setless(k_max=21, keep=0, progress=True)
Knuth's SETSET results for every size k = 0..k_max (0 <= k_max <= 81) as
a struct with total (total[k] = the exact number of SET-less k-sets of
cards, total[0] = 1), classes (classes[k] = the number of them up to the
31104 symmetries, that is of canonical k-sets) and solutions: when keep = k
(1 <= k <= k_max) the canonical SET-less k-sets in ascending order, each a
struct with cards and automorphisms, else []. Keeping more than 1,000,000
sets is an error: iterate set_classes(k) instead. The counts come from
Burnside's lemma over the symmetries; the kept sets from SETSET's
canonical search (k = 20: from the affine images of one 20-set), split
into thousands of subtrees run on every worker; keep = 10..17 exceeds
the limit and keep = 18, 19 walk nearly the whole tree (about half an hour
per core). On a terminal, unless progress=False, a run longer than a second
draws a progress bar on stderr: subtrees searched out of their total, and
the time since the call. A cancelled run fails with "setless: cancelled"
within milliseconds.`},
		Builtin{Name: "set_classes", Topic: "set", Fn: setClassesFn, Doc: `set_classes(k)
Returns a lazy iterable over the canonical SET-less k-sets (k >= 0) in
ascending order (the order of Knuth's SETSET), each a struct with cards
(sorted list) and automorphisms. The sets are streamed from a parallel
canonical search (thousands of subtrees on every worker, delivered in
order) as the loop asks for them, never kept; stopping the loop stops the
search, and a loop lasting more than a second draws a progress bar
(subtrees searched) on a terminal. len() and .count are classes[k];
list(), sorted() and the like refuse more than 1,000,000 sets (iterate
instead). For k = 20 the 80 sets come from the affine images of one
20-set; for k > 20 there are none. The tree grows fast: k <= 9 is seconds,
k = 12..19 can take hours. share(set_classes(k)) is a shard's part: many
subtrees of the search (rooted at the canonical k-sets themselves for
k <= 6, at the 6-sets for k = 7, at the 7-sets beyond; for k = 20, the 80
sets) dealt round-robin, itself a set_classes value in ascending order
whose len() counts its own sets: free for k <= 6 and k = 20, a search of
the part's subtrees (about 1/N of the whole search) the first time it is
asked for other k.`},
	)
}

// keepLimit is the most sets setless(keep=k) returns in a list.
const keepLimit = 1_000_000

func toCard(fn, name string, v starlark.Value) (setcard.Card, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s: got %s, want int (a card 0..80)", fn, name, v.Type())
	}
	x, ok := i.Int64()
	if !ok || x < 0 || x >= setcard.NumCards {
		return 0, fmt.Errorf("%s: %s = %s is not a card (0..80)", fn, name, Short(i))
	}
	return setcard.Card(x), nil
}

// toHand reads an iterable of distinct cards.
func toHand(fn, name string, v starlark.Value) (setcard.Hand, error) {
	it, ok := v.(starlark.Iterable)
	if !ok {
		return setcard.Hand{}, fmt.Errorf("%s: %s: got %s, want an iterable of cards", fn, name, v.Type())
	}
	iter := it.Iterate()
	defer iter.Done()
	var h setcard.Hand
	var x starlark.Value
	for n := 0; iter.Next(&x); n++ {
		if n >= setcard.NumCards {
			return h, fmt.Errorf("%s: %s: more than 81 cards", fn, name)
		}
		c, err := toCard(fn, fmt.Sprintf("%s[%d]", name, n), x)
		if err != nil {
			return h, err
		}
		if h.Has(c) {
			return h, fmt.Errorf("%s: %s: card %d appears twice", fn, name, c)
		}
		h = h.Add(c)
	}
	return h, nil
}

func cardList(h setcard.Hand) *starlark.List {
	cs := h.Cards()
	vs := make([]starlark.Value, len(cs))
	for i, c := range cs {
		vs[i] = starlark.MakeInt(int(c))
	}
	return starlark.NewList(vs)
}

func classStruct(h setcard.Hand, auts int) *starlarkstruct.Struct {
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"cards":         cardList(h),
		"automorphisms": starlark.MakeInt(auts),
	})
}

func cardFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var spec starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "spec", &spec); err != nil {
		return nil, err
	}
	var d [4]uint8
	switch s := spec.(type) {
	case starlark.String:
		if len(s) != 4 {
			return nil, fmt.Errorf("%s: spec = %s: want 4 digits 1..3", b.Name(), s)
		}
		for i := range d {
			if s[i] < '1' || s[i] > '3' {
				return nil, fmt.Errorf("%s: spec = %s: digit %q at position %d is not 1, 2 or 3", b.Name(), s, s[i], i+1)
			}
			d[i] = s[i] - '1'
		}
	case starlark.Indexable:
		if _, isStr := spec.(starlark.Bytes); isStr || s.Len() != 4 {
			return nil, fmt.Errorf("%s: spec = %s: want 4 values 1..3", b.Name(), spec)
		}
		for i := range d {
			var v int64
			x, ok := s.Index(i).(starlark.Int)
			if ok {
				v, ok = x.Int64()
			}
			if !ok || v < 1 || v > 3 {
				return nil, fmt.Errorf("%s: spec = %s: value %s at position %d is not 1, 2 or 3", b.Name(), spec, s.Index(i), i+1)
			}
			d[i] = uint8(v - 1)
		}
	default:
		return nil, fmt.Errorf("%s: spec: got %s, want string or sequence of 4 values 1..3", b.Name(), spec.Type())
	}
	return starlark.MakeInt(int(setcard.FromDigits(d))), nil
}

func cardStr(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "c", &v); err != nil {
		return nil, err
	}
	c, err := toCard(b.Name(), "c", v)
	if err != nil {
		return nil, err
	}
	d := c.Digits()
	return starlark.String([]byte{'1' + d[0], '1' + d[1], '1' + d[2], '1' + d[3]}), nil
}

func unpackCards(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple, names ...string) ([]setcard.Card, error) {
	raw := make([]starlark.Value, len(names))
	pairs := make([]any, 0, 2*len(names))
	for i, n := range names {
		pairs = append(pairs, n, &raw[i])
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	out := make([]setcard.Card, len(names))
	for i, v := range raw {
		c, err := toCard(b.Name(), names[i], v)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func thirdFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	cs, err := unpackCards(b, args, kwargs, "x", "y")
	if err != nil {
		return nil, err
	}
	if cs[0] == cs[1] {
		return nil, fmt.Errorf("%s: x = y = %d: a SET needs two different cards", b.Name(), cs[0])
	}
	return starlark.MakeInt(int(setcard.Third(cs[0], cs[1]))), nil
}

func isSetFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	cs, err := unpackCards(b, args, kwargs, "x", "y", "z")
	if err != nil {
		return nil, err
	}
	return starlark.Bool(setcard.IsSet(cs[0], cs[1], cs[2])), nil
}

func setFreeFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cards", &v); err != nil {
		return nil, err
	}
	h, err := toHand(b.Name(), "cards", v)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(h.SetFree()), nil
}

func setCanonFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "cards", &v); err != nil {
		return nil, err
	}
	h, err := toHand(b.Name(), "cards", v)
	if err != nil {
		return nil, err
	}
	c, auts := setcard.Canon(h)
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"cards":         cardList(c),
		"automorphisms": starlark.MakeInt(auts),
		"orbit":         starlark.MakeInt(setcard.NumSymmetries / auts),
	}), nil
}

func intArg(fn, name string, v starlark.Value, lo, hi int) (int, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s: got %s, want int", fn, name, v.Type())
	}
	x, ok := i.Int64()
	if !ok || x < int64(lo) {
		if ok && x < 0 && lo == 0 {
			return 0, fmt.Errorf("%s: %s = %s is negative", fn, name, Short(i))
		}
		return 0, fmt.Errorf("%s: %s = %s is out of range %d..%d", fn, name, Short(i), lo, hi)
	}
	if x > int64(hi) {
		return 0, fmt.Errorf("%s: %s = %s is out of range %d..%d", fn, name, Short(i), lo, hi)
	}
	return int(x), nil
}

// setcardError is a kernel error as a user sees it: the builtin's name
// and what went wrong, never the kernel package's name (docs/repl.md); the
// kernel's error stays reachable with errors.Is and errors.As.
type setcardError struct {
	msg string
	err error
}

func (e *setcardError) Error() string { return e.msg }
func (e *setcardError) Unwrap() error { return e.err }

// kernelError reports err, from a setcard kernel run under ctx, as an error
// of the builtin fn: "fn: cancelled" when ctx is done (errors.Is finds
// the context's cause), otherwise the kernel's message under fn's name.
func kernelError(fn string, ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return &setcardError{msg: fn + ": cancelled", err: context.Cause(ctx)}
	}
	var se *setcardError
	if errors.As(err, &se) {
		return err
	}
	return &setcardError{msg: fn + ": " + strings.TrimPrefix(err.Error(), "setcard: "), err: err}
}

// setlessCounts returns total[k] and classes[k] for k = 0..kmax, from
// setcount's counting kernels (Burnside's lemma; builtins/setcard/count.go).
// The whole table (k = 0..21) is remembered once computed: it is a fixed
// fact.
func setlessCounts(ctx context.Context, kmax, workers int, progress func(done, total int64)) (totals, classes []uint64, err error) {
	const full = setcard.MaxSetFree + 1
	countsMu.Lock()
	t, c := countsTotals, countsClasses
	countsMu.Unlock()
	if t == nil {
		t, c, err = setcard.Classes(ctx, max(kmax, full), workers, progress)
		if err != nil {
			return nil, nil, err
		}
		if t[full] != 0 {
			return nil, nil, fmt.Errorf("internal error: total[%d] = %d", full, t[full])
		}
		countsMu.Lock()
		countsTotals, countsClasses = t[:full+1], c[:full+1]
		countsMu.Unlock()
	}
	totals, classes = make([]uint64, kmax+1), make([]uint64, kmax+1)
	copy(totals, t) // beyond 21 cards: 0, as total[21] = 0 (counted)
	copy(classes, c)
	return totals, classes, nil
}

// searchCountMax is the largest k for which classCount counts by searching
// (tens of milliseconds) rather than by Burnside's lemma up to k (about
// 150 ms, whatever k).
const searchCountMax = 6

// classCount returns classes[k] alone: from the remembered table when
// setless has computed it, else by the cheapest exact way for this k.
// set_classes(k) needs nothing more for len().
func classCount(ctx context.Context, k, workers int) (uint64, error) {
	if k > setcard.MaxSetFree {
		return 0, nil
	}
	countsMu.Lock()
	if countsClasses != nil {
		defer countsMu.Unlock()
		return countsClasses[k], nil
	}
	n, ok := countsOne[k]
	countsMu.Unlock()
	if ok {
		return n, nil
	}
	if k <= searchCountMax {
		var err error
		if n, err = setcard.CountPart(ctx, k, setcard.Part{}, workers, nil); err != nil {
			return 0, err
		}
	} else {
		_, c, err := setcard.Classes(ctx, k, workers, nil)
		if err != nil {
			return 0, err
		}
		n = c[k]
	}
	countsMu.Lock()
	countsOne[k] = n
	countsMu.Unlock()
	return n, nil
}

var (
	countsMu                    sync.Mutex
	countsTotals, countsClasses []uint64           // set once, read-only afterwards
	countsOne                   = map[int]uint64{} // classes[k] computed alone; facts, never changed
)

func uintList(xs []uint64) *starlark.List {
	vs := make([]starlark.Value, len(xs))
	for i, x := range xs {
		vs[i] = starlark.MakeUint64(x)
	}
	return starlark.NewList(vs)
}

// searchClasses calls fn for the canonical SET-less k-sets of the part in
// ascending order: the canonical search, or Caps20 for k = 20 (whose 80
// sets are dealt to the parts one by one, round-robin).
func searchClasses(ctx context.Context, k int, part setcard.Part, workers int, progress func(done, total int64), fn func(h setcard.Hand, auts int) error) error {
	if k == setcard.MaxSetFree {
		cl, err := setcard.Caps20(ctx)
		if err != nil {
			return err
		}
		for i, c := range cl {
			if part.Count > 1 && i%part.Count != part.Index {
				continue
			}
			if err := fn(c.Cards, c.Automorphisms); err != nil {
				return err
			}
		}
		if progress != nil {
			progress(setcard.ProgressUnit, setcard.ProgressUnit)
		}
		return nil
	}
	return setcard.SearchPart(ctx, k, part, workers, progress, fn)
}

func setlessFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	start := time.Now()
	var kmaxV, keepV starlark.Value = starlark.MakeInt(21), starlark.MakeInt(0)
	progress := true
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "k_max?", &kmaxV, "keep?", &keepV, "progress?", &progress); err != nil {
		return nil, err
	}
	kmax, err := intArg(b.Name(), "k_max", kmaxV, 0, setcard.NumCards)
	if err != nil {
		return nil, err
	}
	keep, err := intArg(b.Name(), "keep", keepV, 0, setcard.NumCards)
	if err != nil {
		return nil, err
	}
	if keep > kmax {
		return nil, fmt.Errorf("%s: keep = %d is beyond k_max = %d", b.Name(), keep, kmax)
	}
	ctx := Context(thread)
	workers := Workers(thread)
	update, finish := progressSince(thread, progress, "setless: counting", start, time.Second)
	totals, classes, err := setlessCounts(ctx, kmax, workers, update)
	finish()
	if err != nil {
		return nil, kernelError(b.Name(), ctx, err)
	}
	sols := []starlark.Value{}
	if keep > 0 {
		if n := classes[keep]; n > keepLimit {
			return nil, fmt.Errorf("%s: keep = %d would keep %d sets, more than %d: iterate set_classes(%d) instead", b.Name(), keep, n, keepLimit, keep)
		}
		update, finish := progressUnits(thread, progress, fmt.Sprintf("setless: %d-sets", keep), start, time.Second, setcard.ProgressUnit)
		var hs []setcard.Hand
		var auts []int
		err := searchClasses(ctx, keep, setcard.Part{}, workers, update, func(h setcard.Hand, a int) error {
			hs = append(hs, h)
			auts = append(auts, a)
			return nil
		})
		finish()
		if err != nil {
			return nil, kernelError(b.Name(), ctx, err)
		}
		if uint64(len(hs)) != classes[keep] {
			return nil, fmt.Errorf("%s: internal error: the search found %d canonical %d-sets, the count says %d", b.Name(), len(hs), keep, classes[keep])
		}
		sols = make([]starlark.Value, len(hs))
		for i, h := range hs {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, kernelError(b.Name(), ctx, ctx.Err())
			}
			sols[i] = classStruct(h, auts[i])
		}
	}
	return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
		"total":     uintList(totals),
		"classes":   uintList(classes),
		"solutions": starlark.NewList(sols),
	}), nil
}

func setClassesFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var kV starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "k", &kV); err != nil {
		return nil, err
	}
	k, err := intArg(b.Name(), "k", kV, 0, setcard.NumCards)
	if err != nil {
		return nil, err
	}
	ctx := Context(thread)
	workers := Workers(thread)
	n, err := classCount(ctx, k, workers)
	if err != nil {
		return nil, kernelError(b.Name(), ctx, err)
	}
	return &setClasses{k: k, origin: OriginOf(thread), workers: workers, cnt: &classCounter{n: n, known: true}}, nil
}

// setClasses is the lazy iterable set_classes(k) returns, or one shard's
// part of it (share).
// Like subsets, it is not a starlark.Sequence (list() would preallocate
// classes[k] slots, up to 135 million); bitsh's len reports its length.
type setClasses struct {
	k       int
	part    setcard.Part // the zero Part: the whole
	origin  Origin       // the context polled is the iterating run's
	workers int
	cnt     *classCounter
}

// A classCounter holds the number of sets of a set_classes value, known
// at once for the whole (classes[k]) and counted on first need for a part.
type classCounter struct {
	mu    sync.Mutex
	known bool
	n     uint64
}

var (
	_ starlark.Iterable = (*setClasses)(nil)
	_ starlark.HasAttrs = (*setClasses)(nil)
	_ lazyCounter       = (*setClasses)(nil)
	_ collectLimiter    = (*setClasses)(nil)
)

func (s *setClasses) String() string {
	if s.part.Count > 1 {
		return fmt.Sprintf("set_classes(%d) part %d/%d", s.k, s.part.Index, s.part.Count)
	}
	return fmt.Sprintf("set_classes(%d)", s.k)
}
func (s *setClasses) Type() string          { return "set_classes" }
func (s *setClasses) Freeze()               {}
func (s *setClasses) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: set_classes") }

// Truth reports whether there is a set: for a part of a large k this
// counts its sets first (see count).
func (s *setClasses) Truth() starlark.Bool {
	n, _ := s.count()
	return n > 0
}

// count returns the number of sets. A part counts its subtrees' sets the
// first time it is asked, on every worker (cheap when ShardDepth(k) = k,
// k <= 6, where each subtree is one set; a fraction of the search itself
// beyond); the result is remembered.
func (s *setClasses) count() (uint64, error) {
	c := s.cnt
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known {
		return c.n, nil
	}
	ctx := s.origin.Context()
	var n uint64
	var err error
	if s.k == setcard.MaxSetFree {
		err = searchClasses(ctx, s.k, s.part, s.workers, nil, func(setcard.Hand, int) error { n++; return nil })
	} else {
		n, err = setcard.CountPart(ctx, s.k, s.part, s.workers, nil)
	}
	if err != nil {
		return 0, kernelError("set_classes", ctx, err)
	}
	c.n, c.known = n, true
	return n, nil
}

// lazyCount serves len(). A count interrupted by cancellation reports 0
// and cancels the running thread, which stops at its next step, so the 0
// is never seen by a script that goes on.
func (s *setClasses) lazyCount() *big.Int {
	n, err := s.count()
	if err != nil {
		if t := s.origin.Thread(); t != nil {
			t.Cancel(err.Error())
		}
	}
	return new(big.Int).SetUint64(n)
}

// collectLimit is setless's keep limit: a kept set costs about 350 bytes,
// so a million stay far under 2 GiB (list(set_classes(9)), 2.5 million
// sets, peaks at 860 MB).
func (s *setClasses) collectLimit() int64 { return keepLimit }

// Attr serves .count, the number of sets (classes[k] for the whole).
func (s *setClasses) Attr(name string) (starlark.Value, error) {
	if name == "count" {
		n, err := s.count()
		if err != nil {
			return nil, err
		}
		return starlark.MakeUint64(n), nil
	}
	return nil, nil
}

// AttrNames lists the attributes of set_classes values.
func (s *setClasses) AttrNames() []string { return []string{"count"} }

// share returns shard index's part of count (docs/cluster.md): many subtrees of
// the canonical search dealt round-robin (setcard.Part), a set_classes
// value of the same k whose sets come in ascending order. With one shard
// the part is s itself.
func (s *setClasses) share(index, count int) (starlark.Value, error) {
	if count < 1 || index < 0 || index >= count {
		return nil, fmt.Errorf("share: shard %d of %d is not 0 <= index < count", index, count)
	}
	if count == 1 {
		return s, nil
	}
	if s.part.Count > 1 {
		return nil, fmt.Errorf("share: %s is already a shard's part", s)
	}
	return &setClasses{k: s.k, part: setcard.Part{Index: index, Count: count}, origin: s.origin, workers: s.workers, cnt: &classCounter{}}, nil
}

type classItem struct {
	h    setcard.Hand
	auts int
}

// Iterate starts a producer goroutine that streams the classes through a
// small buffer; Done stops it and waits for it to exit. A search that
// lasts more than a second draws a progress bar (subtrees searched) on a
// terminal, cleared when the loop ends.
func (s *setClasses) Iterate() starlark.Iterator {
	ctx, cancel := context.WithCancel(s.origin.Context())
	var update func(done, total int64)
	finish := func() {}
	if t := s.origin.Thread(); t != nil {
		update, finish = progressUnits(t, true, s.String(), time.Now(), time.Second, setcard.ProgressUnit)
	}
	it := &classIterator{lazyIter: startLazy(s.origin), ch: make(chan classItem, 256), cancel: cancel, done: make(chan struct{}), finish: finish}
	go func() {
		defer close(it.done)
		defer close(it.ch)
		it.err = searchClasses(ctx, s.k, s.part, s.workers, update, func(h setcard.Hand, auts int) error {
			select {
			case it.ch <- classItem{h, auts}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	return it
}

type classIterator struct {
	lazyIter
	ch     chan classItem
	cancel context.CancelFunc
	done   chan struct{}
	finish func() // removes the progress bar
	err    error  // set by the producer before it closes ch
}

func (it *classIterator) Next(p *starlark.Value) bool {
	c, ok := <-it.ch
	if !ok {
		it.finish()
		it.halted() // the search may have stopped for a cancellation
		return false
	}
	*p = classStruct(c.h, c.auts)
	return true
}

func (it *classIterator) Done() {
	it.cancel()
	for range it.ch { // unblock the producer
	}
	<-it.done
	it.finish()
}
