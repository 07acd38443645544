package builtins

import (
	"context"
	"fmt"
	"github.com/bitsh/bitsh/builtins/rng"
	"math"
	"math/big"

	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/builtins/words"
	"go.starlark.net/starlark"
)

func init() {
	register(
		Builtin{Name: "words", Topic: "words", Fn: wordsFn, Doc: `words(src)
Returns an immutable array of 64-bit words (type "words") holding the items
of src: a list or tuple of words, a range, a lazy value (subsets,
debruijn_sequences, ...) or another array. Negative ints are two's
complement, as everywhere; more than 134217728 (2^27) words is an error:
iterate a bigger source with chunks. Lazy subsets are written by the
native carry-rippler or snoob, never as Starlark ints.
An array a supports len(a), a[i], slices a[i:j:k], for loops (ints),
x in a, a == b (same words), truth (non-empty) and repr. Operators work
elementwise on two arrays of the same length or on an array and a word on
either side: + - * & | ^ << >> // % (results mod 2^64; a shift by 64 or
more gives 0; // and % by a zero element are errors naming the position),
~a and -a. An int can only be the right operand of << and >>.
Methods: a.eq(x) a.ne(x) a.lt(x) a.le(x) a.gt(x) a.ge(x) (arrays of 0 and
1; x a word or an array), a.sum() (exact), a.min(), a.max(), a.count()
(non-zero elements), a.any(), a.all(), a.filter(mask) (elements where the
array mask is non-zero), a.unique() (sorted, distinct), a.sort(),
a.histogram() (dict value -> count, ascending; error beyond 16777216
distinct values), a.index(x) (first position; error if absent), a.tolist().
An operation on an n-word array allocates at most one n-word result. The
operations that cannot fail (+ - * & | ^ << >>, ~, unary -, the
comparisons, popcount, parity, lsb, gray, gray_inverse) are deferred on
arrays of up to 2^21 words: a chain of them is
computed in one pass, 256 words at a time, when its words are first
needed, and a reduction of it (sum min max count any all) never makes the
array. See docs/words.md.`},
		Builtin{Name: "chunks", Topic: "words", Fn: chunksFn, Doc: `chunks(src, size=1048576)
Returns a lazy iterable over the items of src (a lazy value such as
subsets or debruijn_sequences, a range, a list or tuple, or an array) as
successive arrays of at most size words, in order; only the chunk being
made is held. The loop
    for w in chunks(subsets(d)): n += popcount(w & m).eq(3).count()
runs the interpreter once per million subsets instead of once per subset.
size must be in 1..134217728. Chunks of an array share its words; chunks
of subsets and ranges are deferred arrays, computed where they are used.`},
		Builtin{Name: "random_words", Topic: "words", Fn: randomWordsFn, Doc: `random_words(n, seed=0, sparse=1)
Returns an array of n pseudo-random words from xoshiro256** 1.0 (Blackman
and Vigna) whose state is the first four outputs of splitmix64 started at
seed (a word): the same seed gives the same words on every machine. With
sparse=k (1..64) each word is the AND of k consecutive draws, so each bit
is set with probability 2^-k, as magic-number searches like (the stream of
find_magic). n is at most 134217728.`},
		Builtin{Name: "hash_ok", Topic: "words", Fn: hashOKFn, Doc: `hash_ok(keys, magic, bits, values=None)
Reports whether the multiply-shift hash h(k) = (k * magic mod 2^64) >>
(64 - bits) separates the keys (an array, list, tuple, range or lazy value
of words): True when distinct keys have distinct hashes or, with values
(as many as keys), when keys that share a hash always have equal values,
the "constructive collisions" of magic bitboards. It stops at the first
collision. bits is in 1..64. Every 64-bit De Bruijn magic m passes
hash_ok(words([1 << i for i in range(64)]), m, 6).`},
		Builtin{Name: "find_magic", Topic: "words", Fn: findMagicFn, Doc: `find_magic(keys, bits, values=None, seed=0, tries=100000000, sparse=3)
Returns the first word of random_words' stream for seed and sparse (the
words random_words(tries, seed, sparse) would hold, in order) for which
hash_ok(keys, m, bits, values) holds, or None after tries candidates. Each
candidate stops at its first collision. Cancellable (Ctrl-C, -timeout); a
progress bar appears on a terminal after a second.`},
	)
}

// ---- sources of words ----

// A wordSource yields the words of a script's value in order, a slice at
// a time.
type wordSource interface {
	// fill writes the next words into dst and returns how many: fewer
	// than len(dst) only at the end.
	fill(ctx context.Context, dst []uint64) (int, error)
}

