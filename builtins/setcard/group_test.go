package setcard_test

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/setcard"
	"github.com/bitsh/bitsh/internal/testscale"
)

// allSets lists every SET {x < y < z}, from the definition: every
// coordinate all equal or all different.
func allSets() [][3]setcard.Card {
	var out [][3]setcard.Card
	for x := setcard.Card(0); x < setcard.NumCards; x++ {
		for y := x + 1; y < setcard.NumCards; y++ {
			for z := y + 1; z < setcard.NumCards; z++ {
				dx, dy, dz := x.Digits(), y.Digits(), z.Digits()
				ok := true
				for i := 0; i < 4; i++ {
					same := dx[i] == dy[i] && dy[i] == dz[i]
					diff := dx[i] != dy[i] && dy[i] != dz[i] && dx[i] != dz[i]
					ok = ok && (same || diff)
				}
				if ok {
					out = append(out, [3]setcard.Card{x, y, z})
				}
			}
		}
	}
	return out
}

func TestSymmetriesAreTheGroup(t *testing.T) {
	syms := setcard.Symmetries()
	if len(syms) != 4*3*2*6*6*6*6 {
		t.Fatalf("len(Symmetries()) = %d; want 4!*3!^4", len(syms))
	}
	for c := setcard.Card(0); c < setcard.NumCards; c++ {
		if syms[0][c] != c {
			t.Fatalf("symmetry 0 maps %d to %d; want the identity", c, syms[0][c])
		}
	}
	seen := map[setcard.Symmetry]bool{}
	sets := allSets()
	if len(sets) != 1080 { // 81*80/6: each pair lies in exactly one SET
		t.Fatalf("%d SETs; want 1080", len(sets))
	}
	for i, s := range syms {
		if seen[s] {
			t.Fatalf("symmetry %d repeats an earlier one", i)
		}
		seen[s] = true
		var hit [setcard.NumCards]bool
		for _, d := range s {
			hit[d] = true
		}
		for c, ok := range hit {
			if !ok {
				t.Fatalf("symmetry %d misses card %d: not a permutation", i, c)
			}
		}
		inv := s.Inverse()
		for c := setcard.Card(0); c < setcard.NumCards; c++ {
			if inv[s[c]] != c {
				t.Fatalf("symmetry %d: Inverse does not undo it at %d", i, c)
			}
		}
		if i%97 == 0 || !testscale.Short() && i%7 == 0 {
			for _, st := range sets {
				if !setcard.IsSet(s[st[0]], s[st[1]], s[st[2]]) {
					t.Fatalf("symmetry %d maps SET %v to a non-SET", i, st)
				}
			}
		}
		// The definition, rebuilt independently: coordinate j of the image
		// is values[coords[j]] applied to digit coords[j].
		coords, values := setcard.SymmetryParts(i)
		for c := setcard.Card(0); c < setcard.NumCards; c += 13 {
			x := c.Digits()
			want := 0
			for j := 0; j < 4; j++ {
				want = want*3 + int(values[coords[j]][x[coords[j]]])
			}
			if int(s[c]) != want {
				t.Fatalf("symmetry %d: card %d -> %d; want %d", i, c, s[c], want)
			}
		}
	}
	// Closed under composition (a sample of products).
	for i := 0; i < len(syms); i += 1031 {
		for j := 0; j < len(syms); j += 2053 {
			var p setcard.Symmetry
			for c := range p {
				p[c] = syms[i][syms[j][c]]
			}
			if !seen[p] {
				t.Fatalf("symmetry %d after %d is not a symmetry", i, j)
			}
		}
	}
}

func TestSymmetryAtAndApply(t *testing.T) {
	h := setcard.HandOf(0, 1, 5, 80)
	for i := 0; i < setcard.NumSymmetries; i += 311 {
		s := setcard.SymmetryAt(i)
		g := s.Apply(h)
		var want setcard.Hand
		for _, c := range h.Cards() {
			want = want.Add(s[c])
		}
		if g != want || g.Len() != 4 {
			t.Errorf("SymmetryAt(%d).Apply(%v) = %v; want %v", i, h.Cards(), g.Cards(), want.Cards())
		}
		inv := s.Inverse()
		if back := inv.Apply(g); back != h {
			t.Errorf("inverse of symmetry %d: %v; want %v", i, back.Cards(), h.Cards())
		}
	}
}

func TestHandBasics(t *testing.T) {
	cases := []struct {
		a, b []setcard.Card
		less bool
	}{
		{[]setcard.Card{0, 1}, []setcard.Card{0, 2}, true},
		{[]setcard.Card{0, 80}, []setcard.Card{1, 2}, true},
		{[]setcard.Card{1, 2}, []setcard.Card{0, 80}, false},
		{[]setcard.Card{3, 70}, []setcard.Card{3, 70}, false},
		{[]setcard.Card{0, 64}, []setcard.Card{0, 65}, true},
		{[]setcard.Card{5, 66}, []setcard.Card{5, 64}, false},
	}
	for _, c := range cases {
		a, b := setcard.HandOf(c.a...), setcard.HandOf(c.b...)
		if got := a.Less(b); got != c.less {
			t.Errorf("HandOf(%v).Less(HandOf(%v)) = %v; want %v", c.a, c.b, got, c.less)
		}
	}
	if got := setcard.HandOf(0, 1, 2).SetFree(); got {
		t.Errorf("HandOf(0, 1, 2).SetFree() = true; want false (1111 1112 1113)")
	}
	if got := setcard.HandOf(0, 1, 3).SetFree(); !got {
		t.Errorf("HandOf(0, 1, 3).SetFree() = false; want true")
	}
}

func BenchmarkSymmetryApply(b *testing.B) {
	s := setcard.SymmetryAt(12345)
	h := setcard.HandOf(0, 1, 3, 4, 9, 10, 12, 13, 27, 28, 30, 31, 36, 37, 39, 40, 70, 71, 79, 80)
	var sink setcard.Hand
	for b.Loop() {
		sink = s.Apply(h)
	}
	_ = sink
}

func ExampleSymmetryAt() {
	s := setcard.SymmetryAt(1) // the value swap 2 <-> 3 in the last coordinate
	fmt.Println(s[0], s[1], s[2], s[3])
	// Output: 0 2 1 3
}
