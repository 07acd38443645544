package shard_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/shard"
)

func I(n int64) *big.Int { return big.NewInt(n) }

// TestRange checks that the ranges cover [0, total) in order, with sizes
// that differ by at most one, against a naive count.
func TestRange(t *testing.T) {
	for _, total := range []uint64{0, 1, 2, 5, 7, 32, 100, 1 << 40} {
		for _, count := range []int{1, 2, 3, 7, 37, 101} {
			next := uint64(0)
			small, large := ^uint64(0), uint64(0)
			for i := range count {
				lo, hi := shard.Range64(total, i, count)
				if lo != next || hi < lo {
					t.Fatalf("Range64(%d, %d, %d) = [%d, %d), want to start at %d", total, i, count, lo, hi, next)
				}
				small, large = min(small, hi-lo), max(large, hi-lo)
				next = hi
			}
			if next != total || large-small > 1 {
				t.Errorf("Range64(%d, *, %d): ends at %d, sizes %d..%d", total, count, next, small, large)
			}
		}
	}
	// 2^64 items (every subset of a full word).
	total := new(big.Int).Lsh(I(1), 64)
	lo, hi := shard.Range(total, 1, 2)
	if lo.Cmp(new(big.Int).Lsh(I(1), 63)) != 0 || hi.Cmp(total) != 0 {
		t.Errorf("Range(2^64, 1, 2) = [%s, %s)", lo, hi)
	}
}

