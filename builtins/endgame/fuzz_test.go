package endgame_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/endgame"
)

// FuzzFlips checks all 8 symmetries of an arbitrary index (cut to 6n bits)
// against the per-piece reference, and the Pack/Unpack round trip.
func FuzzFlips(f *testing.F) {
	f.Add(uint64(0o4562), uint8(2), true)
	f.Add(^uint64(0), uint8(10), false)
	f.Add(uint64(0o123456701234), uint8(4), true)
	f.Fuzz(func(t *testing.T, index uint64, n uint8, sym bool) {
		pieces := 1 + int(n)%endgame.MaxPieces
		index >>= 64 - 6*uint(pieces)
		m := endgame.Natural
		if sym {
			m = endgame.Symmetric
		}
		checkAll(t, layout(t, pieces, m), index)
		x, err := endgame.Pack(endgame.Unpack(index, pieces))
		if err != nil || x != index {
			t.Fatalf("Pack(Unpack(%#o, %d)) = %#o, %v", index, pieces, x, err)
		}
	})
}

// FuzzCheck feeds Check and NewLayout arbitrary arguments: they must agree
// on n and never panic.
func FuzzCheck(f *testing.F) {
	f.Add(uint64(0o100), 1)
	f.Add(uint64(1)<<60, 10)
	f.Add(uint64(0), -3)
	f.Fuzz(func(t *testing.T, index uint64, n int) {
		err := endgame.Check(index, n)
		_, lerr := endgame.NewLayout(n, endgame.Symmetric)
		nOK := n >= 1 && n <= endgame.MaxPieces
		if (lerr == nil) != nOK {
			t.Fatalf("NewLayout(%d) error = %v", n, lerr)
		}
		if want := nOK && index>>(6*uint(n)) == 0; (err == nil) != want {
			t.Fatalf("Check(%#o, %d) = %v", index, n, err)
		}
	})
}

// FuzzSquare: any string either names a square that round-trips or is
// rejected.
func FuzzSquare(f *testing.F) {
	for _, s := range []string{"e4", "a1", "h8", "i9", "", "e44"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		for _, m := range endgame.Numberings() {
			sq, ok := endgame.Square(name, m)
			if !ok {
				continue
			}
			if sq < 0 || sq > 63 || endgame.SquareName(sq, m) != name {
				t.Fatalf("Square(%q, %v) = %d, SquareName gives %q", name, m, sq, endgame.SquareName(sq, m))
			}
		}
	})
}
