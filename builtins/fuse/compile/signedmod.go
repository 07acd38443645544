package compile

import (
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// Products and remainders of ints that may be negative (Options.Exact):
// a biased int (biasOf: a read of a biased local or array, a sum or
// difference signedArith keeps biased) times a positive constant stays
// biased, and the remainder of a biased int, or of a difference x - c
// with a constant c, by a positive constant m is computed on a word that
// is never negative, as Starlark's % is floored: (x - k) % m is (x + K -
// k) % m for K the least multiple of m not below k. So nr * 2 + t + 5 and
// (nr - 2) % 7 run as code where nr * 2 and nr - 2 are negative.

// signedMulMod compiles x * y and x % y (o) where that keeps a biased
// int's sign (see above), and reports whether it did.
func (c *compiler) signedMulMod(o fuse.Op, x, y *fuse.Expr) (*fuse.Expr, bool) {
	if !c.opt.Exact {
		return nil, false
	}
	switch o {
	case fuse.OpMul:
		if y.Op != fuse.OpConst {
			x, y = y, x
		}
		rx, k := c.biasOf(x)
		if k == 0 || y.Op != fuse.OpConst || y.Imm == 0 || y.Imm > 1<<62/k {
			return nil, false
		}
		if _, neg := negConstant(x); neg {
			return nil, false // (-j * m, a negative constant: folded or refused as before)
		}
		return c.biasedRead(c.mk(fuse.OpMul, rx, y), k*y.Imm), true
	case fuse.OpMod:
		m := y.Imm
		if y.Op != fuse.OpConst || m == 0 || m > 1<<62 {
			return nil, false
		}
		raw, k := c.biasOf(x)
		if _, neg := negConstant(x); neg {
			return nil, false
		}
		if k == 0 {
			raw = x
		}
		// x - c, c a positive constant (a biased int's word less c too,
		// nr - 2 with nr biased): x's word biased by c more.
		for raw.Op == fuse.OpSub && raw.Args[1].Op == fuse.OpConst && raw.Args[1].Imm != 0 && raw.Args[1].Imm <= 1<<62 && k <= 1<<62 && c.biased[raw] == 0 {
			raw, k = raw.Args[0], k+raw.Args[1].Imm
		}
		if k == 0 || k > 1<<62 || c.biased[raw] != 0 {
			return nil, false
		}
		up := (k + m - 1) / m * m // the least multiple of m not below k
		if up != k {
			raw = c.mk(fuse.OpAdd, raw, constExpr(up-k))
		}
		return c.mk(fuse.OpMod, raw, y), true
	}
	return nil, false
}

// returnBias returns the bias of an inlined helper's result (sc's
// function): the largest k of a return of a negative constant -k, of
// d.get(key, -k), of a local biased by k, or of a conditional of them
// (negConstOf); 0 where none. Every return then stores its int biased by
// it, and the call reads the result as a biased int, so that a helper
// that returns d.get(k, -1) on a missing key, or -1, runs as code.
func (c *compiler) returnBias(sc *scope) uint64 {
	var k uint64
	for _, s := range sc.src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			case *syntax.ReturnStmt:
				if n.Result != nil {
					k = max(k, c.negConstOf(sc, n.Result, sc.negBias))
				}
			}
			return true
		})
	}
	if k > 1<<62 {
		return 0
	}
	return k
}

// condReturn compiles return A if C else B, where the returns are biased
// (returnBias), as if C: return A, else: return B, so that a branch that
// is a negative constant returns its biased word (nested conditionals
// alike).
func (c *compiler) condReturn(s *syntax.ReturnStmt, ce *syntax.CondExpr) error {
	cond, err := c.expr(ce.Cond)
	if err != nil {
		return err
	}
	branch := func(e syntax.Expr) ([]fuse.Stmt, error) {
		return c.nested(func() error { return c.stmt(&syntax.ReturnStmt{Return: s.Return, Result: e}) })
	}
	then, err := branch(ce.True)
	if err != nil {
		return err
	}
	els, err := branch(ce.False)
	if err != nil {
		return err
	}
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: cond, Body: then, Else: els})
	return nil
}
