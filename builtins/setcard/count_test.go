package setcard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/setcard"
	"github.com/bitsh/bitsh/internal/testscale"
)

// bruteTotals counts the SET-less k-sets, k <= 4, by looking at every
// k-subset of the deck and every triple in it.
func bruteTotals() []uint64 {
	out := make([]uint64, 5)
	out[0] = 1
	n := setcard.Card(setcard.NumCards)
	for a := setcard.Card(0); a < n; a++ {
		out[1]++
		for b := a + 1; b < n; b++ {
			out[2]++
			for c := b + 1; c < n; c++ {
				if setcard.IsSet(a, b, c) {
					continue
				}
				out[3]++
				for d := c + 1; d < n; d++ {
					if !setcard.IsSet(a, b, d) && !setcard.IsSet(a, c, d) && !setcard.IsSet(b, c, d) {
						out[4]++
					}
				}
			}
		}
	}
	return out
}

// dfsTotals counts the SET-less k-sets, k <= kmax, by a plain search that
// adds cards in increasing order and keeps the cards that would complete a
// SET.
func dfsTotals(kmax int) []uint64 {
	out := make([]uint64, kmax+1)
	var cards []setcard.Card
	var rec func(next setcard.Card, forb setcard.Hand)
	rec = func(next setcard.Card, forb setcard.Hand) {
		out[len(cards)]++
		if len(cards) == kmax {
			return
		}
		for c := next; c < setcard.NumCards; c++ {
			if forb.Has(c) {
				continue
			}
			nf := forb
			for _, a := range cards {
				nf = nf.Add(setcard.Third(a, c))
			}
			cards = append(cards, c)
			rec(c+1, nf)
			cards = cards[:len(cards)-1]
		}
	}
	rec(0, setcard.Hand{})
	return out
}

// dfs5 is dfsTotals(5), computed once.
var dfs5 = sync.OnceValue(func() []uint64 { return dfsTotals(5) })

// fullTable is Classes(21), computed once.
var fullTable = sync.OnceValues(func() ([2][]uint64, error) {
	tot, cls, err := setcard.Classes(context.Background(), 21, 0, nil)
	return [2][]uint64{tot, cls}, err
})

func TestTotalsVsBruteForce(t *testing.T) {
	want := bruteTotals()
	got, err := setcard.Totals(context.Background(), 4, 0, nil)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Totals(4) = %v, %v; want %v (all k-subsets)", got, err, want)
	}
	want = dfs5()
	got, err = setcard.Totals(context.Background(), 5, 0, nil)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Totals(5) = %v, %v; want %v (plain search)", got, err, want)
	}
}

// TestClassesVsCanon counts the classes of k-sets, k <= 3 (4 with
// BITSH_SLOW=1), as the number of distinct canonical forms. Every class
// holds a set with card 0 (the symmetries include the translations), so
// only those are canonicalised.
func TestClassesVsCanon(t *testing.T) {
	kmax := 3
	if os.Getenv("BITSH_SLOW") != "" {
		kmax = 4
	}
	want := make([]uint64, kmax+1)
	seen := map[setcard.Hand]bool{}
	var rec func(h setcard.Hand, next setcard.Card, k int)
	rec = func(h setcard.Hand, next setcard.Card, k int) {
		if c, _ := setcard.Canon(h); !seen[c] {
			seen[c] = true
			want[k]++
		}
		if k == kmax {
			return
		}
		for c := next; c < setcard.NumCards; c++ {
			if g := h.Add(c); g.SetFree() {
				rec(g, c+1, k+1)
			}
		}
	}
	want[0] = 1
	rec(setcard.HandOf(0), 1, 1)
	_, got, err := setcard.Classes(context.Background(), kmax, 0, nil)
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Classes(%d) = %v, %v; want %v (distinct Canon forms)", kmax, got, err, want)
	}
}

