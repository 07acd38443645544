package setcard_test

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/setcard"
	"github.com/bitsh/bitsh/internal/testscale"
)

type class struct {
	h    setcard.Hand
	auts int
}

// oracleClasses returns the canonical SET-less k-sets for k <= kmax by
// brute force: every k-set is an image of (a (k-1)-set plus one card), so
// the canonical forms of all SET-less one-card extensions of the
// (k-1)-classes are all the k-classes. Sorted with the test's own
// lexicographic comparison of sorted card lists.
func oracleClasses(kmax int) [][]class {
	out := [][]class{{{setcard.Hand{}, setcard.NumSymmetries}}}
	for k := 1; k <= kmax; k++ {
		seen := map[setcard.Hand]int{}
		for _, c := range out[k-1] {
			for x := setcard.Card(0); x < setcard.NumCards; x++ {
				h := c.h.Add(x)
				if h == c.h || !setFreeNaive(h) {
					continue
				}
				canon, auts := bruteCanonFast(h)
				seen[canon] = auts
			}
		}
		var cl []class
		for h, a := range seen {
			cl = append(cl, class{h, a})
		}
		slices.SortFunc(cl, func(a, b class) int { return lexCompare(a.h.Cards(), b.h.Cards()) })
		out = append(out, cl)
	}
	return out
}

// bruteCanonFast is bruteCanon for the oracle's many calls: Canon is
// checked against bruteCanon elsewhere, so here only small k use the full
// brute force and larger ones trust Canon.
func bruteCanonFast(h setcard.Hand) (setcard.Hand, int) {
	if h.Len() <= 3 {
		return bruteCanon(h)
	}
	return setcard.Canon(h)
}

func setFreeNaive(h setcard.Hand) bool {
	cs := h.Cards()
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			for k := j + 1; k < len(cs); k++ {
				if setcard.IsSet(cs[i], cs[j], cs[k]) {
					return false
				}
			}
		}
	}
	return true
}

func collect(t testing.TB, k, workers int) []class {
	var out []class
	err := setcard.Search(context.Background(), k, workers, nil, func(h setcard.Hand, auts int) error {
		out = append(out, class{h, auts})
		return nil
	})
	if err != nil {
		t.Fatalf("Search(%d, workers=%d): %v", k, workers, err)
	}
	return out
}

func TestSearchVsOracle(t *testing.T) {
	kmax := 5
	if testscale.Short() {
		kmax = 4
	}
	oracle := oracleClasses(kmax)
	for k := 0; k <= kmax; k++ {
		got := collect(t, k, 2)
		if !slices.Equal(got, oracle[k]) {
			t.Errorf("Search(%d): %d classes; want %d (the brute-force oracle's)", k, len(got), len(oracle[k]))
			for i := 0; i < len(got) && i < len(oracle[k]); i++ {
				if got[i] != oracle[k][i] {
					t.Fatalf("first difference at %d: %v (%d); want %v (%d)", i, got[i].h.Cards(), got[i].auts, oracle[k][i].h.Cards(), oracle[k][i].auts)
				}
			}
		}
	}
}

