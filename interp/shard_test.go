package interp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/shard"
	"github.com/bitsh/bitsh/internal/testscale"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// shareScript cuts SPACE with share and checks that the part behaves as
// a value of its kind, then emits with every op.
const shareScript = `
space = SPACE
s = share(space)
items = list(s)
assert_eq = lambda a, b, what: a == b or fail("%s: %r != %r" % (what, a, b))
assert_eq(type(s), type(space), "type")
assert_eq(len(s), len(items), "len")
if type(space) not in ("words", "list", "tuple") and hasattr(space, "count"):  # words' .count() counts non-zero words
    assert_eq(s.count, len(items), ".count")
assert_eq([s[i] for i in range(min(len(s), 100))], items[:100], "indexing")
if len(s):
    assert_eq(s[-1], items[-1], "s[-1]")
if type(s) not in ("list", "tuple") and len(items) <= 100000:
    # Word arrays take a part as they take the whole (negative range items
    # are words mod 2^64).
    assert_eq([x for c in chunks(s, 3) for x in c.tolist()], [x % (1 << 64) for x in items], "chunks")
    assert_eq(words(s).tolist(), [x % (1 << 64) for x in items], "words")
# Membership of every item of the space (quadratic: small spaces only).
if len(space) * shard().count <= 20000:
    for x in space:
        inside = x in s
        assert_eq(inside, x in items, "%r in s" % x)
        if inside:
            emit("inside", 1)
else:
    emit("inside", len(items))
for x in s:
    emit("n", 1)
    emit("xs", x, "append")
    if type(x) == "int":
        emit("sum", x)
        emit("lo", x, "min")
        emit("hi", x, "max")
        emit("mod7", x % 7, "union")
emit("shards", [shard().index, len(items)], "append")
`

var spaces = []string{
	"subsets(0xb5)",
	"subsets(0xf0f3, k=5)",
	"subsets(0xff, k=9)",
	"subsets(0xb5 << 56)", // items above 2^31: made a batch ahead
	"subsets(0xfb << 50, k=3)",
	"range(3, 100, 7)",
	"range(10, 0, -3)",
	"words([5, 1, 4, 1 << 63, 9, 2, 6, 0, 3, 7])",
	"W", // the same array, made in Go
	"debruijn_sequences(8)",
	"debruijn_sequences(16)",
	"debruijn_sequences(32)",
	"[1, 'a', None, [2]]",
}

var predeclareW = interp.WithPredeclared(starlark.StringDict{
	"W": builtins.NewWords([]uint64{5, 1, 4, 1 << 63, 9, 2, 6, 0, 3, 7}),
})

func nextPrimeAbove(n int) int {
	for p := n + 1; ; p++ {
		if big.NewInt(int64(p)).ProbablyPrime(10) {
			return p
		}
	}
}

func resultsText(t *testing.T, r *shard.Results) string {
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestShareMergesExactly runs the script over each space as 1 shard and
// as N shards (N = 2, 3, 7 and a prime above the space's size): the merged
// results equal the one-shard results exactly, the parts are disjoint and
// cover the space (no item falls outside its part's membership, the
// appended items are the space's items in order) and their sizes differ
// by at most one.
func TestShareMergesExactly(t *testing.T) {
	ctx := context.Background()
	for _, space := range spaces {
		src := strings.ReplaceAll(shareScript, "SPACE", space)
		in := interp.New(interp.WithStdout(&bytes.Buffer{}), predeclareW)
		n, err := in.Eval(ctx, "len("+space+")")
		if err != nil {
			t.Fatal(err)
		}
		size, _ := n.(interface{ Int64() (int64, bool) }).Int64()
		whole, err := in.Eval(ctx, "list("+space+")")
		if err != nil {
			t.Fatal(err)
		}
		one, err := interp.RunShards(ctx, 1, "share.star", []byte(src), &bytes.Buffer{}, &bytes.Buffer{}, predeclareW)
		if err != nil {
			t.Fatalf("%s: %v", space, err)
		}
		want := resultsText(t, one[0])
		if xs, ok := one[0].Get("xs"); ok && shard.Repr(xs.Value) != strings.ReplaceAll(whole.String(), "'", `"`) {
			t.Errorf("%s: one shard appended %s, want %s", space, shard.Repr(xs.Value), whole)
		}
		counts := []int{2, 3, 7, nextPrimeAbove(int(size))}
		if testscale.Short() && size > 1000 {
			counts = counts[:3] // the prime case is covered by the smaller spaces
		}
		for _, count := range counts {
			start := time.Now()
			rs, err := interp.RunShards(ctx, count, "share.star", []byte(src), &bytes.Buffer{}, &bytes.Buffer{}, predeclareW)
			if err != nil {
				t.Fatalf("%s over %d shards: %v", space, count, err)
			}
			merged, err := shard.MergeResults(rs...)
			if err != nil {
				t.Fatal(err)
			}
			// Each shard emits [index, size]; compare everything else.
			got := resultsText(t, merged)
			if strip(got) != strip(want) {
				t.Errorf("%s over %d shards:\n%s\nwant (one shard):\n%s", space, count, got, want)
			}
			t.Logf("%s over %d shards: %v", space, count, time.Since(start))
			sizes, _ := merged.Get("shards")
			small, large := size, int64(0)
			for i, p := range sizes.Value.([]any) {
				pair := p.([]any)
				if idx := pair[0].(*big.Int).Int64(); idx != int64(i) {
					t.Errorf("%s: part %d says it is shard %d", space, i, idx)
				}
				m := pair[1].(*big.Int).Int64()
				small, large = min(small, m), max(large, m)
			}
			if large-small > 1 {
				t.Errorf("%s over %d shards: part sizes %d..%d", space, count, small, large)
			}
		}
	}
}

// strip drops the "shards" line, which differs by design.
func strip(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "shards = ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestShareDebruijn64 checks that a part of the 2^26 magics of width 64
// starts where indexing says and that its last items are the next part's
// predecessors, without enumerating the whole space.
func TestShareDebruijn64(t *testing.T) {
	src := `
s = share(debruijn_sequences(64))
first = []
for m in s:
    first.append(m)
    if len(first) == 5:
        break
print(len(s), first == [s[i] for i in range(5)], s[0] in s, s[-1] in s, s[0] - 1 in s)
`
	for _, idx := range []int{0, 500, 999} {
		var out bytes.Buffer
		in := interp.New(interp.WithStdout(&out), interp.WithShard(idx, 1000))
		if _, err := in.ExecFile(context.Background(), "d.star", src); err != nil {
			t.Fatal(err)
		}
		if got, want := out.String(), "67108 True True True False\n"; got != want && got != "67109 True True True False\n" {
			t.Errorf("shard %d of 1000: %q, want %q", idx, got, want)
		}
	}
}

func TestShareErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`share({})`, "share: space: got dict, want subsets, debruijn_sequences, set_classes, range, words, list or tuple"},
		{`share("abc")`, "share: space: got string"},
		{`emit("k", 1.5)`, "emit: value: float is not JSON-representable"},
		{`emit("k", {1: 2}, "append")`, "emit: value: dict key 1 is a int, want string"},
		{`emit("k", 1, "avg")`, `emit: op = "avg" is not one of`},
		{`emit("k", 1); emit("k", 2, "max")`, `emit: key = "k": key "k" was emitted with op "sum", not "max"`},
		{`emit("k", "x")`, `op "sum" wants an int, got string`},
	} {
		in := interp.New(interp.WithStdout(&bytes.Buffer{}), interp.WithShard(1, 3))
		_, err := in.ExecFile(context.Background(), "e.star", tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.src, err, tc.want)
		}
	}
}

