package builtins_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestWordsCancel checks that the long array operations stop when the
// run's context is cancelled, with an error, not after finishing. The
// latency is logged (timings are not asserted: the machine is shared).
func TestWordsCancel(t *testing.T) {
	for _, src := range []string{
		"a = random_words(1 << 23)\nb = a.sort()",
		"a = random_words(1 << 23)\nb = a.unique()",
		"a = random_words(1 << 23)\nb = a.histogram()",
		"m = find_magic(words(subsets(0x000101010101017e)), 10, tries = 1 << 60)",
		"n = 0\nfor c in chunks(debruijn_sequences()):\n  n += len(c)",
		"n = 0\nfor c in chunks(subsets(-1)):\n  n += len(c)",
		"a = words(debruijn_sequences())",
	} {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := execLazy(t, ctx, src)
			done <- err
		}()
		time.Sleep(200 * time.Millisecond)
		start := time.Now()
		cancel()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%q finished before its cancellation (make it longer)", src)
				continue
			}
			t.Logf("%q stopped %v after the cancel: %v", src, time.Since(start), err)
		case <-time.After(20 * time.Second):
			t.Fatalf("%q did not stop after its cancellation", src)
		}
	}
}

// TestWordsErrorsNotPanics runs bad inputs through every entry point;
// each must be an ordinary error.
func TestWordsErrorsNotPanics(t *testing.T) {
	for _, src := range []string{
		"words()", "words(1, 2)", "words(None)", "words([None])", "words({'a': 1})",
		"chunks()", "chunks([1], 'a')", "chunks([1], -5)",
		"random_words('a')", "random_words(1, 'a')", "random_words(1 << 40)",
		"hash_ok()", "hash_ok([1], 1)", "hash_ok([1], 'm', 3)", "hash_ok(None, 1, 3)", "hash_ok([1], 1, 'x')",
		"find_magic([1], 65)", "find_magic([1, 2], 1, tries = 'x')", "find_magic([1], 3, values = 5)",
		"words([1, 2]) // words([1, 0])", "words([1]) % 0", "5 // words([0])", "words([1]) << 'a'",
		"words([1]).histogram(1)", "words([1]).filter()", "words([1]).index()", "words([1]).nosuch()",
		"words([1])[1:2:0]", "words([1])['a']", "-words([1]) + (1 << 70)", "words([1]).ge(None)",
		"[x for x in chunks(set_classes(4))]", "words(debruijn_sequences(8)) + words([1])",
		"l = list(range(10))\nfor c in chunks(l, 3):\n  l.pop()\n  l.pop()\n  l.pop()\n  l.pop()",
	} {
		_, err := execLazy(t, context.Background(), src)
		if err == nil {
			t.Errorf("%s: no error", src)
		} else if strings.Contains(err.Error(), "panic") {
			t.Errorf("%s: %v", src, err)
		}
	}
}

// TestWordsThroughPlainThread checks that arrays work on a thread that an
// embedder set up without bitsh's run tracking.
func TestWordsThroughPlainThread(t *testing.T) {
	thread := &starlark.Thread{Name: "plain"}
	v, err := starlark.Eval(thread, "x.star", "(words(range(10)) * 3).sum()", builtins.Predeclared())
	if err != nil || v.String() != "135" {
		t.Fatalf("got %v, %v; want 135", v, err)
	}
}

// The chunked count of docs/words.md against the same count written as a loop,
// per subset. With popcount taking arrays (the elementwise bit builtins)
// the chunked script is the one the contract quotes; without them it
// counts with a SWAR popcount made of array operators, so the figure says
// which one it measured.
const loopScript = `
n = 0
for s in subsets(D):
    if popcount(s & M) == 3:
        n += 1
`

const chunksScript = `
n = 0
for w in chunks(subsets(D)):
    n += popcount(w & M).eq(3).count()
`

const chunksSWARScript = `
n = 0
for w in chunks(subsets(D)):
    x = w & M
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f
    n += ((x * 0x0101010101010101) >> 56).eq(3).count()
`

func scriptFor(src string) string {
	r := strings.NewReplacer("D", "0x3fffff", "M", "0x2aaaaa")
	return r.Replace(src)
}

func runCount(b *testing.B, src string) {
	b.Helper()
	g, err := execLazy(b, context.Background(), scriptFor(src))
	if err != nil {
		b.Fatal(err)
	}
	// popcount(s & M) == 3 for the subsets of a 22-bit D: C(11, 3) * 2^11.
	if n := g["n"].String(); n != "337920" {
		b.Fatalf("n = %s; want 337920", n)
	}
}

func arrayPopcount(b *testing.B) bool {
	_, err := execLazy(b, context.Background(), "x = popcount(words([3]))")
	return err == nil
}