// sourceOf returns the source of the words of v and their number, or a
// nil count when unknown until iterated. Errors name the builtin fn and
// the argument arg.
func sourceOf(fn, arg string, v starlark.Value) (src wordSource, count *big.Int, err error) {
	switch v := v.(type) {
	case *Words:
		return &sliceSource{w: v.words()}, big.NewInt(int64(v.n)), nil
	case *subsetsValue:
		return &subsetSource{f: words.NewSubsetFiller(v.d, v.k)}, v.lazyCount(), nil
	case *debruijnSeqs:
		it, err := debruijn.NewIter(v.width)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", fn, err)
		}
		return &debruijnSource{it: it}, v.lazyCount(), nil
	case starlark.Indexable:
		n := v.Len()
		if v.Type() == "range" && n > 0 {
			// Ranges hold Go ints: compute the items instead of boxing them.
			s := &rangeSource{n: n}
			first, _ := v.Index(0).(starlark.Int).Int64()
			step := int64(1)
			if n > 1 {
				second, _ := v.Index(1).(starlark.Int).Int64()
				step = second - first
			}
			s.first, s.step = first, step
			return s, big.NewInt(int64(n)), nil
		}
		return &indexSource{fn: fn, arg: arg, v: v, n: n}, big.NewInt(int64(n)), nil
	case starlark.Iterable:
		var count *big.Int
		if lc, ok := v.(lazyCounter); ok {
			count = lc.lazyCount()
		}
		return &iterSource{fn: fn, arg: arg, it: v.Iterate()}, count, nil
	}
	return nil, nil, fmt.Errorf("%s: %s: got %s, want a list, tuple, range, lazy value or words", fn, arg, v.Type())
}

type sliceSource struct{ w []uint64 }

func (s *sliceSource) fill(ctx context.Context, dst []uint64) (int, error) {
	n := 0
	for n < len(dst) && len(s.w) > 0 {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		k := copy(dst[n:min(len(dst), n+pollWords)], s.w)
		s.w = s.w[k:]
		n += k
	}
	return n, nil
}

type subsetSource struct{ f *words.SubsetFiller }

func (s *subsetSource) fill(ctx context.Context, dst []uint64) (int, error) {
	// A million subsets take about a millisecond: poll between blocks.
	n := 0
	for n < len(dst) && !s.f.Done() {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		n += s.f.Fill(dst[n:min(len(dst), n+1<<20)])
	}
	return n, nil
}

type debruijnSource struct {
	it   *debruijn.Iter
	done bool
}

func (s *debruijnSource) fill(ctx context.Context, dst []uint64) (int, error) {
	for i := range dst {
		if i&4095 == 4095 && ctx.Err() != nil {
			return i, ctx.Err()
		}
		if s.done || !s.it.Next() {
			s.done = true
			return i, nil
		}
		dst[i] = s.it.Value()
	}
	return len(dst), nil
}

type rangeSource struct {
	first, step int64
	n, pos      int
}

func (s *rangeSource) fill(ctx context.Context, dst []uint64) (int, error) {
	k := min(len(dst), s.n-s.pos)
	x := uint64(s.first + int64(s.pos)*s.step)
	for i := range dst[:k] {
		if i%pollWords == 0 && ctx.Err() != nil {
			s.pos += i
			return i, ctx.Err()
		}
		dst[i] = x
		x += uint64(s.step)
	}
	s.pos += k
	return k, nil
}

// A generator is a wordSource that can compute its words instead of
// storing them: chunks gives their arrays deferred words (see deferred
// arrays in docs/words.md), which cost no memory and are computed a
// block at a time by whatever uses them.
type generator interface {
	// generate returns the starter of a words.NewGenerated for the next n
	// words (no more than are left) and moves past them.
	generate(n int) func() func(dst []uint64)
}

func (s *subsetSource) generate(n int) func() func(dst []uint64) {
	at := *s.f
	s.f.Skip(uint64(n))
	return func() func(dst []uint64) {
		f := at
		return func(dst []uint64) { f.Fill(dst) }
	}
}

func (s *rangeSource) generate(n int) func() func(dst []uint64) {
	at := *s
	s.pos += n
	return func() func(dst []uint64) {
		r := at
		return func(dst []uint64) { r.fill(context.Background(), dst) }
	}
}

type indexSource struct {
	fn, arg string
	v       starlark.Indexable
	n, pos  int
}

