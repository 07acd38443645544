package compile

import (
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// getBiased compiles d.get(k, -j) (Options.Exact), whose default is the
// negative constant -j: a word holding the int it returns biased by j, as
// a local some assignment gives -j holds its ints (signedLocals): 0 for
// the default, the value plus j (a sum fuse.Func.Exact checks) for a key
// that is there. Its read is that word less j, recorded in c.biased, so
// that v = d.get(k, -1) keeps the biased word and v == -1 compares it.
func (c *compiler) getBiased(h *hashTable, kv int, j uint64, at syntax.Position) *fuse.Expr {
	p, _ := c.hashProbe(h, kv, at)
	r := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpEq, varExpr(p), constExpr(0)),
		Body: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: constExpr(0)}},
		Else: []fuse.Stmt{{Kind: fuse.SAssign, Var: r, X: c.mk(fuse.OpAdd, c.hashRead(h.vals, varExpr(p), at), constExpr(j))}}})
	return c.biasedRead(varExpr(r), j)
}
