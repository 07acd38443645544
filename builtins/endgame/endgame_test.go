package endgame_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/endgame"
)

func layout(t testing.TB, n int, m endgame.Numbering) endgame.Layout {
	t.Helper()
	l, err := endgame.NewLayout(n, m)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSymmetricTable(t *testing.T) {
	// the puzzle's anchors, as the puzzle gives them.
	for _, c := range []struct {
		name string
		sq   int
	}{{"a1", 0o60}, {"e4", 0o73}, {"h8", 0o66}, {"b1", 0o00}, {"a2", 0o01}, {"d4", 0o71}} {
		if got, ok := endgame.Square(c.name, endgame.Symmetric); !ok || got != c.sq {
			t.Errorf("Square(%q, symmetric) = %#o, %v; want %#o", c.name, got, ok, c.sq)
		}
	}
	for sq := 0; sq < 64; sq++ {
		want := refSym[sq]
		f, r := endgame.FileRank(sq, endgame.Symmetric)
		if (fr{f, r}) != want {
			t.Errorf("FileRank(%#o, symmetric) = (%d, %d); first principles say (%d, %d)", sq, f, r, want.f, want.r)
		}
	}
	if len(refSymOf) != 64 {
		t.Fatalf("first-principles numbering covers %d squares, want 64", len(refSymOf))
	}
}

func TestRoundTrips(t *testing.T) {
	for _, m := range endgame.Numberings() {
		seen := map[int]bool{}
		for file := 0; file < 8; file++ {
			for rank := 0; rank < 8; rank++ {
				sq := endgame.SquareAt(file, rank, m)
				if f, r := endgame.FileRank(sq, m); f != file || r != rank {
					t.Errorf("%v: FileRank(SquareAt(%d, %d)) = (%d, %d)", m, file, rank, f, r)
				}
				seen[sq] = true
				name := string(rune('a'+file)) + string(rune('1'+rank))
				if got := endgame.SquareName(sq, m); got != name {
					t.Errorf("%v: SquareName(%#o) = %q; want %q", m, sq, got, name)
				}
				if got, ok := endgame.Square(name, m); !ok || got != sq {
					t.Errorf("%v: Square(%q) = %#o, %v; want %#o", m, name, got, ok, sq)
				}
			}
		}
		if len(seen) != 64 {
			t.Errorf("%v numbers %d distinct squares, want 64", m, len(seen))
		}
	}
	if sq, _ := endgame.Square("e4", endgame.Natural); sq != 28 {
		t.Errorf("Square(e4, natural) = %d; want 28", sq)
	}
	for _, bad := range []string{"", "e", "e9", "i1", "e0", "E4", "e44", " e4"} {
		if _, ok := endgame.Square(bad, endgame.Natural); ok {
			t.Errorf("Square(%q) ok; want not ok", bad)
		}
	}
}

func TestNumbering(t *testing.T) {
	for _, m := range endgame.Numberings() {
		if got, ok := endgame.ParseNumbering(m.String()); !ok || got != m {
			t.Errorf("ParseNumbering(%q) = %v, %v", m.String(), got, ok)
		}
	}
	if _, ok := endgame.ParseNumbering("Natural"); ok {
		t.Error(`ParseNumbering("Natural") ok`)
	}
	if _, err := endgame.NewLayout(2, endgame.Numbering(7)); err == nil {
		t.Error("NewLayout with numbering 7: no error")
	}
}

func TestPack(t *testing.T) {
	for _, c := range []struct {
		squares []int
		want    uint64
	}{
		{[]int{0o52, 0o46}, 0o4562}, // the packed-index flip puzzle
		{[]int{0}, 0},
		{[]int{63}, 0o77},
		{[]int{0o12, 0o34, 0o56}, 0o531642},
		{[]int{63, 63, 63, 63, 63, 63, 63, 63, 63, 63}, 1<<60 - 1},
	} {
		got, err := endgame.Pack(c.squares)
		if err != nil || got != c.want {
			t.Errorf("Pack(%o) = %#o, %v; want %#o", c.squares, got, err, c.want)
		}
		if back := endgame.Unpack(got, len(c.squares)); !equal(back, c.squares) {
			t.Errorf("Unpack(%#o, %d) = %o; want %o", got, len(c.squares), back, c.squares)
		}
	}
	for _, c := range []struct {
		squares []int
		err     string
	}{
		{nil, "len(squares) = 0 is not in 1..10"},
		{make([]int, 11), "len(squares) = 11 is not in 1..10"},
		{[]int{1, 64}, "squares[1] = 64 is not a square 0..63"},
		{[]int{-1}, "squares[0] = -1 is not a square 0..63"},
	} {
		if _, err := endgame.Pack(c.squares); err == nil || err.Error() != c.err {
			t.Errorf("Pack(%v) error = %v; want %q", c.squares, err, c.err)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		sq := make([]int, 1+r.IntN(10))
		for j := range sq {
			sq[j] = r.IntN(64)
		}
		x, err := endgame.Pack(sq)
		if err != nil || endgame.Check(x, len(sq)) != nil || !equal(endgame.Unpack(x, len(sq)), sq) {
			t.Fatalf("Pack/Unpack round trip of %o: %#o, %v", sq, x, err)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct {
		index uint64
		n     int
		err   string
	}{
		{0o77, 1, ""},
		{0o100, 1, "index = 0o100 has bits at or above bit 6n = 6"},
		{1<<60 - 1, 10, ""},
		{1 << 60, 10, "index = 0o100000000000000000000 has bits at or above bit 6n = 60"},
		{0, 0, "n = 0 is not in 1..10"},
		{0, 11, "n = 11 is not in 1..10"},
		{0, -1, "n = -1 is not in 1..10"},
	} {
		err := endgame.Check(c.index, c.n)
		if got := errString(err); got != c.err {
			t.Errorf("Check(%#o, %d) = %q; want %q", c.index, c.n, got, c.err)
		}
	}
	if _, err := endgame.NewLayout(11, endgame.Natural); errString(err) != "n = 11 is not in 1..10" {
		t.Errorf("NewLayout(11) error = %v", err)
	}
}

// checkAll compares every symmetry of index, and each flip method, with the
// per-piece reference.
func checkAll(t *testing.T, l endgame.Layout, index uint64) {
	t.Helper()
	n, m := l.N(), l.Numbering()
	imgs := l.Symmetries(index)
	least := index
	for k := range imgs {
		want := refImage(index, n, m, k)
		if imgs[k] != want {
			t.Fatalf("%v n=%d: Symmetries(%#o)[%s] = %#o; want %#o", m, n, index, endgame.SymmetryName(k), imgs[k], want)
		}
		least = min(least, want)
	}
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"FlipHorizontal", l.FlipHorizontal(index), imgs[endgame.FlipHorizontal]},
		{"FlipVertical", l.FlipVertical(index), imgs[endgame.FlipVertical]},
		{"FlipDiag", l.FlipDiag(index), imgs[endgame.FlipDiag]},
		{"Rotate180", l.Rotate180(index), imgs[endgame.Rotate180]},
		{"Canonical", l.Canonical(index), least},
	} {
		if c.got != c.want {
			t.Fatalf("%v n=%d: %s(%#o) = %#o; want %#o", m, n, c.name, index, c.got, c.want)
		}
	}
}

// TestFlipsExhaustive checks every index of 1 and 2 pieces in both
// numberings under all 8 symmetries against the per-piece reference.
func TestFlipsExhaustive(t *testing.T) {
	for _, m := range endgame.Numberings() {
		for n := 1; n <= 2; n++ {
			l := layout(t, n, m)
			for x := uint64(0); x < 1<<(6*n); x++ {
				checkAll(t, l, x)
			}
		}
	}
}

func TestFlipsRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range endgame.Numberings() {
		for n := 3; n <= endgame.MaxPieces; n++ {
			l := layout(t, n, m)
			checkAll(t, l, 1<<(6*n)-1)
			for i := 0; i < 3000; i++ {
				checkAll(t, l, r.Uint64()>>(64-6*n))
			}
		}
	}
}

// TestRotationSense pins what "rotate 90 clockwise" means: seen from White,
// the piece on a1 moves to a8, a8 to h8, h8 to h1, h1 to a1.
func TestRotationSense(t *testing.T) {
	for _, m := range endgame.Numberings() {
		l := layout(t, 1, m)
		for _, c := range []struct {
			k        int
			from, to string
		}{
			{endgame.RotateCW, "a1", "a8"}, {endgame.RotateCW, "a8", "h8"},
			{endgame.RotateCW, "h8", "h1"}, {endgame.RotateCW, "h1", "a1"},
			{endgame.RotateCW, "b1", "a7"}, {endgame.RotateACW, "a1", "h1"},
			{endgame.RotateACW, "b1", "h2"}, {endgame.FlipDiag, "b1", "a2"},
			{endgame.FlipAnti, "a1", "h8"}, {endgame.FlipAnti, "b1", "h7"},
			{endgame.FlipHorizontal, "a1", "a8"}, {endgame.FlipVertical, "a1", "h1"},
			{endgame.Rotate180, "b1", "g8"},
		} {
			from, _ := endgame.Square(c.from, m)
			x, _ := endgame.Pack([]int{from})
			got := endgame.SquareName(int(l.Symmetries(x)[c.k]), m)
			if got != c.to {
				t.Errorf("%v: %s(%s) = %s; want %s", m, endgame.SymmetryName(c.k), c.from, got, c.to)
			}
		}
	}
}

// TestGroupLaws checks the group of the square on random indices: the
// flips are involutions, rotating 90 degrees four times is the identity,
// the rotations and flip_anti are the compositions the group says, and
// canonical is the same for every image.
func TestGroupLaws(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, m := range endgame.Numberings() {
		for n := 1; n <= endgame.MaxPieces; n++ {
			l := layout(t, n, m)
			img := func(x uint64, k int) uint64 { return l.Symmetries(x)[k] }
			for i := 0; i < 300; i++ {
				x := r.Uint64() >> (64 - 6*n)
				fail := func(law string, got, want uint64) {
					if got != want {
						t.Fatalf("%v n=%d x=%#o: %s: got %#o, want %#o", m, n, x, law, got, want)
					}
				}
				fail("H(H(x)) = x", l.FlipHorizontal(l.FlipHorizontal(x)), x)
				fail("V(V(x)) = x", l.FlipVertical(l.FlipVertical(x)), x)
				fail("D(D(x)) = x", l.FlipDiag(l.FlipDiag(x)), x)
				fail("anti(anti(x)) = x", img(img(x, endgame.FlipAnti), endgame.FlipAnti), x)
				cw := x
				for j := 0; j < 4; j++ {
					cw = img(cw, endgame.RotateCW)
				}
				fail("cw^4(x) = x", cw, x)
				fail("cw(x) = H(D(x))", img(x, endgame.RotateCW), l.FlipHorizontal(l.FlipDiag(x)))
				fail("D(x) = H(cw(x))", l.FlipDiag(x), l.FlipHorizontal(img(x, endgame.RotateCW)))
				fail("acw(cw(x)) = x", img(img(x, endgame.RotateCW), endgame.RotateACW), x)
				fail("cw(cw(x)) = rotate180(x)", img(img(x, endgame.RotateCW), endgame.RotateCW), l.Rotate180(x))
				fail("rotate180 = H(V(x))", l.Rotate180(x), l.FlipHorizontal(l.FlipVertical(x)))
				fail("anti(x) = D(rotate180(x))", img(x, endgame.FlipAnti), l.FlipDiag(l.Rotate180(x)))
				fail("D(V(x)) = H(D(x))", l.FlipDiag(l.FlipVertical(x)), l.FlipHorizontal(l.FlipDiag(x)))
				c := l.Canonical(x)
				for k, y := range l.Symmetries(x) {
					fail("Canonical(image "+endgame.SymmetryName(k)+")", l.Canonical(y), c)
				}
			}
		}
	}
}

func TestBoard(t *testing.T) {
	for _, bb := range []uint64{0, 1, 1 << 63, 0x8100000000000081, 0xff00, ^uint64(0), 0x0123456789abcdef} {
		got := endgame.Board(bb)
		// Naive: rank 8 first; square 8*rank + file.
		var lines []string
		for rank := 7; rank >= 0; rank-- {
			var cells []string
			for file := 0; file < 8; file++ {
				c := "."
				if bb&(1<<(8*rank+file)) != 0 {
					c = "x"
				}
				cells = append(cells, c)
			}
			lines = append(lines, strings.Join(cells, " "))
		}
		if want := strings.Join(lines, "\n"); got != want {
			t.Errorf("Board(%#x) =\n%s\nwant\n%s", bb, got, want)
		}
	}
	if got, want := endgame.Board(1<<4|1<<8), ". . . . . . . .\n"+
		". . . . . . . .\n. . . . . . . .\n. . . . . . . .\n. . . . . . . .\n"+
		". . . . . . . .\nx . . . . . . .\n. . . . x . . ."; got != want {
		t.Errorf("Board(e1|a2) =\n%s\nwant\n%s", got, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
