package chess_test

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/bitsh/bitsh/builtins/chess"
)

func TestConstants(t *testing.T) {
	for i := range 8 {
		var file, rank uint64
		for j := range 8 {
			file |= coord{i, j}.bit()
			rank |= coord{j, i}.bit()
		}
		if chess.Files[i] != file || chess.Ranks[i] != rank {
			t.Errorf("Files[%d], Ranks[%d] = %#x, %#x; want %#x, %#x", i, i, chess.Files[i], chess.Ranks[i], file, rank)
		}
	}
	var light uint64
	for sq := range 64 {
		if (at(sq).f+at(sq).r)%2 == 1 { // a1 is dark
			light |= 1 << sq
		}
	}
	if chess.LightSquares != light || chess.DarkSquares != ^light {
		t.Errorf("LightSquares, DarkSquares = %#x, %#x; want %#x, %#x", chess.LightSquares, chess.DarkSquares, light, ^light)
	}
	for _, c := range []struct {
		name      string
		got, want uint64
	}{
		{"Corners", chess.Corners, coord{0, 0}.bit() | coord{7, 0}.bit() | coord{0, 7}.bit() | coord{7, 7}.bit()},
		{"Center", chess.Center, coord{3, 3}.bit() | coord{4, 3}.bit() | coord{3, 4}.bit() | coord{4, 4}.bit()},
		{"Backranks", chess.Backranks, chess.Ranks[0] | chess.Ranks[7]},
	} {
		if c.got != c.want {
			t.Errorf("%s = %#x; want %#x", c.name, c.got, c.want)
		}
	}
}

func TestSquares(t *testing.T) {
	names := chess.SquareNames()
	for sq := range 64 {
		f, r := at(sq).f, at(sq).r
		name := string(rune('a'+f)) + string(rune('1'+r))
		if chess.Square(f, r) != sq || chess.SquareFile(sq) != f || chess.SquareRank(sq) != r {
			t.Errorf("square %d: Square/SquareFile/SquareRank disagree with (%d, %d)", sq, f, r)
		}
		if chess.SquareName(sq) != name || names[sq] != name {
			t.Errorf("SquareName(%d) = %q; want %q", sq, chess.SquareName(sq), name)
		}
		if got, ok := chess.ParseSquare(name); !ok || got != sq {
			t.Errorf("ParseSquare(%q) = %d, %v; want %d, true", name, got, ok, sq)
		}
		if m := chess.SquareMirror(sq); m != 8*(7-r)+f {
			t.Errorf("SquareMirror(%d) = %d; want %d", sq, m, 8*(7-r)+f)
		}
	}
	for _, bad := range []string{"", "a", "a0", "a9", "i1", "A1", "e44", " e4"} {
		if _, ok := chess.ParseSquare(bad); ok {
			t.Errorf("ParseSquare(%q) accepted", bad)
		}
	}
}

func TestDistances(t *testing.T) {
	for a := range 64 {
		for b := range 64 {
			df, dr := at(a).f-at(b).f, at(a).r-at(b).r
			df, dr = max(df, -df), max(dr, -dr)
			if got := chess.SquareDistance(a, b); got != max(df, dr) {
				t.Errorf("SquareDistance(%d, %d) = %d; want %d", a, b, got, max(df, dr))
			}
			if got := chess.SquareManhattanDistance(a, b); got != df+dr {
				t.Errorf("SquareManhattanDistance(%d, %d) = %d; want %d", a, b, got, df+dr)
			}
			if got, want := chess.SquareKnightDistance(a, b), naiveKnightDistance(a, b); got != want {
				t.Errorf("SquareKnightDistance(%d, %d) = %d; want %d", a, b, got, want)
			}
		}
	}
}

// words returns n random words, some sparse and some dense, fixed seed.
func words(n int) []uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]uint64, n)
	for i := range out {
		switch i % 3 {
		case 0:
			out[i] = r.Uint64()
		case 1:
			out[i] = r.Uint64() & r.Uint64() & r.Uint64()
		default:
			out[i] = 1 << (i % 64)
		}
	}
	return out
}