// countRuns runs src b.N times and reports the time per subset, by the
// clock and in CPU time (user and system, every thread of the process:
// the garbage collector's work counts), which a loaded machine inflates
// less than the clock.
func countRuns(b *testing.B, src string) {
	cpu0 := cpuTime()
	for range b.N {
		runCount(b, src)
	}
	n := float64(b.N << 22)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/subset")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/n, "cpu-ns/subset")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCountLoop is the plain loop over the 2^22 subsets.
func BenchmarkCountLoop(b *testing.B) { countRuns(b, loopScript) }

// BenchmarkCountChunks is the chunked count over the same subsets.
func BenchmarkCountChunks(b *testing.B) {
	src := chunksScript
	if !arrayPopcount(b) {
		b.Log("popcount takes no array here: counting with a SWAR popcount of array operators")
		src = chunksSWARScript
	}
	countRuns(b, src)
}

// TestDeferredArrayShared evaluates one deferred array from several
// goroutines at once (run it with -race): reductions read it a block at a
// time while others compute its words.
func TestDeferredArrayShared(t *testing.T) {
	thread := &starlark.Thread{Name: "main"}
	env := builtins.Predeclared()
	v, err := starlark.Eval(thread, "x.star", "popcount(words(range(5000)) ^ (words(range(5000)) >> 3)).eq(3)", env)
	if err != nil {
		t.Fatal(err)
	}
	v.Freeze()
	want, err := starlark.Eval(thread, "y.star", "len([x for x in range(5000) if popcount(x ^ (x >> 3)) == 3])", env)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for g := range 8 {
		go func() {
			th := &starlark.Thread{Name: "reader"}
			expr := []string{"a.count()", "len([x for x in a.tolist() if x])", "a.sum()"}[g%3]
			got, err := starlark.Eval(th, "r.star", expr, starlark.StringDict{"a": v})
			if err == nil && got.String() != want.String() {
				err = fmt.Errorf("%s = %s, want %s", expr, got, want)
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestHashOKLengthMismatchFirst wants hash_ok and find_magic to refuse
// values whose length differs from the keys' before computing them: all
// 2^26 de Bruijn sequences used to be built (10 s) before the error. The
// error names both lengths; the test's deadline makes a regression fail
// rather than wait.
func TestHashOKLengthMismatchFirst(t *testing.T) {
	for _, src := range []string{
		"hash_ok([1, 2, 3], 7, 4, values = debruijn_sequences())",
		"find_magic([1, 2, 3], 4, values = debruijn_sequences())",
		"hash_ok([1, 2, 3], 7, 4, values = range(1 << 40))",
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := execLazy(t, ctx, src)
		cancel()
		if err == nil || !strings.Contains(err.Error(), "keys 3, want equal lengths") {
			t.Errorf("%s: %v, want the length mismatch", src, err)
		}
	}
}

// TestChunkedPasses: the chunked copy, order check, deduplication and
// count of distinct values (of sorted, unique and histogram) agree with
// the plain ones across chunk boundaries.
func TestChunkedPasses(t *testing.T) {
	n := 3*(1<<16) + 5 // more than one chunk, and a partial last one
	for _, gen := range []struct {
		name string
		f    func(i int) uint64
	}{
		{"ascending", func(i int) uint64 { return uint64(i) }},
		{"a dip at a chunk boundary", func(i int) uint64 { return uint64(i) * uint64(min(1, i^(1<<16))) }},
		{"runs across chunks", func(i int) uint64 { return uint64(i / 70000) }},
		{"constant", func(int) uint64 { return 7 }},
		{"pairs", func(i int) uint64 { return uint64(i / 2) }},
	} {
		src := make([]uint64, n)
		for i := range src {
			src[i] = gen.f(i)
		}
		sorted := slices.Sorted(slices.Values(src))
		distinct := len(slices.Compact(slices.Clone(sorted)))
		env := starlark.StringDict{"a": builtins.NewWords(src)}
		for _, c := range []struct {
			expr string
			want any
		}{
			{"a.sort()[1]", sorted[1]},
			{"a.sort()[-1]", sorted[n-1]},
			{"len(a.unique())", distinct},
			{"a.unique()[-1]", sorted[n-1]},
			{"len(a.histogram())", distinct},
		} {
			if distinct > builtins.MaxHistogram && strings.HasPrefix(c.expr, "len(a.histogram") {
				continue
			}
			v, err := starlark.EvalOptions(&syntax.FileOptions{}, &starlark.Thread{}, "test", c.expr, env)
			if err != nil {
				t.Errorf("%s: %s: %v", gen.name, c.expr, err)
				continue
			}
			if v.String() != fmt.Sprint(c.want) {
				t.Errorf("%s: %s = %s, want %v", gen.name, c.expr, v, c.want)
			}
		}
	}
}
