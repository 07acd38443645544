package compile

import (
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// wideMinMax compiles min(a, b) or max(a, b), met as a word, where a or b
// is past 64 bits (min(i * (1 << 62), 5), max(x << 60, 3)): on pairs, as a
// local's min or max is (minMax), and the result's low word, with a check
// that it is back in the words (max of an int past them fails the run,
// and the interpreter runs the call). It reports false where the call is
// not one.
func (c *compiler) wideMinMax(e *syntax.CallExpr) (*fuse.Expr, bool, error) {
	w := c.scope.wide
	if !c.opt.Exact || w == nil {
		return nil, false, nil
	}
	a, b, isMax, ok := minMaxOf(c.scope, e)
	if !ok || !w.pairArgs(a, b) {
		return nil, false, nil
	}
	v, err := c.minMax(a, b, isMax, w.bitsOf(e))
	if err != nil {
		return nil, true, err
	}
	name := "min"
	if isMax {
		name = "max"
	}
	return c.narrow(v, e.Lparen, name), true, nil
}
