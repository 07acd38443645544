package compile

import (
	"math/big"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Signed locals (Options.Exact): a local that some assignment gives a
// negative int constant (step = 8 if c == 0 else -8, d = -1) holds its
// int x as the word x + k (binding.bias), k the largest magnitude of those
// constants, as a biased scratch array does (scratchAssign). Sums and
// differences with such a value stay biased where they can (signedArith),
// so that fr + step < 64 and to - step >= 0 compare the ints; any other
// use reads the int as a word, which fuse.Func.Exact checks (a negative
// int fails the run, and the interpreter runs the call).

// signedLocals returns the bias of each local of sc's function that some
// assignment gives a negative int constant: -8, ~0, -K of a free int K,
// or such a constant as a branch of a conditional (8 if c == 0 else -8,
// nested too), alone or in a tuple of names (a, b = -1, 0); or another
// such local (b = a, a, b = b, a). The bias is the largest magnitude of
// the constants that reach the local; it holds from the
// local's first assignment on, as a loop may read the local before the
// assignment that makes it negative. A parameter or a for loop's
// variable is never biased.
func (c *compiler) signedLocals(sc *scope) map[string]uint64 {
	params := map[string]bool{}
	for _, p := range sc.src.Params {
		params[p.Name] = true
	}
	out := map[string]uint64{}
	changed := true
	note := func(lhs, rhs syntax.Expr) {
		id, ok := unparen(lhs).(*syntax.Ident)
		if !ok || params[id.Name] || sc.loopVars[id.Name] {
			return
		}
		if k := c.negConstOf(sc, rhs, out); k > out[id.Name] {
			out[id.Name], changed = k, true
		}
	}
	// Until no bias grows: a local assigned another (a, b = b, a) takes
	// its bias too.
	for changed {
		changed = false
		c.eachAssign(sc, note)
	}
	return out
}

// eachAssign calls note with each name = value of sc's function, also
// those of a tuple written out (a, b = x, y).
func (c *compiler) eachAssign(sc *scope, note func(lhs, rhs syntax.Expr)) {
	for _, s := range sc.src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				if n.Op != syntax.EQ {
					break
				}
				l, ok := exprList(n.LHS)
				if !ok {
					note(n.LHS, n.RHS)
					break
				}
				if r, ok := exprList(n.RHS); ok && len(r) == len(l) {
					for i := range l {
						note(l[i], r[i])
					}
				}
			case *syntax.LambdaExpr, *syntax.DefStmt:
				return false
			}
			return true
		})
	}
}

// negConstOf returns k where e is the negative int constant -k (k in [1,
// 2^63]), biased[name] where e is a local name, or the largest such k of
// the branches of a conditional e; else 0.
func (c *compiler) negConstOf(sc *scope, e syntax.Expr, biased map[string]uint64) uint64 {
	switch e := unparen(e).(type) {
	case *syntax.CondExpr:
		return max(c.negConstOf(sc, e.True, biased), c.negConstOf(sc, e.False, biased))
	case *syntax.Ident:
		return biased[e.Name]
	case *syntax.CallExpr:
		// d.get(k, -j): the default's bias (hashes.go, getBiased).
		if dot, ok := e.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "get" && len(e.Args) == 2 {
			return c.negConstOf(sc, e.Args[1], nil)
		}
	case *syntax.UnaryExpr:
		if e.X == nil {
			return 0
		}
		w, ok := c.constWord(sc, e.X)
		switch {
		case !ok:
		case e.Op == syntax.MINUS && w-1 < 1<<63:
			return w
		case e.Op == syntax.TILDE && w < 1<<63:
			return w + 1
		}
	}
	return 0
}

// constWord returns the word of e where it is an int literal or a free
// name bound to an int, as the compiler reads them.
func (c *compiler) constWord(sc *scope, e syntax.Expr) (uint64, bool) {
	switch e := unparen(e).(type) {
	case *syntax.Literal:
		if e.Token != syntax.INT {
			return 0, false
		}
		switch v := e.Value.(type) {
		case int64:
			return uint64(v), v >= 0
		case *big.Int:
			return WordOf(starlark.MakeBigInt(v))
		}
	case *syntax.Ident:
		if sc.locals[e.Name] {
			return 0, false
		}
		if v, ok := sc.src.Free(e.Name); ok {
			return WordOf(v)
		}
	}
	return 0, false
}

// nameBias is the bias that name = v gives the name: its binding's where
// it has one, else the bias signedLocals found, or v's where v is a read
// of a biased array or local or a negative constant (scratchAssign,
// assignVar); 0 for a for loop's variable.
func (c *compiler) nameBias(name string, v *fuse.Expr) (b binding, bound bool, k uint64) {
	b, bound = c.scope.names[name]
	if bound {
		return b, true, b.bias
	}
	if c.scope.loopVars[name] {
		return b, false, 0
	}
	k = c.scope.negBias[name]
	if v != nil {
		if raw, kv := c.biasOf(v); kv != 0 && (raw.Op == fuse.OpVar || raw.Op == fuse.OpScratch || raw.Op == fuse.OpConst || raw.Op == fuse.OpLoad || raw.Op == fuse.OpLoad2) {
			k = max(k, kv)
		} else if _, ok := c.scope.signed[name]; ok && kv != 0 {
			// nr = r + dr, dr from a table holding a negative int
			// (signedloops.go): the sum, biased, as a, b = x, y keeps it.
			k = max(k, kv)
		}
	}
	return b, false, k
}