// TestRunShardsOutput checks the "[I] " prefixes and that one shard's
// failure cancels the others and is reported with its index.
func TestRunShardsOutput(t *testing.T) {
	var out, errw bytes.Buffer
	rs, err := interp.RunShards(context.Background(), 3, "p.star",
		[]byte("print('a', shard().index)\nprint('b')\nemit('n', shard().index)\n"), &out, &errw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for _, want := range []string{fmt.Sprintf("[%d] a %d\n[%d] b\n", i, i, i)} {
			if !strings.Contains(out.String(), fmt.Sprintf("[%d] a %d\n", i, i)) || !strings.Contains(out.String(), fmt.Sprintf("[%d] b\n", i)) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
		if e, _ := rs[i].Get("n"); shard.Repr(e.Value) != fmt.Sprint(i) {
			t.Errorf("shard %d emitted %s", i, shard.Repr(e.Value))
		}
	}
	start := time.Now()
	_, err = interp.RunShards(context.Background(), 2, "f.star",
		[]byte("if shard().index == 1:\n    fail('boom')\nwhile True:\n    pass\n"), &out, &errw)
	var se *interp.ShardError
	if !errors.As(err, &se) || se.Index != 1 || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("RunShards = %v, want shard 1's failure", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the other shard was not cancelled: %v", d)
	}
}

// TestSharePartsCancel checks that iterating a part stops soon after its
// run is cancelled, with and without prefetching, and in Go consumers.
func TestSharePartsCancel(t *testing.T) {
	for _, src := range []string{
		"for x in share(subsets(0xffffffffff)):\n    pass",
		"for x in share(subsets(0xffffffffff << 20, k=20)):\n    pass",
		"for m in share(debruijn_sequences(64)):\n    pass",
		"max(share(subsets(0xffffffffffff)))",
	} {
		in := interp.New(interp.WithStdout(&bytes.Buffer{}), interp.WithShard(1, 2))
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err := in.ExecFile(ctx, "c.star", src)
		cancel()
		if err == nil {
			t.Errorf("%q: not cancelled", src)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%q: stopped after %v", src, d)
		}
	}
}

// RunShards runs at most GOMAXPROCS shards at a time: hundreds of busy
// goroutines starved the ones that deliver a Ctrl-C and cancel the runs
// (under -j 256 of endless loops the command took 3.5 s to stop). A
// shard that never started because the run was cancelled reports it.
func TestRunShardsAtATime(t *testing.T) {
	var active, most atomic.Int64
	busy := starlark.NewBuiltin("busy", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		n := active.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(time.Millisecond)
		active.Add(-1)
		return starlark.None, nil
	})
	opts := []interp.Option{interp.WithPredeclared(starlark.StringDict{"busy": busy})}
	var out, errb bytes.Buffer
	if _, err := interp.RunShards(context.Background(), 64, "busy.star", []byte("busy()\nemit('n', 1)"), &out, &errb, opts...); err != nil {
		t.Fatal(err)
	}
	if limit := int64(runtime.GOMAXPROCS(0)); most.Load() > limit {
		t.Errorf("%d shards ran at once, want at most GOMAXPROCS = %d", most.Load(), limit)
	}

	// Cancelled while shards wait: an error, whichever shard reports it.
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("stop here")
	block := starlark.NewBuiltin("block", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		cancel(cause)
		return starlark.None, nil
	})
	opts = []interp.Option{interp.WithPredeclared(starlark.StringDict{"block": block})}
	_, err := interp.RunShards(ctx, 64, "block.star", []byte("block()\nwhile True:\n    pass"), &out, &errb, opts...)
	var se *interp.ShardError
	if !errors.As(err, &se) || !errors.Is(err, cause) {
		t.Errorf("cancelled RunShards returned %v, want a *ShardError with the cause", err)
	}
}