func TestSearchTotalsByDefinition(t *testing.T) {
	_, totals, err := setcard.SearchCounts(context.Background(), 3, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Counted from the definition: all k-sets minus those with a SET.
	want := []uint64{1, 81, 81 * 80 / 2, 81*80*79/6 - uint64(len(allSets()))}
	if !slices.Equal(totals, want) {
		t.Errorf("SearchCounts(3) totals = %v; want %v", totals, want)
	}
}

func digest(cl []class) string {
	f := fnv.New64a()
	for _, c := range cl {
		fmt.Fprint(f, c.h, c.auts)
	}
	return fmt.Sprintf("%d:%x", len(cl), f.Sum64())
}

func TestSearchSameForAnyWorkers(t *testing.T) {
	k := 7
	if testscale.Short() {
		k = 6
	}
	want := collect(t, k, 1)
	for i := 1; i < len(want); i++ {
		if !want[i-1].h.Less(want[i].h) {
			t.Fatalf("Search(%d): %v then %v: not ascending", k, want[i-1].h.Cards(), want[i].h.Cards())
		}
	}
	for _, c := range want[:50] {
		if canon, auts := setcard.Canon(c.h); canon != c.h || auts != c.auts || !c.h.SetFree() {
			t.Fatalf("Search(%d) gave %v (%d auts); Canon says %v (%d)", k, c.h.Cards(), c.auts, canon.Cards(), auts)
		}
	}
	for _, w := range []int{2, 3, 8} {
		if got := collect(t, k, w); digest(got) != digest(want) {
			t.Errorf("Search(%d, workers=%d) = %s; want %s as with 1 worker", k, w, digest(got), digest(want))
		}
	}
	classes, totals, err := setcard.SearchCounts(context.Background(), k, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tot uint64
	for _, c := range want {
		tot += uint64(setcard.NumSymmetries / c.auts)
	}
	if classes[k] != uint64(len(want)) || totals[k] != tot {
		t.Errorf("SearchCounts(%d)[%d] = %d, %d; want %d, %d from Search", k, k, classes[k], totals[k], len(want), tot)
	}
	c1, t1, err := setcard.SearchCounts(context.Background(), k, 1, nil)
	if err != nil || !slices.Equal(c1, classes) || !slices.Equal(t1, totals) {
		t.Errorf("SearchCounts(%d) with 1 worker = %v, %v, %v; with 3: %v, %v", k, c1, t1, err, classes, totals)
	}
}

func TestSearchStops(t *testing.T) {
	stop := errors.New("enough")
	for _, w := range []int{1, 2} {
		n := 0
		err := setcard.Search(context.Background(), 8, w, nil, func(setcard.Hand, int) error {
			n++
			if n == 10 {
				return stop
			}
			return nil
		})
		if err != stop || n != 10 {
			t.Errorf("Search(8, workers=%d) with fn failing at call 10: %v after %d calls; want %v after 10", w, err, n, stop)
		}
	}
	for _, w := range []int{1, 2} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := setcard.Search(ctx, 14, w, nil, func(setcard.Hand, int) error { return nil })
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Search(14, workers=%d) with a 20ms deadline: %v; want DeadlineExceeded", w, err)
		}
		ctx, cancel = context.WithTimeout(context.Background(), 20*time.Millisecond)
		_, _, err = setcard.SearchCounts(ctx, 20, w, nil)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("SearchCounts(20, workers=%d) with a 20ms deadline: %v; want DeadlineExceeded", w, err)
		}
	}
	if err := setcard.Search(context.Background(), -1, 1, nil, nil); err == nil {
		t.Errorf("Search(-1) succeeded; want an error")
	}
	if err := setcard.Search(context.Background(), 21, 1, nil, func(setcard.Hand, int) error { return stop }); err != nil {
		t.Errorf("Search(21) = %v; want no sets and no error", err)
	}
}

func TestCaps20(t *testing.T) {
	cl, err := setcard.Caps20(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var total uint64
	for i, c := range cl {
		if c.Cards.Len() != 20 || !setFreeNaive(c.Cards) {
			t.Fatalf("Caps20()[%d] = %v: not a SET-less 20-set", i, c.Cards.Cards())
		}
		if canon, auts := setcard.Canon(c.Cards); canon != c.Cards || auts != c.Automorphisms {
			t.Fatalf("Caps20()[%d] = %v (%d); Canon gives %v (%d)", i, c.Cards.Cards(), c.Automorphisms, canon.Cards(), auts)
		}
		if i > 0 && lexCompare(cl[i-1].Cards.Cards(), c.Cards.Cards()) >= 0 {
			t.Fatalf("Caps20() not ascending at %d", i)
		}
		total += uint64(setcard.NumSymmetries / c.Automorphisms)
	}
	// Known values (Knuth's output and the literature), checked in
	// addition to the structure above; the count of all 20-caps is
	// compared with the Burnside kernel in count tests.
	if len(cl) != 80 || total != 682344 {
		t.Errorf("Caps20: %d classes, %d sets; want 80, 682344", len(cl), total)
	}
}

// FuzzSearch checks that the canonical form of any SET-less hand of up to
// five cards is among the classes Search finds, with the same automorphisms.
func FuzzSearch(f *testing.F) {
	byK := map[int]map[setcard.Hand]int{}
	for k := 0; k <= 5; k++ {
		byK[k] = map[setcard.Hand]int{}
		for _, c := range collect(f, k, 1) {
			byK[k][c.h] = c.auts
		}
	}
	f.Add(uint64(0), uint64(0), uint64(0), uint64(0), uint64(0))
	f.Add(uint64(5), uint64(17), uint64(80), uint64(42), uint64(3))
	f.Fuzz(func(t *testing.T, a, b, c, d, e uint64) {
		var h setcard.Hand
		for _, x := range []uint64{a, b, c, d, e} {
			if x < setcard.NumCards {
				h = h.Add(setcard.Card(x))
			}
		}
		if !setFreeNaive(h) {
			return
		}
		canon, auts := bruteCanon(h)
		if got, ok := byK[h.Len()][canon]; !ok || got != auts {
			t.Fatalf("canonical form %v of %v (%d auts): Search gave %v, %v", canon.Cards(), h.Cards(), auts, got, ok)
		}
	})
}

func BenchmarkSearch(b *testing.B) {
	for _, k := range []int{5, 6, 7} {
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			n := 0
			for b.Loop() {
				n = 0
				_ = setcard.Search(context.Background(), k, 1, nil, func(setcard.Hand, int) error { n++; return nil })
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/class")
		})
	}
}