func TestShiftsAndFlips(t *testing.T) {
	cases := []struct {
		name string
		fn   func(uint64) uint64
		move func(coord) coord
	}{
		{"ShiftUp", chess.ShiftUp, func(c coord) coord { return coord{c.f, c.r + 1} }},
		{"Shift2Up", chess.Shift2Up, func(c coord) coord { return coord{c.f, c.r + 2} }},
		{"ShiftDown", chess.ShiftDown, func(c coord) coord { return coord{c.f, c.r - 1} }},
		{"Shift2Down", chess.Shift2Down, func(c coord) coord { return coord{c.f, c.r - 2} }},
		{"ShiftLeft", chess.ShiftLeft, func(c coord) coord { return coord{c.f - 1, c.r} }},
		{"Shift2Left", chess.Shift2Left, func(c coord) coord { return coord{c.f - 2, c.r} }},
		{"ShiftRight", chess.ShiftRight, func(c coord) coord { return coord{c.f + 1, c.r} }},
		{"Shift2Right", chess.Shift2Right, func(c coord) coord { return coord{c.f + 2, c.r} }},
		{"ShiftUpLeft", chess.ShiftUpLeft, func(c coord) coord { return coord{c.f - 1, c.r + 1} }},
		{"ShiftUpRight", chess.ShiftUpRight, func(c coord) coord { return coord{c.f + 1, c.r + 1} }},
		{"ShiftDownLeft", chess.ShiftDownLeft, func(c coord) coord { return coord{c.f - 1, c.r - 1} }},
		{"ShiftDownRight", chess.ShiftDownRight, func(c coord) coord { return coord{c.f + 1, c.r - 1} }},
		{"FlipVertical", chess.FlipVertical, func(c coord) coord { return coord{c.f, 7 - c.r} }},
		{"FlipHorizontal", chess.FlipHorizontal, func(c coord) coord { return coord{7 - c.f, c.r} }},
		{"FlipDiagonal", chess.FlipDiagonal, func(c coord) coord { return coord{c.r, c.f} }},
		{"FlipAntiDiagonal", chess.FlipAntiDiagonal, func(c coord) coord { return coord{7 - c.r, 7 - c.f} }},
	}
	inputs := append(words(3000), 0, chess.All)
	for _, c := range cases {
		for _, x := range inputs {
			if got, want := c.fn(x), mapSquares(x, c.move); got != want {
				t.Errorf("%s(%#x) = %#x; want %#x", c.name, x, got, want)
				break
			}
		}
	}
}

func TestStepAttacks(t *testing.T) {
	for sq := range 64 {
		for _, c := range []struct {
			name      string
			got, want uint64
		}{
			{"KnightAttacks", chess.KnightAttacks(sq), naiveSteps(sq, knightSteps)},
			{"KingAttacks", chess.KingAttacks(sq), naiveSteps(sq, kingSteps)},
			{"PawnAttacks white", chess.PawnAttacks(sq, true), naiveSteps(sq, []coord{{-1, 1}, {1, 1}})},
			{"PawnAttacks black", chess.PawnAttacks(sq, false), naiveSteps(sq, []coord{{-1, -1}, {1, -1}})},
			{"RookMask", chess.RookMask(sq), naiveMask(sq, rookDirs)},
			{"BishopMask", chess.BishopMask(sq), naiveMask(sq, bishopDirs)},
		} {
			if c.got != c.want {
				t.Errorf("%s(%d) = %#x; want %#x", c.name, sq, c.got, c.want)
			}
		}
	}
}

// TestSlidingExhaustive checks every square against every subset of its
// relevant mask, each once alone and once with random bits outside the
// mask (which must not matter), for the three sliders.
func TestSlidingExhaustive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for sq := range 64 {
		for _, p := range []struct {
			name string
			mask uint64
			dirs []coord
			fn   func(int, uint64) uint64
		}{
			{"RookAttacks", chess.RookMask(sq), rookDirs, chess.RookAttacks},
			{"BishopAttacks", chess.BishopMask(sq), bishopDirs, chess.BishopAttacks},
		} {
			n := 0
			for occ := uint64(0); ; n++ {
				want := naiveSlide(sq, occ, p.dirs)
				noise := r.Uint64() &^ p.mask
				if got := p.fn(sq, occ); got != want {
					t.Fatalf("%s(%d, %#x) = %#x; want %#x", p.name, sq, occ, got, want)
				}
				if got := p.fn(sq, occ|noise); got != want {
					t.Fatalf("%s(%d, %#x) = %#x; want %#x", p.name, sq, occ|noise, got, want)
				}
				if occ = (occ - p.mask) & p.mask; occ == 0 {
					break
				}
			}
			if n+1 != 1<<bits.OnesCount64(p.mask) {
				t.Fatalf("%s(%d): walked %d subsets", p.name, sq, n+1)
			}
		}
	}
	for _, occ := range words(20000) {
		sq := int(occ % 64)
		if got, want := chess.QueenAttacks(sq, occ), naiveSlide(sq, occ, allDirs); got != want {
			t.Fatalf("QueenAttacks(%d, %#x) = %#x; want %#x", sq, occ, got, want)
		}
	}
}