func (s *indexSource) fill(ctx context.Context, dst []uint64) (int, error) {
	k := min(len(dst), s.n-s.pos)
	for i := range dst[:k] {
		if i&4095 == 4095 && ctx.Err() != nil {
			return i, ctx.Err()
		}
		if s.pos >= s.v.Len() { // a list shrunk by the loop that chunks it
			return i, fmt.Errorf("%s: %s changed size during iteration", s.fn, s.arg)
		}
		w, err := elemWord(s.fn, s.arg, s.pos, s.v.Index(s.pos))
		if err != nil {
			return i, err
		}
		dst[i] = w
		s.pos++
	}
	return k, nil
}

type iterSource struct {
	fn   string
	arg  string
	it   starlark.Iterator
	pos  int
	done bool
}

func (s *iterSource) fill(ctx context.Context, dst []uint64) (int, error) {
	var v starlark.Value
	for i := range dst {
		if i&4095 == 4095 && ctx.Err() != nil {
			return i, ctx.Err()
		}
		if s.done || !s.it.Next(&v) {
			s.done = true
			return i, nil
		}
		w, err := elemWord(s.fn, s.arg, s.pos, v)
		if err != nil {
			return i, err
		}
		dst[i] = w
		s.pos++
	}
	return len(dst), nil
}

func (s *iterSource) close() { s.it.Done() }

// elemWord converts item i of the argument arg to a word.
func elemWord(fn, arg string, i int, v starlark.Value) (uint64, error) {
	x, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s[%d]: got %s, want int", fn, arg, i, v.Type())
	}
	w, ok := intWord(x)
	if !ok {
		return 0, fmt.Errorf("%s: %s[%d] = %s does not fit in 64 bits", fn, arg, i, Short(x))
	}
	return w, nil
}

// knownLen returns the number of items of v, the argument arg of fn, when
// it is known without iterating v (an array, a list, a range, a lazy value
// that counts itself).
func knownLen(fn, arg string, v starlark.Value) (*big.Int, bool) {
	src, count, err := sourceOf(fn, arg, v)
	if err != nil {
		return nil, false
	}
	closeSource(src)
	return count, count != nil
}

// closeSource releases an iterator a source holds.
func closeSource(s wordSource) {
	if c, ok := s.(interface{ close() }); ok {
		c.close()
	}
}

func interrupted(fn string, ctx context.Context) error {
	return fmt.Errorf("%s: interrupted: %w", fn, context.Cause(ctx))
}

// collectWords returns every word of v, the argument arg of fn, within
// the array limit.
func collectWords(thread *starlark.Thread, fn, arg string, v starlark.Value) ([]uint64, error) {
	if a, ok := v.(*Words); ok {
		return a.words(), nil
	}
	src, count, err := sourceOf(fn, arg, v)
	if err != nil {
		return nil, err
	}
	defer closeSource(src)
	ctx := Context(thread)
	if count != nil {
		if !count.IsInt64() || count.Int64() > MaxWords {
			return nil, fmt.Errorf("%s: %s has %s items, more than an array holds (%d words); iterate it with chunks(%s) instead", fn, v.String(), count, MaxWords, arg)
		}
		dst, err := allocWords(thread, fn, int(count.Int64()))
		if err != nil {
			return nil, err
		}
		n, err := src.fill(ctx, dst)
		if err != nil {
			if ctx.Err() != nil {
				return nil, interrupted(fn, ctx)
			}
			return nil, err
		}
		return dst[:n], nil
	}
	// Unknown length: grow, within the limit.
	var out []uint64
	buf := make([]uint64, 4096)
	for {
		n, err := src.fill(ctx, buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, interrupted(fn, ctx)
			}
			return nil, err
		}
		if len(out)+n > MaxWords {
			return nil, fmt.Errorf("%s: %s has more items than an array holds (%d words); iterate it with chunks(%s) instead", fn, v.String(), MaxWords, arg)
		}
		if len(out)+n > cap(out) {
			if err := CheckAlloc(thread, fn, 16*int64(len(out)+n)); err != nil {
				return nil, err
			}
		}
		out = append(out, buf[:n]...)
		if n < len(buf) {
			return out, nil
		}
	}
}

// ---- words ----

func wordsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var src starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "src", &src); err != nil {
		return nil, err
	}
	if a, ok := src.(*Words); ok {
		return newWords(a.words(), OriginOf(thread)), nil // immutable: share
	}
	w, err := collectWords(thread, b.Name(), "src", src)
	if err != nil {
		return nil, err
	}
	return newWords(w, OriginOf(thread)), nil
}

// ---- chunks ----

