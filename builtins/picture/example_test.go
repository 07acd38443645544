package picture_test

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/picture"
)

func ExampleBoard() {
	fmt.Println(picture.Board(0x8100000000000081, false))
	// Output:
	// 8 x . . . . . . x
	// 7 . . . . . . . .
	// 6 . . . . . . . .
	// 5 . . . . . . . .
	// 4 . . . . . . . .
	// 3 . . . . . . . .
	// 2 . . . . . . . .
	// 1 x . . . . . . x
	//   a b c d e f g h
}

func ExampleTable() {
	fmt.Println(picture.Table([]string{"k", "sets"}, [][]string{{"1", "81"}, {"2", "3240"}}))
	// Output:
	// k  sets
	// -  ----
	// 1    81
	// 2  3240
}

func ExampleCard_Letters() {
	c := picture.FromIndex(27 + 9 + 3 + 1) // card "2222"
	fmt.Println(c.Letters(), "-", c.Name())
	// Output: 2GtS - 2 green striped squiggles
}