func TestClassesVsSearchCounts(t *testing.T) {
	kmax := 7
	if testscale.Short() {
		kmax = 6
	}
	wantC, wantT, err := setcard.SearchCounts(context.Background(), kmax, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	tot, cls, err := setcard.Classes(context.Background(), kmax, 0, nil)
	if err != nil || !slices.Equal(tot, wantT) || !slices.Equal(cls, wantC) {
		t.Errorf("Classes(%d) = %v, %v, %v; SearchCounts gives %v, %v", kmax, tot, cls, err, wantT, wantC)
	}
}

// TestFullTable computes the whole table (about a second) and checks it
// against the 20-caps found by Caps20 from one cap and the affine group,
// and against facts that need no computer.
func TestFullTable(t *testing.T) {
	tc, err := fullTable()
	if err != nil {
		t.Fatal(err)
	}
	tot, cls := tc[0], tc[1]
	caps, err := setcard.Caps20(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var n20 uint64
	for _, c := range caps {
		n20 += uint64(setcard.NumSymmetries / c.Automorphisms)
	}
	if tot[20] != n20 || cls[20] != uint64(len(caps)) {
		t.Errorf("total[20], classes[20] = %d, %d; Caps20 gives %d, %d", tot[20], cls[20], n20, len(caps))
	}
	if tot[21] != 0 || cls[21] != 0 {
		t.Errorf("total[21], classes[21] = %d, %d; want 0, 0 (Pellegrino)", tot[21], cls[21])
	}
	for k := 1; k <= 20; k++ {
		if tot[k] == 0 || cls[k] == 0 || cls[k] > tot[k] || cls[k]*setcard.NumSymmetries < tot[k] {
			t.Errorf("k = %d: total %d, classes %d: want 0 < total/31104 <= classes <= total", k, tot[k], cls[k])
		}
	}
	// Known values, in addition: the canonical sets Knuth's
	// program visits (all sizes, the empty set included), and its k = 20
	// line.
	var sum uint64
	for _, c := range cls {
		sum += c
	}
	if sum != 514488890 || tot[20] != 682344 || cls[20] != 80 {
		t.Errorf("sum of classes = %d, total[20] = %d, classes[20] = %d; want 514488890, 682344, 80", sum, tot[20], cls[20])
	}
	// The identity's column does not depend on the slice-permutation
	// shortcut (every order of slice sizes counted); slower, so only with
	// BITSH_SLOW=1 for the whole table.
	kmax := 7
	if os.Getenv("BITSH_SLOW") != "" {
		kmax = 21
	}
	all, err := setcard.FixCountsForTest(context.Background(), kmax, 0, setcard.CountOptions{IdentityOnly: true, AllOrders: true})
	if err != nil || !slices.Equal(all[0], tot[:kmax+1]) {
		t.Errorf("totals with every order of slice sizes = %v, %v; want %v", all, err, tot[:kmax+1])
	}
}

// conjugacyClasses computes the conjugacy classes of the symmetries by
// closing each element under conjugation by a generating set; it returns
// the class number of each symmetry.
func conjugacyClasses(t *testing.T) []int {
	all := setcard.Symmetries()
	num := make(map[setcard.Symmetry]int, len(all))
	for i, s := range all {
		num[s] = i
	}
	compose := func(a, b *setcard.Symmetry) (c setcard.Symmetry) { // a after b
		for x := range c {
			c[x] = a[b[x]]
		}
		return c
	}
	// Generators: swap x1 and x2, cycle the coordinates, swap two values
	// of x1, cycle the values of x1. They generate the whole group.
	find := func(coords [4]uint8, v0 [3]uint8) setcard.Symmetry {
		for i := range all {
			c, v := setcard.SymmetryParts(i)
			if c == coords && v[0] == v0 && v[1] == [3]uint8{0, 1, 2} && v[2] == v[1] && v[3] == v[1] {
				return all[i]
			}
		}
		t.Fatalf("no symmetry %v %v", coords, v0)
		return setcard.Symmetry{}
	}
	gens := []setcard.Symmetry{
		find([4]uint8{1, 0, 2, 3}, [3]uint8{0, 1, 2}),
		find([4]uint8{1, 2, 3, 0}, [3]uint8{0, 1, 2}),
		find([4]uint8{0, 1, 2, 3}, [3]uint8{1, 0, 2}),
		find([4]uint8{0, 1, 2, 3}, [3]uint8{1, 2, 0}),
	}
	// The generated group is everything.
	reached := map[setcard.Symmetry]bool{all[0]: true}
	queue := []setcard.Symmetry{all[0]}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for i := range gens {
			if n := compose(&gens[i], &s); !reached[n] {
				reached[n] = true
				queue = append(queue, n)
			}
		}
	}
	if len(reached) != setcard.NumSymmetries {
		t.Fatalf("generators give %d symmetries; want %d", len(reached), setcard.NumSymmetries)
	}
	inv := make([]setcard.Symmetry, len(gens))
	for i := range gens {
		inv[i] = gens[i].Inverse()
	}
	class := make([]int, len(all))
	for i := range class {
		class[i] = -1
	}
	n := 0
	for i := range all {
		if class[i] >= 0 {
			continue
		}
		class[i] = n
		queue := []int{i}
		for len(queue) > 0 {
			s := all[queue[0]]
			queue = queue[1:]
			for j := range gens {
				c := compose(&gens[j], &s)
				c = compose(&c, &inv[j])
				if m := num[c]; class[m] < 0 {
					class[m] = n
					queue = append(queue, m)
				}
			}
		}
		n++
	}
	return class
}

func TestSymClassesAreConjugacyClasses(t *testing.T) {
	class := conjugacyClasses(t)
	cls := setcard.SymClassesForTest()
	if len(cls) != 51 {
		t.Errorf("%d classes; want 51 (the 3-coloured partitions of 4)", len(cls))
	}
	// Each true class has one key, each key one true class, and the class
	// of each representative has the recorded size.
	keyOf := map[int][4][3]uint8{}
	classOf := map[[4][3]uint8]int{}
	size := map[int]uint64{}
	for i, c := range class {
		k := setcard.ClassKeyForTest(i)
		if old, ok := keyOf[c]; ok && old != k {
			t.Fatalf("symmetry %d: key %v, but its class has key %v", i, k, old)
		}
		if old, ok := classOf[k]; ok && old != c {
			t.Fatalf("symmetry %d: key %v is shared by classes %d and %d", i, k, old, c)
		}
		keyOf[c], classOf[k] = k, c
		size[c]++
	}
	var sum uint64
	for i, c := range cls {
		sum += c.Size
		if got := size[class[c.Rep]]; got != c.Size {
			t.Errorf("class %d (rep %d): size %d; conjugation gives %d", i, c.Rep, c.Size, got)
		}
		if i == 0 && c.Rep != 0 {
			t.Errorf("class 0 has rep %d; want the identity", c.Rep)
		}
		// The slice method's map of AG(3,3) (the cards 0..26) is a
		// permutation that maps SETs to SETs, with as many fixed points
		// as the representative has fixed cards, divided by 3.
		if c.Slice {
			seen := map[uint8]bool{}
			fixedH, fixedG := 0, 0
			for y, z := range c.H {
				seen[z] = true
				if int(z) == y {
					fixedH++
				}
			}
			g := setcard.SymmetryAt(c.Rep)
			for x, y := range g {
				if int(y) == x {
					fixedG++
				}
			}
			if len(seen) != 27 || fixedG != 3*fixedH {
				t.Errorf("class %d: h = %v (%d fixed points; g has %d)", i, c.H, fixedH, fixedG)
			}
			for a := range setcard.Card(27) {
				for b := range a {
					z := setcard.Third(a, b)
					if setcard.Third(setcard.Card(c.H[a]), setcard.Card(c.H[b])) != setcard.Card(c.H[z]) {
						t.Fatalf("class %d: h = %v breaks the SET %d, %d, %d", i, c.H, a, b, z)
					}
				}
			}
		}
	}
	if sum != setcard.NumSymmetries {
		t.Errorf("class sizes sum to %d; want %d", sum, setcard.NumSymmetries)
	}
}

// TestFixCountsByCycles checks each class's count of fixed sets, by the
// slice method or the cycle search, against the cycle search on other
// members of the class, and the slice method without its shortcut.
func TestFixCountsByCycles(t *testing.T) {
	const kmax = 5
	ctx := context.Background()
	fix, err := setcard.FixCountsForTest(ctx, kmax, 0, setcard.CountOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := setcard.FixCountsForTest(ctx, kmax, 0, setcard.CountOptions{AllOrders: true})
	if err != nil {
		t.Fatal(err)
	}
	want := dfs5()
	cls := setcard.SymClassesForTest()
	members := map[[4][3]uint8][]int{}
	for i := 0; i < setcard.NumSymmetries; i++ {
		k := setcard.ClassKeyForTest(i)
		members[k] = append(members[k], i)
	}
	rng := rand.New(rand.NewPCG(4, 81))
	for i, c := range cls {
		if !slices.Equal(fix[i], all[i]) {
			t.Errorf("class %d: fixed sets %v; with every order of slice sizes %v", i, fix[i], all[i])
		}
		if i == 0 {
			if !slices.Equal(fix[0], want) {
				t.Errorf("identity: %v; plain search gives %v", fix[0], want)
			}
			continue
		}
		m := members[setcard.ClassKeyForTest(c.Rep)]
		for _, s := range []int{c.Rep, m[rng.IntN(len(m))], m[rng.IntN(len(m))]} {
			if got := setcard.CycleFixForTest(s, kmax); !slices.Equal(got, fix[i]) {
				t.Errorf("class %d (slice %v): symmetry %d fixes %v; the class count is %v", i, c.Slice, s, got, fix[i])
			}
		}
	}
}

// TestSliceVsCycles compares, for every class but the identity's, the
// counts by the slice method (in the coordinates sliceOf finds) with the
// search over the representative's cycles, up to 7 cards (11 with
// BITSH_SLOW=1).
func TestSliceVsCycles(t *testing.T) {
	kmax := 7
	if os.Getenv("BITSH_SLOW") != "" {
		kmax = 11 // the cycle search for one value transposition is slow beyond
	}
	ctx := context.Background()
	fix, err := setcard.FixCountsForTest(ctx, kmax, 0, setcard.CountOptions{SkipIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	cyc, err := setcard.FixCountsForTest(ctx, kmax, 0, setcard.CountOptions{SkipIdentity: true, CyclesOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range setcard.SymClassesForTest() {
		if !slices.Equal(fix[i], cyc[i]) {
			t.Errorf("class %d (slice %v): %v; by its cycles %v", i, c.Slice, fix[i], cyc[i])
		}
	}
}

func TestSameForAnyWorkers(t *testing.T) {
	const kmax = 12
	ctx := context.Background()
	tc, err := fullTable()
	if err != nil {
		t.Fatal(err)
	}
	t1, c1 := tc[0][:kmax+1], tc[1][:kmax+1]
	for _, w := range []int{1, 3} {
		t2, c2, err := setcard.Classes(ctx, kmax, w, nil)
		if err != nil || !slices.Equal(t1, t2) || !slices.Equal(c1, c2) {
			t.Errorf("Classes(%d, workers %d) = %v, %v, %v; with 1 worker %v, %v", kmax, w, t2, c2, err, t1, c1)
		}
	}
	t3, err := setcard.Totals(ctx, kmax, 2, nil)
	if err != nil || !slices.Equal(t1, t3) {
		t.Errorf("Totals(%d) = %v, %v; Classes gives %v", kmax, t3, err, t1)
	}
}

func TestCountArguments(t *testing.T) {
	ctx := context.Background()
	for _, kmax := range []int{-1, setcard.NumCards + 1} {
		if got, err := setcard.Totals(ctx, kmax, 0, nil); err == nil {
			t.Errorf("Totals(%d) = %v; want an error", kmax, got)
		}
		if _, _, err := setcard.Classes(ctx, kmax, 0, nil); err == nil {
			t.Errorf("Classes(%d): want an error", kmax)
		}
	}
	if tot, err := setcard.Totals(ctx, setcard.NumCards, 0, nil); err != nil || len(tot) != setcard.NumCards+1 || tot[setcard.MaxSetFree] == 0 || slices.ContainsFunc(tot[setcard.MaxSetFree+1:], func(x uint64) bool { return x != 0 }) {
		t.Errorf("Totals(%d) = %v, %v", setcard.NumCards, tot, err)
	}
	for _, kmax := range []int{0, 1, 2} {
		tot, cls, err := setcard.Classes(ctx, kmax, 0, nil)
		if err != nil || len(tot) != kmax+1 || len(cls) != kmax+1 || tot[0] != 1 || cls[0] != 1 {
			t.Errorf("Classes(%d) = %v, %v, %v", kmax, tot, cls, err)
			continue
		}
	}
}

// TestCountStops cancels before and during a run: the error wraps
// context.Canceled and no goroutine is left behind.
func TestCountStops(t *testing.T) {
	base := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := setcard.Totals(ctx, 20, 2, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Totals with a cancelled context: %v; want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	calls := 0
	_, _, err := setcard.Classes(ctx, 20, 2, func(done, total int64) {
		if calls++; done > total || done < 1 {
			t.Errorf("progress(%d, %d)", done, total)
		}
		cancel()
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Classes cancelled at the first progress report: %v; want context.Canceled", err)
	}
	if calls != 1 {
		t.Errorf("progress called %d times after cancellation; want 1", calls)
	}
	for i := 0; runtime.NumGoroutine() > base && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		t.Errorf("%d goroutines left; %d before", n, base)
	}
}

func TestProgress(t *testing.T) {
	var last, lastTotal int64
	_, _, err := setcard.Classes(context.Background(), 10, 2, func(done, total int64) {
		if done != last+1 || total < lastTotal || done > total {
			t.Errorf("progress(%d, %d) after (%d, %d)", done, total, last, lastTotal)
		}
		last, lastTotal = done, total
	})
	if err != nil || last != lastTotal || last == 0 {
		t.Errorf("Classes(10): %v; progress ended at %d of %d", err, last, lastTotal)
	}
}

// FuzzFixCount checks that any symmetry fixes as many small SET-less sets
// as its class's representative (what Burnside's sum assumes).
func FuzzFixCount(f *testing.F) {
	fix, err := setcard.FixCountsForTest(context.Background(), 5, 0, setcard.CountOptions{})
	if err != nil {
		f.Fatal(err)
	}
	cls := setcard.SymClassesForTest()
	classOf := map[[4][3]uint8]int{}
	for i, c := range cls {
		classOf[setcard.ClassKeyForTest(c.Rep)] = i
	}
	f.Add(uint16(1), uint8(5))
	f.Add(uint16(31103), uint8(4))
	f.Add(uint16(7777), uint8(3))
	f.Fuzz(func(t *testing.T, sym uint16, kmax uint8) {
		i := int(sym) % setcard.NumSymmetries
		if i == 0 {
			return // the identity's count is the totals, tested above
		}
		k := int(kmax) % 6
		c := classOf[setcard.ClassKeyForTest(i)]
		if got := setcard.CycleFixForTest(i, k); !slices.Equal(got, fix[c][:k+1]) {
			t.Errorf("symmetry %d fixes %v; its class %d: %v", i, got, c, fix[c][:k+1])
		}
	})
}

var sinkCounts []uint64

func BenchmarkTotals(b *testing.B) {
	for _, kmax := range []int{8, 20} {
		b.Run(fmt.Sprintf("kmax=%d", kmax), func(b *testing.B) {
			for b.Loop() {
				t, err := setcard.Totals(context.Background(), kmax, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				sinkCounts = t
			}
		})
	}
}

func BenchmarkClasses(b *testing.B) {
	for _, kmax := range []int{8, 20} {
		b.Run(fmt.Sprintf("kmax=%d", kmax), func(b *testing.B) {
			for b.Loop() {
				_, c, err := setcard.Classes(context.Background(), kmax, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				sinkCounts = c
			}
		})
	}
}

// BenchmarkBurnside is the counting of fixed sets for the 50 classes other
// than the identity's (about Classes minus Totals).
func BenchmarkBurnside(b *testing.B) {
	for b.Loop() {
		fix, err := setcard.FixCountsForTest(context.Background(), 20, 0, setcard.CountOptions{SkipIdentity: true})
		if err != nil {
			b.Fatal(err)
		}
		sinkCounts = fix[1]
	}
}

func ExampleClasses() {
	totals, classes, err := setcard.Classes(context.Background(), 5, 0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for k := range totals {
		fmt.Printf("%d cards: %d SET-less sets, %d up to symmetry\n", k, totals[k], classes[k])
	}
	// Output:
	// 0 cards: 1 SET-less sets, 1 up to symmetry
	// 1 cards: 81 SET-less sets, 1 up to symmetry
	// 2 cards: 3240 SET-less sets, 4 up to symmetry
	// 3 cards: 84240 SET-less sets, 16 up to symmetry
	// 4 cards: 1579500 SET-less sets, 128 up to symmetry
	// 5 cards: 22441536 SET-less sets, 1015 up to symmetry
}

func ExampleTotals() {
	totals, err := setcard.Totals(context.Background(), 21, 0, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(totals[3], totals[12], totals[20], totals[21])
	// Output:
	// 84240 2284535476080 682344 0
}