// biasOf returns the biased word and the bias of e where e is biased (a
// read of a biased array or local, or a sum or difference signedArith
// keeps biased) or a negative constant -k (the word 0 biased by k), with
// Options.Exact; else nil and 0.
func (c *compiler) biasOf(e *fuse.Expr) (*fuse.Expr, uint64) {
	if !c.opt.Exact {
		return nil, 0
	}
	if k := c.biased[e]; k != 0 {
		return e.Args[0], k
	}
	if k, ok := negConstant(e); ok {
		return constExpr(0), k
	}
	return nil, 0
}

// signedArith compiles x + y and x - y (o) where x or y is biased or a
// negative constant (biasOf), on the biased words, each step checked by
// fuse.Func.Exact where the result must be a word:
//   - x + y, one of them biased by k: the word of the other plus the
//     biased word, biased by k (both biased: by the sum of the biases, up
//     to 2^63); it fails only where x + y + k leaves the words;
//   - x - y, x biased by k: x's biased word less y's int, biased by k (it
//     fails where x - y < -k);
//   - x - y, y biased by k (only): x + 2k less y's biased word, biased by
//     k (it fails where x - y < -k, or x + 2k leaves the words); where k
//     is past 2^62, x + k less y's biased word, a word (it fails where x -
//     y is negative).
//
// A biased result is an int that may be negative: compared, it compares
// the biased words (arith); read as a word, it is the biased word less k,
// checked (biasedRead).
func (c *compiler) signedArith(o fuse.Op, x, y *fuse.Expr) (*fuse.Expr, bool) {
	rx, kx := c.biasOf(x)
	ry, ky := c.biasOf(y)
	_, negX := negConstant(x)
	_, negY := negConstant(y)
	if kx == 0 && ky == 0 || negX && (negY || o == fuse.OpSub) {
		// -j - y and -j + -k are negative ints: refused as before
		// (fuse.Func.Exact), as T[-1 - i] would fail every run.
		return nil, false
	}
	switch {
	case o == fuse.OpAdd && kx != 0 && ky != 0:
		if kx <= 1<<63-ky { // (kx + ky might wrap)
			return c.biasedRead(c.mk(fuse.OpAdd, rx, ry), kx+ky), true
		}
		if ky > kx {
			x, y, rx, kx = y, x, ry, ky
		}
		if _, ok := negConstant(y); ok {
			return nil, false
		}
		return c.biasedRead(c.mk(fuse.OpAdd, rx, y), kx), true
	case o == fuse.OpAdd && kx != 0:
		return c.biasedRead(c.mk(fuse.OpAdd, rx, y), kx), true
	case o == fuse.OpAdd:
		return c.biasedRead(c.mk(fuse.OpAdd, x, ry), ky), true
	case kx != 0 && ky != 0:
		// (x + kx) - (y + ky) + ky: x - y, biased by kx.
		return c.biasedRead(c.mk(fuse.OpSub, c.mk(fuse.OpAdd, rx, constExpr(ky)), ry), kx), true
	case kx != 0:
		return c.biasedRead(c.mk(fuse.OpSub, rx, y), kx), true
	}
	if ky <= 1<<62 {
		// (x + 2ky) - (y + ky): x - y, biased by ky.
		return c.biasedRead(c.mk(fuse.OpSub, c.mk(fuse.OpAdd, x, constExpr(2*ky)), ry), ky), true
	}
	return c.mk(fuse.OpSub, c.mk(fuse.OpAdd, x, constExpr(ky)), ry), true
}

// condAssign compiles name = A if C else B, where name is a biased local
// (signedLocals), as if C: name = A, else: name = B, so that a branch
// that is a negative constant stores its biased word (nested conditionals
// alike). It reports whether it compiled the assignment.
func (c *compiler) condAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	ce, ok := unparen(rhs).(*syntax.CondExpr)
	if !ok || !c.opt.Exact {
		return false, nil
	}
	if b, bound, k := c.nameBias(id.Name, nil); k == 0 || bound && b.kind != bVar {
		return false, nil
	}
	cond, err := c.expr(ce.Cond)
	if err != nil {
		return true, err
	}
	branch := func(e syntax.Expr) ([]fuse.Stmt, error) {
		return c.nested(func() error {
			if ok, err := c.condAssign(id, e); ok || err != nil {
				return err
			}
			v, err := c.word(e)
			if err != nil {
				return err
			}
			return c.assignVar(id, v)
		})
	}
	then, err := branch(ce.True)
	if err != nil {
		return true, err
	}
	els, err := branch(ce.False)
	if err != nil {
		return true, err
	}
	if cond.Op == fuse.OpConst {
		if cond.Imm != 0 {
			*c.out = append(*c.out, then...)
		} else {
			*c.out = append(*c.out, els...)
		}
		return true, nil
	}
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: cond, Body: then, Else: els})
	return true, nil
}