// emitAll emits items in one Results, or spread over count shards by
// contiguous ranges, and returns the merge.
func emitSplit(t *testing.T, items []any, count int, op shard.Op) *shard.Results {
	t.Helper()
	var parts []*shard.Results
	for i := range count {
		lo, hi := shard.Range64(uint64(len(items)), i, count)
		r := &shard.Results{}
		for _, v := range items[lo:hi] {
			if err := r.Emit("k", op, v); err != nil {
				t.Fatal(err)
			}
		}
		parts = append(parts, r)
	}
	m, err := shard.MergeResults(parts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func value(t *testing.T, r *shard.Results) string {
	t.Helper()
	e, ok := r.Get("k")
	if !ok {
		return "<none>"
	}
	return shard.Repr(e.Value)
}

// TestOpsMergeExactly checks each op on random values: the merge of any
// split equals the one-shard result, and both equal a naive reference.
func TestOpsMergeExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var ints []any
	sum := new(big.Int)
	lo, hi := I(1<<62), I(-1<<62)
	huge := new(big.Int).Lsh(I(1), 100)
	for range 200 {
		n := new(big.Int).Add(huge, I(r.Int64N(1000)-500))
		if r.IntN(2) == 0 {
			n.Neg(n)
		}
		ints = append(ints, n)
		sum.Add(sum, n)
		if n.Cmp(lo) < 0 || len(ints) == 1 {
			lo = n
		}
		if n.Cmp(hi) > 0 || len(ints) == 1 {
			hi = n
		}
	}
	var strs []any
	for range 100 {
		strs = append(strs, string(rune('a'+r.IntN(5)))+string(rune('a'+r.IntN(5))))
	}
	for _, count := range []int{1, 2, 3, 7, 211} {
		if got := value(t, emitSplit(t, ints, count, shard.Sum)); got != sum.String() {
			t.Errorf("sum over %d shards = %s, want %s", count, got, sum)
		}
		if got := value(t, emitSplit(t, ints, count, shard.Min)); got != lo.String() {
			t.Errorf("min over %d shards = %s, want %s", count, got, lo)
		}
		if got := value(t, emitSplit(t, ints, count, shard.Max)); got != hi.String() {
			t.Errorf("max over %d shards = %s, want %s", count, got, hi)
		}
		if got, want := value(t, emitSplit(t, strs, count, shard.Append)), shard.Repr(strs); got != want {
			t.Errorf("append over %d shards = %s, want %s", count, got, want)
		}
		seen := map[string]bool{}
		for _, s := range strs {
			seen[s.(string)] = true
		}
		u := value(t, emitSplit(t, strs, count, shard.Union))
		if n := strings.Count(u, ",") + 1; n != len(seen) {
			t.Errorf("union over %d shards = %s, want %d distinct values", count, u, len(seen))
		}
		if u != value(t, emitSplit(t, strs, 1, shard.Union)) {
			t.Errorf("union over %d shards differs from one shard", count)
		}
	}
}

func TestEmitErrors(t *testing.T) {
	r := &shard.Results{}
	if err := r.Emit("a", shard.Sum, "x"); err == nil || !strings.Contains(err.Error(), "wants an int") {
		t.Errorf("sum of a string: %v", err)
	}
	if err := r.Emit("b", shard.Sum, I(1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Emit("b", shard.Max, I(1)); err == nil || !strings.Contains(err.Error(), `emitted with op "sum", not "max"`) {
		t.Errorf("op change: %v", err)
	}
	if err := r.Emit("c", shard.Min, I(1)); err != nil {
		t.Fatal(err)
	}
	if err := r.Emit("c", shard.Min, "s"); err == nil || !strings.Contains(err.Error(), "cannot compare string with int") {
		t.Errorf("min of mixed kinds: %v", err)
	}
	if err := r.Emit("d", shard.Append, 1.5); err == nil {
		t.Errorf("float accepted")
	}
}

func part(t *testing.T, src string, args []string, count, index int, emit func(r *shard.Results)) *shard.Part {
	r := &shard.Results{}
	emit(r)
	return shard.NewPart("s.star", []byte(src), args, count, []int{index}, r)
}

// TestPartRoundTrip writes a part with every kind of value and reads it
// back.
func TestPartRoundTrip(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	p := part(t, "emit()", []string{"a b", "ü"}, 3, 1, func(r *shard.Results) {
		r.Emit("sum", shard.Sum, huge)
		r.Emit("max", shard.Max, []any{I(1), "x"})
		r.Emit("app", shard.Append, &shard.Object{Keys: []string{"z", "a"}, Values: []any{nil, true}})
		r.Emit("app", shard.Append, "q\"\n")
		r.Emit("u", shard.Union, I(3))
		r.Emit("u", shard.Union, nil)
		r.Emit("u", shard.Union, I(3))
	})
	data, err := p.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	q, err := shard.ReadPart("p.json", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	data2, _ := q.MarshalJSON()
	if string(data) != string(data2) {
		t.Errorf("round trip changed the part:\n%s\n%s", data, data2)
	}
	for _, want := range []string{`"value": -123456789012345678901234567890`, `"value": [null, 3]`, `{"z": null, "a": true}`, `"shards": [1]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("part lacks %s:\n%s", want, data)
		}
	}
}

func TestReadPartErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`[]`, "want a JSON object"},
		{`{"format": "x"}`, `format = "x"`},
		{`{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 2, "args": [], "shards": [2], "results": {}}`, "2 is not a shard index in 0..1"},
		{`{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 2, "args": [], "shards": [0], "results": {"k": {"op": "sum", "value": 1.5}}}`, "not an integer"},
		{`{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 2, "args": [], "shards": [0], "results": {"k": {"op": "avg", "value": 1}}}`, `op = "avg"`},
	} {
		_, err := shard.ReadPart("p.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadPart(%s) = %v, want an error with %q", tc.data, err, tc.want)
		}
	}
}

func TestMergeRefuses(t *testing.T) {
	mk := func(src string, args []string, count, index int) *shard.Part {
		return part(t, src, args, count, index, func(r *shard.Results) { r.Emit("n", shard.Sum, I(int64(index))) })
	}
	for _, tc := range []struct {
		parts []*shard.Part
		want  string
	}{
		{[]*shard.Part{mk("a", nil, 2, 0), mk("b", nil, 2, 1)}, "different scripts"},
		{[]*shard.Part{mk("a", []string{"1"}, 2, 0), mk("a", []string{"2"}, 2, 1)}, `different arguments (["1"] and ["2"])`},
		{[]*shard.Part{mk("a", nil, 2, 0), mk("a", nil, 3, 1)}, "different shard counts (2 and 3)"},
		{[]*shard.Part{mk("a", nil, 2, 0), mk("a", nil, 2, 0)}, "shard 0 is given twice"},
		{[]*shard.Part{mk("a", nil, 5, 0), mk("a", nil, 5, 3)}, "missing shards 1, 2, 4 of 5"},
	} {
		_, err := shard.Merge(tc.parts, []string{"p0", "p1"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Merge: %v, want an error with %q", err, tc.want)
		}
	}
	m, err := shard.Merge([]*shard.Part{mk("a", nil, 3, 2), mk("a", nil, 3, 0), mk("a", nil, 3, 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := m.Results.Get("n"); shard.Repr(e.Value) != "3" {
		t.Errorf("merged n = %s, want 3", shard.Repr(e.Value))
	}
}

// TestWriteFileAtomic checks that WriteFile leaves exactly the file, no
// temporary beside it.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := part(t, "x", nil, 1, 0, func(r *shard.Results) { r.Emit("n", shard.Sum, I(1)) })
	path := filepath.Join(dir, "out.json")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "out.json" {
		t.Errorf("directory holds %v", ents)
	}
	if err := p.WriteFile(filepath.Join(dir, "missing", "x.json")); err == nil {
		t.Errorf("write into a missing directory succeeded")
	}
}

func FuzzReadPart(f *testing.F) {
	f.Add([]byte(`{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 2, "args": [], "shards": [0], "results": {"k": {"op": "union", "value": [1, 2]}}}`))
	f.Add([]byte(`{"format": "bitsh-shard/1", "results": {"k": {"op": "append", "value": [{"a": [null]}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := shard.ReadPart("f", data)
		if err != nil {
			return
		}
		out, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		q, err := shard.ReadPart("f2", out)
		if err != nil {
			t.Fatalf("re-reading a written part: %v\n%s", err, out)
		}
		out2, _ := q.MarshalJSON()
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}

func BenchmarkEmitSum(b *testing.B) {
	r := &shard.Results{}
	one := I(1)
	for b.Loop() {
		r.Emit("n", shard.Sum, one)
	}
}

func BenchmarkMerge(b *testing.B) {
	var parts []*shard.Part
	for i := range 16 {
		r := &shard.Results{}
		for j := range 1000 {
			r.Emit("xs", shard.Append, I(int64(j)))
			r.Emit("u", shard.Union, I(int64(j%97)))
		}
		parts = append(parts, shard.NewPart("s", nil, nil, 16, []int{i}, r))
	}
	for b.Loop() {
		if _, err := shard.Merge(parts, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReadPartHostile feeds parts built to exhaust the decoder: nesting
// far past MaxDepth (8 MB of brackets), an int of too many digits, and a
// key given twice among many; each must be refused with its reason.
func TestReadPartHostile(t *testing.T) {
	head := `{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 1, "args": [], "shards": [0], "results": {"k": {"op": "max", "value": `
	tail := `}}}`
	deep := strings.Repeat("[", 4<<20) + strings.Repeat("]", 4<<20)
	many := new(strings.Builder)
	many.WriteString(`{"format": "bitsh-shard/1", "script_sha256": "a", "hash": "h", "count": 1, "args": [], "shards": [0], "results": {`)
	for i := range 100000 {
		fmt.Fprintf(many, `"k%d": {"op": "sum", "value": 1}, `, i)
	}
	many.WriteString(`"k5": {"op": "sum", "value": 1}}}`)
	for _, tc := range []struct{ name, data, want string }{
		{"nesting bomb", head + deep + tail, fmt.Sprintf("nested more than %d deep", shard.MaxDepth)},
		{"object bomb", strings.Repeat(`{"a":`, 1<<20), fmt.Sprintf("nested more than %d deep", shard.MaxDepth)},
		{"huge int", head + strings.Repeat("9", shard.MaxIntDigits+1) + tail, fmt.Sprintf("at most %d", shard.MaxIntDigits)},
		{"duplicate among 100000 keys", many.String(), `key "k5" given twice`},
	} {
		_, err := shard.ReadPart("p.json", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ReadPart = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	// The largest int allowed reads back.
	big9 := strings.Repeat("9", shard.MaxIntDigits)
	if _, err := shard.ReadPart("p.json", []byte(head+"-"+big9+tail)); err != nil {
		t.Errorf("an int of %d digits: %v", shard.MaxIntDigits, err)
	}
}

// TestEmitRefusesWhatReadPartWould checks that emit refuses an int a part
// could not hold, so that every part bitsh writes reads back.
func TestEmitRefusesWhatReadPartWould(t *testing.T) {
	r := &shard.Results{}
	ok := new(big.Int).Exp(I(10), I(shard.MaxIntDigits-1), nil) // MaxIntDigits digits
	if err := r.Emit("a", shard.Max, ok); err != nil {
		t.Errorf("an int of %d digits: %v", shard.MaxIntDigits, err)
	}
	tooBig := new(big.Int).Exp(I(10), I(shard.MaxIntDigits+1), nil)
	if err := r.Emit("b", shard.Max, []any{tooBig}); err == nil || !strings.Contains(err.Error(), "digits") {
		t.Errorf("an int of %d digits: %v", shard.MaxIntDigits+2, err)
	}
}

// TestMergeManyKeys merges two parts of 100,000 keys each (a quadratic
// duplicate check took a minute on this) and checks the sums.
func TestMergeManyKeys(t *testing.T) {
	const n = 100000
	var parts []*shard.Part
	for s := range 2 {
		p := part(t, "x", nil, 2, s, func(r *shard.Results) {
			for i := range n {
				r.Emit(fmt.Sprint("k", i), shard.Sum, I(int64(i+s)))
			}
		})
		data, err := p.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		q, err := shard.ReadPart("p.json", data)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, q)
	}
	m, err := shard.Merge(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Results.Len() != n {
		t.Fatalf("merged %d keys, want %d", m.Results.Len(), n)
	}
	for _, i := range []int{0, 1, n / 2, n - 1} {
		e, _ := m.Results.Get(fmt.Sprint("k", i))
		if want := int64(2*i + 1); e.Value.(*big.Int).Int64() != want {
			t.Errorf("k%d = %v, want %d", i, e.Value, want)
		}
	}
}

// The text output writes a key as it is only when it is plain text: a
// newline in a key used to forge a line ("total = 999"), an escape
// sequence reached the terminal.
func TestWriteTextKeys(t *testing.T) {
	for key, want := range map[string]string{
		"total":              "total",
		"fewest high":        "fewest high",
		"n=5, ≤ 2⁶⁴":         "n=5, ≤ 2⁶⁴",
		"x\ntotal = 999\nz":  `"x\ntotal = 999\nz"`,
		"\x1b[2J\x1b[31mred": `"\x1b[2J\x1b[31mred"`,
		"a\rb":               `"a\rb"`,
		"tab\there":          `"tab\there"`,
		"\u202eevil":         `"\u202eevil"`,
		"bad \xff byte":      `"bad \xff byte"`,
		"total = 999":        `"total = 999"`,
		`"quoted"`:           `"\"quoted\""`,
		" padded":            `" padded"`,
		"padded ":            `"padded "`,
		"":                   `""`,
		`back\slash`:         `back\slash`,
	} {
		var r shard.Results
		if err := r.Emit(key, shard.Sum, I(1)); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != want+" = 1\n" {
			t.Errorf("key %q is written %q, want %q", key, got, want+" = 1\n")
		}
	}
}
