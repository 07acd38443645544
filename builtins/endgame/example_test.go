package endgame_test

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/endgame"
)

// Document 003's example: a rook on 0o52 and a king on 0o46.
func ExamplePack() {
	x, _ := endgame.Pack([]int{0o52, 0o46})
	fmt.Printf("%#o %o\n", x, endgame.Unpack(x, 2))
	// Output: 04562 [52 46]
}

func ExampleSquare() {
	for _, m := range endgame.Numberings() {
		a1, _ := endgame.Square("a1", m)
		e4, _ := endgame.Square("e4", m)
		h8, _ := endgame.Square("h8", m)
		fmt.Printf("%s: a1 = %#o, e4 = %#o, h8 = %#o\n", m, a1, e4, h8)
	}
	// Output:
	// natural: a1 = 0, e4 = 034, h8 = 077
	// symmetric: a1 = 060, e4 = 073, h8 = 066
}

func ExampleLayout_FlipDiag() {
	// b1 and e4 in the symmetric numbering, flipped about a1-h8 at once.
	l, _ := endgame.NewLayout(2, endgame.Symmetric)
	b1, _ := endgame.Square("b1", endgame.Symmetric)
	e4, _ := endgame.Square("e4", endgame.Symmetric)
	x, _ := endgame.Pack([]int{b1, e4})
	for _, sq := range endgame.Unpack(l.FlipDiag(x), 2) {
		fmt.Print(endgame.SquareName(sq, endgame.Symmetric), " ")
	}
	fmt.Println()
	// Output: a2 d5
}

func ExampleLayout_Symmetries() {
	l, _ := endgame.NewLayout(1, endgame.Natural)
	b1, _ := endgame.Square("b1", endgame.Natural)
	x, _ := endgame.Pack([]int{b1})
	for k, y := range l.Symmetries(x) {
		fmt.Printf("%s: %s\n", endgame.SymmetryName(k), endgame.SquareName(int(y), endgame.Natural))
	}
	fmt.Println("canonical:", endgame.SquareName(int(l.Canonical(x)), endgame.Natural))
	// Output:
	// identity: b1
	// flip_vertical: g1
	// flip_horizontal: b8
	// rotate_180: g8
	// flip_diag: a2
	// flip_anti: h7
	// rotate_cw: a7
	// rotate_acw: h2
	// canonical: b1
}

func ExampleBoard() {
	fmt.Println(endgame.Board(0x8100000000000081 | 1<<28))
	// Output:
	// x . . . . . . x
	// . . . . . . . .
	// . . . . . . . .
	// . . . . . . . .
	// . . . . x . . .
	// . . . . . . . .
	// . . . . . . . .
	// x . . . . . . x
}
