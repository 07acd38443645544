package rng_test

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/rng"
)

func ExampleSource_Uint64n() {
	g := rng.New(0) // the random module's generator at start
	a := g.Uint64n(6)
	g.Seed(0)
	fmt.Println(a == g.Uint64n(6), a < 6)
	// Output: true true
}
