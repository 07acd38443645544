package native

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestWeighRare: a variable used only in a loop inside a Rare if weighs
// less than one used once a pass of the loop around the if, and more
// than it where the if is not Rare.
func TestWeighRare(t *testing.T) {
	v := func(i int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpVar, Imm: uint64(i), Check: -1} }
	for _, rare := range []bool{false, true} {
		inner := fuse.Stmt{Kind: fuse.SWhile, X: v(1), Label: 1, Body: []fuse.Stmt{
			{Kind: fuse.SAssign, Var: 1, X: v(1)},
		}}
		body := []fuse.Stmt{
			{Kind: fuse.SWhile, X: v(0), Label: 0, Body: []fuse.Stmt{
				{Kind: fuse.SAssign, Var: 0, X: v(0)},
				{Kind: fuse.SIf, X: v(2), Rare: rare, Body: []fuse.Stmt{inner}},
			}},
		}
		g := &amd64Gen{nSlots: 4, sFuel: 3, loopSlot: map[*fuse.Stmt][]int{}}
		g.weight = make([]float64, g.nSlots)
		g.weigh(body, 0)
		if lighter := g.weight[1] < g.weight[0]; lighter != rare {
			t.Errorf("Rare %v: the inner loop's variable weighs %v, the outer's %v", rare, g.weight[1], g.weight[0])
		}
		if g.rare != 0 {
			t.Errorf("Rare %v: %d Rare ifs left open after weighing", rare, g.rare)
		}
	}
}
