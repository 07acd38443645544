package builtins

// Bindings of docs/repl.md: the random module.

import (
	"fmt"
	"math/big"

	"github.com/bitsh/bitsh/builtins/rng"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

const randomDoc = `random
A module of reproducible pseudo-random numbers. Each interpreter has its own
generator, seeded 0 when the interpreter starts, so a script prints the same
numbers on every run and machine unless it seeds from time
(random.seed(time.now().unix_nano)). The generator is xoshiro256** with its
state filled by splitmix64 from the seed; bounded draws use Lemire's
multiply-and-reject method, shuffles Fisher-Yates from the last position.
  random.seed(n)                 restart the generator from the word n
  random.word(sparse=1)          a random 64-bit word; the AND of sparse words
                                 when sparse > 1 (each bit set with odds 2^-sparse)
  random.randrange(start, stop=None)  an int in [0, start) or [start, stop)
  random.choice(seq)             an element of a non-empty sequence
  random.shuffle(list)           shuffles a list in place; returns None
  random.sample(seq, k)          a list of k elements at distinct positions`

func init() {
	mod := &starlarkstruct.Module{Name: "random", Members: starlark.StringDict{
		"seed":      starlark.NewBuiltin("random.seed", randomSeed),
		"word":      starlark.NewBuiltin("random.word", randomWord),
		"randrange": starlark.NewBuiltin("random.randrange", randomRange),
		"choice":    starlark.NewBuiltin("random.choice", randomChoice),
		"shuffle":   starlark.NewBuiltin("random.shuffle", randomShuffle),
		"sample":    starlark.NewBuiltin("random.sample", randomSample),
	}}
	mod.Freeze()
	register(Builtin{Name: "random", Topic: "starlark", Value: mod, Doc: randomDoc})
}

// A Random is the random module's generator state of one interpreter.
type Random struct{ src *rng.Source }

// NewRandom returns a generator seeded 0.
func NewRandom() *Random { return &Random{src: rng.New(0)} }

// randomOf returns the generator of thread's Env, giving a thread that
// has none its own (seeded 0), so nothing is shared between threads.
func randomOf(thread *starlark.Thread) *rng.Source {
	e := envOf(thread)
	if e == nil {
		SetEnv(thread, Env{})
		e = envOf(thread)
	}
	if e.Random == nil {
		e.Random = NewRandom()
	}
	return e.Random.src
}

func randomSeed(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n Word
	if err := unpack(b.Name(), args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	randomOf(thread).Seed(uint64(n))
	return starlark.None, nil
}

func randomWord(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	sparse := 1
	if err := unpack(b.Name(), args, kwargs, "sparse?", &sparse); err != nil {
		return nil, err
	}
	if sparse < 1 || sparse > 64 {
		return nil, fmt.Errorf("%s: sparse = %d is out of range 1..64", b.Name(), sparse)
	}
	return wordValue(randomOf(thread).Sparse(sparse)), nil
}

var two64 = new(big.Int).Lsh(big.NewInt(1), 64)

func randomRange(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var start, stop starlark.Value = nil, starlark.None
	if err := unpack(b.Name(), args, kwargs, "start", &start, "stop?", &stop); err != nil {
		return nil, err
	}
	lo, err := toBig(b.Name(), "start", start)
	if err != nil {
		return nil, err
	}
	var hi *big.Int
	if stop == starlark.None {
		lo, hi = new(big.Int), lo
	} else if hi, err = toBig(b.Name(), "stop", stop); err != nil {
		return nil, err
	}
	width := new(big.Int).Sub(hi, lo)
	if width.Sign() <= 0 {
		return nil, fmt.Errorf("%s: empty range [%s, %s)", b.Name(), lo, hi)
	}
	if width.Cmp(two64) > 0 {
		return nil, fmt.Errorf("%s: range [%s, %s) is wider than 2^64", b.Name(), lo, hi)
	}
	var n uint64 // 0 stands for 2^64
	if width.Cmp(two64) < 0 {
		n = width.Uint64()
	}
	r := new(big.Int).SetUint64(randomOf(thread).Uint64n(n))
	return starlark.MakeBigInt(r.Add(r, lo)), nil
}

func toBig(fn, name string, v starlark.Value) (*big.Int, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return nil, fmt.Errorf("%s: %s: got %s, want int", fn, name, v.Type())
	}
	return i.BigInt(), nil
}

// indexable returns seq as a sequence that random can index.
func indexable(fn string, seq starlark.Value) (starlark.Indexable, error) {
	if x, ok := seq.(starlark.Indexable); ok {
		return x, nil
	}
	return nil, fmt.Errorf("%s: seq: got %s, want a sequence (list, tuple, string, range)", fn, seq.Type())
}

// randomPollEvery is how many items random's loops handle between checks for
// cancellation.
const randomPollEvery = 1 << 14

func randomChoice(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := unpack(b.Name(), args, kwargs, "seq", &v); err != nil {
		return nil, err
	}
	seq, err := indexable(b.Name(), v)
	if err != nil {
		return nil, err
	}
	n := seq.Len()
	if n == 0 {
		return nil, fmt.Errorf("%s: seq is empty", b.Name())
	}
	return seq.Index(int(randomOf(thread).Uint64n(uint64(n)))), nil
}

func randomShuffle(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list *starlark.List
	if err := unpack(b.Name(), args, kwargs, "list", &list); err != nil {
		return nil, err
	}
	// Fisher-Yates from the last position down, as rng.Source.Shuffle,
	// written out to poll for cancellation.
	g, ctx := randomOf(thread), Context(thread)
	for i := list.Len() - 1; i > 0; i-- {
		if i%randomPollEvery == 0 && ctx.Err() != nil {
			return nil, interrupted(b.Name(), ctx)
		}
		j := int(g.Uint64n(uint64(i + 1)))
		if i == j {
			continue
		}
		vi, vj := list.Index(i), list.Index(j)
		if err := list.SetIndex(i, vj); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
		if err := list.SetIndex(j, vi); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name(), err)
		}
	}
	return starlark.None, nil
}

func randomSample(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	var k int
	if err := unpack(b.Name(), args, kwargs, "seq", &v, "k", &k); err != nil {
		return nil, err
	}
	seq, err := indexable(b.Name(), v)
	if err != nil {
		return nil, err
	}
	n := seq.Len()
	if k < 0 || k > n {
		return nil, fmt.Errorf("%s: k = %d is out of range 0..len(seq) = %d", b.Name(), k, n)
	}
	if err := CheckAlloc(thread, b.Name(), int64(k)*48); err != nil {
		return nil, err
	}
	// A partial Fisher-Yates on the positions, from the front: position i
	// takes a uniform pick among the positions not chosen yet. The moved
	// positions live in a map, so sample(range(2**40), 3) costs O(k).
	g, ctx := randomOf(thread), Context(thread)
	moved := map[int]int{}
	at := func(i int) int {
		if p, ok := moved[i]; ok {
			return p
		}
		return i
	}
	out, err := makeSlice[starlark.Value](thread, b.Name(), k)
	if err != nil {
		return nil, err
	}
	for i := range k {
		if i%randomPollEvery == 0 && ctx.Err() != nil {
			return nil, interrupted(b.Name(), ctx)
		}
		j := i + int(g.Uint64n(uint64(n-i)))
		pi, pj := at(i), at(j)
		moved[j] = pi
		out[i] = seq.Index(pj)
	}
	return starlark.NewList(out), nil
}
