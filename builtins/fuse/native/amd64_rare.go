package native

import "github.com/bitsh/bitsh/builtins/fuse"

// Rare code: the body of an if marked fuse.Stmt.Rare (a hash table's
// rebuild, in a loop that inserts) runs seldom, though its own loops nest
// deeper than the code around it, which the weights of register
// allocation count as 8 times the uses a level. Its uses weigh rareWeight
// of the same uses elsewhere (three loop levels less), so that the
// variables of the loop around it keep their registers and the rebuild's
// go to memory where there are too few.

// rareWeight is the weight of a use in a Rare if's body relative to the
// same use outside it.
const rareWeight = 1.0 / 512

// weighRare weighs the body and else of s, a Rare if, at depth (its
// condition is weighed already).
func (g *amd64Gen) weighRare(s *fuse.Stmt, depth int) {
	g.rare++
	g.weigh(s.Body, depth)
	g.weigh(s.Else, depth)
	g.rare--
}

// rareScale is the factor of a use's weight inside g.rare Rare ifs.
func (g *amd64Gen) rareScale() float64 {
	w := 1.0
	for range g.rare {
		w *= rareWeight
	}
	return w
}