// DefaultChunk is chunks' default size: 2^20 words, 8 MiB, big enough that
// the interpreter's cost per chunk vanishes, small enough for the caches.
const DefaultChunk = 1 << 20

func chunksFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var src starlark.Value
	size := DefaultChunk
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "src", &src, "size?", &size); err != nil {
		return nil, err
	}
	if size < 1 || size > MaxWords {
		return nil, fmt.Errorf("%s: size = %d is not in 1..%d (the most words an array holds)", b.Name(), size, MaxWords)
	}
	// Check the type only: making the source would start iterating src
	// (a list being iterated refuses appends until its iterator is done).
	if _, ok := src.(starlark.Iterable); !ok {
		return nil, fmt.Errorf("%s: src: got %s, want a lazy value, range, list, tuple or words", b.Name(), src.Type())
	}
	return &chunksValue{src: src, size: size, origin: OriginOf(thread)}, nil
}

// chunksValue is the lazy iterable chunks returns.
type chunksValue struct {
	src    starlark.Value
	size   int
	origin Origin
}

var _ starlark.Iterable = (*chunksValue)(nil)

func (c *chunksValue) String() string {
	return fmt.Sprintf("chunks(%s, size=%d)", c.src.String(), c.size)
}
func (c *chunksValue) Type() string          { return "chunks" }
func (c *chunksValue) Freeze()               {}
func (c *chunksValue) Truth() starlark.Bool  { return true }
func (c *chunksValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: chunks") }

func (c *chunksValue) Iterate() starlark.Iterator {
	it := &chunksIter{c: c, lazyIter: startLazy(c.origin)}
	if a, ok := c.src.(*Words); ok {
		it.share = a.words()
		return it
	}
	var count *big.Int
	it.src, count, it.err = sourceOf("chunks", "src", c.src)
	if it.err != nil {
		it.fail(it.err)
		return it
	}
	it.left = -1
	if count != nil && count.IsInt64() {
		it.left = count.Int64()
	}
	return it
}

type chunksIter struct {
	lazyIter
	c     *chunksValue
	share []uint64 // an array's words not yet yielded
	src   wordSource
	left  int64 // words left, or -1 when unknown
	err   error
}

func (it *chunksIter) Next(p *starlark.Value) bool {
	if it.stop || it.err != nil {
		return false
	}
	if it.halted() {
		it.stop = true
		return false
	}
	size := it.c.size
	if it.src == nil { // an array: slices of it
		if len(it.share) == 0 {
			return false
		}
		k := min(size, len(it.share))
		*p = newWords(it.share[:k:k], it.c.origin)
		it.share = it.share[k:]
		return true
	}
	if it.left == 0 {
		return false
	}
	if it.left > 0 && it.left < int64(size) {
		size = int(it.left)
	}
	if g, ok := it.src.(generator); ok && it.left > 0 && size <= deferLimit {
		if err := checkWords(it.thread, "chunks", size); err != nil {
			it.fail(err)
			return false
		}
		*p = newLazy(words.NewGenerated(size, g.generate(size)), it.c.origin)
		it.left -= int64(size)
		return true
	}
	dst, err := allocWords(it.thread, "chunks", size)
	if err != nil {
		it.fail(err)
		return false
	}
	ctx := context.Background()
	if it.thread != nil {
		ctx = Context(it.thread)
	}
	n, err := it.src.fill(ctx, dst)
	if err != nil {
		if ctx.Err() != nil {
			it.halted()
			it.stop = true
			return false
		}
		it.fail(err)
		return false
	}
	if it.left > 0 {
		it.left -= int64(n)
	}
	if n == 0 {
		it.stop = true
		return false
	}
	if n < size {
		it.left = 0
	}
	*p = newWords(dst[:n:n], it.c.origin)
	return true
}

// fail stops the iteration with err: an iterator cannot return an error,
// so it cancels the iterating thread with err's message, which the run
// then reports.
func (it *chunksIter) fail(err error) {
	it.err = err
	it.stop = true
	if it.thread != nil {
		it.thread.Cancel(err.Error())
	}
}

func (it *chunksIter) Done() {
	if it.src != nil {
		closeSource(it.src)
	}
}

// ---- random_words ----

func randomWordsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n int
	var seed Word
	sparse := 1
	if err := unpack(b.Name(), args, kwargs, "n", &n, "seed?", &seed, "sparse?", &sparse); err != nil {
		return nil, err
	}
	if n < 0 || n > MaxWords {
		return nil, fmt.Errorf("%s: n = %d is not in 0..%d (the most words an array holds)", b.Name(), n, MaxWords)
	}
	if sparse < 1 || sparse > 64 {
		return nil, fmt.Errorf("%s: sparse = %d is not in 1..64", b.Name(), sparse)
	}
	dst, err := allocWords(thread, b.Name(), n)
	if err != nil {
		return nil, err
	}
	g := rng.New(uint64(seed))
	if err := inChunks(thread, b.Name(), n, pollWords/sparse, func(lo, hi int) { g.Fill(dst[lo:hi], sparse) }); err != nil {
		return nil, err
	}
	return newWords(dst, OriginOf(thread)), nil
}