func ExampleSearch() {
	// The canonical SET-less 2-sets: card 0 with a card differing from it
	// in 1, 2, 3 or 4 coordinates.
	_ = setcard.Search(context.Background(), 2, 1, nil, func(h setcard.Hand, auts int) error {
		fmt.Println(h.Cards(), auts, setcard.NumSymmetries/auts)
		return nil
	})
	// Output:
	// [0 1] 96 324
	// [0 4] 32 972
	// [0 13] 24 1296
	// [0 40] 48 648
}

// TestSearchMatchesBurnside cross-checks the canonical search and the
// affine route against the counting kernels (Burnside's lemma, a different
// method): classes[k] and total[k] for small k from the search, and
// classes[20], total[20] from Caps20. That Caps20's classes account for all
// total[20] SET-less 20-sets shows that every 20-set is an affine image of
// one of them, i.e. all maximal caps are affinely equivalent.
func TestSearchMatchesBurnside(t *testing.T) {
	k := 7
	kmax := setcard.MaxSetFree
	if testscale.Short() {
		k, kmax = 6, 6
	}
	totals, classes, err := setcard.Classes(context.Background(), kmax, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, st, err := setcard.SearchCounts(context.Background(), k, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sc, classes[:k+1]) || !slices.Equal(st, totals[:k+1]) {
		t.Errorf("SearchCounts(%d) = %v, %v; Classes gives %v, %v", k, sc, st, classes[:k+1], totals[:k+1])
	}
	if kmax < setcard.MaxSetFree {
		return
	}
	cl, err := setcard.Caps20(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sum uint64
	for _, c := range cl {
		sum += uint64(setcard.NumSymmetries / c.Automorphisms)
	}
	if uint64(len(cl)) != classes[20] || sum != totals[20] {
		t.Errorf("Caps20: %d classes, %d sets; Classes(20) gives %d, %d", len(cl), sum, classes[20], totals[20])
	}
}

func ExampleSearchCounts() {
	classes, totals, _ := setcard.SearchCounts(context.Background(), 4, 2, nil)
	fmt.Println(classes)
	fmt.Println(totals)
	// Output:
	// [1 1 4 16 128]
	// [1 81 3240 84240 1579500]
}

func ExampleCaps20() {
	cl, _ := setcard.Caps20(context.Background())
	var total int
	for _, c := range cl {
		total += setcard.NumSymmetries / c.Automorphisms
	}
	fmt.Println(len(cl), "classes of", total, "SET-less 20-sets; the first:")
	fmt.Println(cl[0].Cards.Cards(), cl[0].Automorphisms)
	// Output:
	// 80 classes of 682344 SET-less 20-sets; the first:
	// [0 1 3 4 9 10 12 13 27 28 32 35 38 47 59 65 66 67 71 77] 8
}