func TestSlices(t *testing.T) {
	occ := words(1000)
	out := make([]uint64, len(occ))
	for _, sq := range []int{0, 27, 63} {
		for _, p := range []struct {
			name  string
			slice func(int, []uint64, []uint64)
			one   func(int, uint64) uint64
		}{
			{"RookAttacksSlice", chess.RookAttacksSlice, chess.RookAttacks},
			{"BishopAttacksSlice", chess.BishopAttacksSlice, chess.BishopAttacks},
			{"QueenAttacksSlice", chess.QueenAttacksSlice, chess.QueenAttacks},
		} {
			p.slice(sq, occ, out)
			for i, o := range occ {
				if out[i] != p.one(sq, o) {
					t.Fatalf("%s(%d)[%d] = %#x; want %#x", p.name, sq, i, out[i], p.one(sq, o))
				}
			}
		}
	}
}

func TestRayBetween(t *testing.T) {
	for a := range 64 {
		for b := range 64 {
			ray, between := naiveRay(a, b)
			if got := chess.Ray(a, b); got != ray {
				t.Errorf("Ray(%d, %d) = %#x; want %#x", a, b, got, ray)
			}
			if got := chess.Between(a, b); got != between {
				t.Errorf("Between(%d, %d) = %#x; want %#x", a, b, got, between)
			}
		}
	}
}

func FuzzAttacks(f *testing.F) {
	f.Add(uint8(0), uint8(63), uint64(0))
	f.Add(uint8(27), uint8(36), uint64(0x0000_1000_0800_0000))
	f.Fuzz(func(t *testing.T, a, b uint8, occ uint64) {
		sq, other := int(a%64), int(b%64)
		if got, want := chess.RookAttacks(sq, occ), naiveSlide(sq, occ, rookDirs); got != want {
			t.Fatalf("RookAttacks(%d, %#x) = %#x; want %#x", sq, occ, got, want)
		}
		if got, want := chess.BishopAttacks(sq, occ), naiveSlide(sq, occ, bishopDirs); got != want {
			t.Fatalf("BishopAttacks(%d, %#x) = %#x; want %#x", sq, occ, got, want)
		}
		if got, want := chess.QueenAttacks(sq, occ), naiveSlide(sq, occ, allDirs); got != want {
			t.Fatalf("QueenAttacks(%d, %#x) = %#x; want %#x", sq, occ, got, want)
		}
		ray, between := naiveRay(sq, other)
		if got := chess.Ray(sq, other); got != ray {
			t.Fatalf("Ray(%d, %d) = %#x; want %#x", sq, other, got, ray)
		}
		if got := chess.Between(sq, other); got != between {
			t.Fatalf("Between(%d, %d) = %#x; want %#x", sq, other, got, between)
		}
		if got, want := chess.FlipDiagonal(occ), mapSquares(occ, func(c coord) coord { return coord{c.r, c.f} }); got != want {
			t.Fatalf("FlipDiagonal(%#x) = %#x; want %#x", occ, got, want)
		}
	})
}

// TestMagicSlicesExhaustive runs every subset of every mask through the
// magic tables of the Slice forms.
func TestMagicSlicesExhaustive(t *testing.T) {
	for sq := range 64 {
		for _, p := range []struct {
			name  string
			mask  uint64
			dirs  []coord
			slice func(int, []uint64, []uint64)
		}{
			{"RookAttacksSlice", chess.RookMask(sq), rookDirs, chess.RookAttacksSlice},
			{"BishopAttacksSlice", chess.BishopMask(sq), bishopDirs, chess.BishopAttacksSlice},
		} {
			var occs []uint64
			for occ := uint64(0); ; {
				occs = append(occs, occ)
				if occ = (occ - p.mask) & p.mask; occ == 0 {
					break
				}
			}
			out := make([]uint64, len(occs))
			p.slice(sq, occs, out)
			for i, occ := range occs {
				if want := naiveSlide(sq, occ, p.dirs); out[i] != want {
					t.Fatalf("%s(%d, %#x) = %#x; want %#x", p.name, sq, occ, out[i], want)
				}
			}
		}
	}
}