// ---- hash_ok, find_magic ----

// MaxHashTable bounds the table of hash_ok and find_magic (2 GiB): 2^27
// keys with hashes of up to 27 bits, 2^25 keys with wider ones.
const MaxHashTable = 1 << 31

// hashArgs converts keys, values and bits and builds the checker.
func hashArgs(thread *starlark.Thread, fn string, keysV, valuesV starlark.Value, bitsV int) (*words.Checker, error) {
	if bitsV < 1 || bitsV > 64 {
		return nil, fmt.Errorf("%s: bits = %d is not in 1..64", fn, bitsV)
	}
	keys, err := collectWords(thread, fn, "keys", keysV)
	if err != nil {
		return nil, err
	}
	var values []uint64
	if valuesV != starlark.None {
		// A lazy source knows its length: refuse a mismatch before
		// computing its words (2^26 de Bruijn sequences take seconds).
		if n, ok := knownLen(fn, "values", valuesV); ok && n.Cmp(big.NewInt(int64(len(keys)))) != 0 {
			return nil, fmt.Errorf("%s: values has %s words and keys %d, want equal lengths", fn, n, len(keys))
		}
		if values, err = collectWords(thread, fn, "values", valuesV); err != nil {
			return nil, err
		}
		if len(values) != len(keys) {
			return nil, fmt.Errorf("%s: values has %d words and keys %d, want equal lengths", fn, len(values), len(keys))
		}
		if values == nil {
			values = []uint64{}
		}
	}
	tb := words.TableBytes(len(keys), uint(bitsV))
	if tb > MaxHashTable {
		return nil, fmt.Errorf("%s: %d keys with bits = %d need a %d MiB table, more than %d MiB", fn, len(keys), bitsV, tb>>20, MaxHashTable>>20)
	}
	if err := CheckAlloc(thread, fn, tb); err != nil {
		return nil, err
	}
	return words.NewChecker(keys, values, uint(bitsV)), nil
}

func hashOKFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var keys, values starlark.Value = nil, starlark.None
	var magic Word
	var bitsV int
	if err := unpack(b.Name(), args, kwargs, "keys", &keys, "magic", &magic, "bits", &bitsV, "values?", &values); err != nil {
		return nil, err
	}
	c, err := hashArgs(thread, b.Name(), keys, values, bitsV)
	if err != nil {
		return nil, err
	}
	return starlark.Bool(c.OK(uint64(magic))), nil
}

func findMagicFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var keys, values starlark.Value = nil, starlark.None
	var bitsV int
	var seed Word
	var triesV starlark.Int = starlark.MakeInt(100000000)
	sparse := 3
	if err := unpack(b.Name(), args, kwargs, "keys", &keys, "bits", &bitsV, "values?", &values,
		"seed?", &seed, "tries?", &triesV, "sparse?", &sparse); err != nil {
		return nil, err
	}
	tries, ok := triesV.Uint64()
	if !ok {
		return nil, fmt.Errorf("%s: tries = %s is not in 0..2^64-1", b.Name(), Short(triesV))
	}
	if sparse < 1 || sparse > 64 {
		return nil, fmt.Errorf("%s: sparse = %d is not in 1..64", b.Name(), sparse)
	}
	c, err := hashArgs(thread, b.Name(), keys, values, bitsV)
	if err != nil {
		return nil, err
	}
	update, finish := progressFor(thread, true, "find_magic")
	var progress func(uint64)
	if update != nil {
		total := int64(min(tries, math.MaxInt64))
		progress = func(done uint64) { update(int64(min(done, math.MaxInt64)), total) }
	}
	ctx := Context(thread)
	m, _, found, err := words.FindMagic(ctx, c, uint64(seed), sparse, tries, progress)
	finish()
	if err != nil {
		return nil, interrupted(b.Name(), ctx)
	}
	if !found {
		return starlark.None, nil
	}
	return starlark.MakeUint64(m), nil
}
