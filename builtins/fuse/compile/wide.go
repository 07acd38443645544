package compile

import (
	"math/big"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Wide ints (Options.Exact): natural code computes ints past 64 bits and
// brings them back: Gosper's hack carries into bit 64 (r = x + c) and
// stops at while x < (1 << 64) or x < (1 << n); a hash shifts a product
// right (((x + i) * M) >> 32) or masks it. The compiler keeps such an int
// below 2^128 as a pair of words, its high and low word (wideVal):
//
//   - a local is wide (wideInfo.wide) where the bound of every value it is
//     assigned (wideInfo.bits, in bits) is above 64 and at most 128, and
//     where some read of it needs the pair (an operand of a comparison with
//     an int past 64 bits, of a >> or & that brings one back, of another
//     wide local's value; or no read at all: limit = 1 << 64). Its high
//     word lives in a second variable. A read as anything else (returned,
//     passed, an index, an operand of + * <<: so that x = x + c keeps a
//     bound) takes the low word, checked that the high word is 0: else the
//     run fails, and the interpreter runs the call;
//   - a comparison with an operand past 64 bits compares the pairs; x >> k
//     (k a constant) of x past 64 bits, and x & m (m a constant or a name)
//     where x reads a wide local, a constant past 64 bits or such a >>,
//     take the low word of the pair, checked where the high word may be
//     set; but (x >> k) & m, m below 2^(64 - k), is the low word's bits
//     (fuse.Func.Exact computes x mod 2^64), and a product of words shifted
//     is fuse.Func.Exact's 128-bit multiply.
//
// + (with the carry), - (with the borrow), * with one word, << and >> by a
// constant, a constant word << a count known at run time, & | ^ run on
// pairs; every other operation is compiled as a word (a leaf of the pair),
// which fails where its int leaves the words, as before. No pair is
// negative (the high word's difference is checked), but under an & that
// drops the high word, which reads the low word of a negative int, as
// Starlark's & does. The other checks of the high words (an add, a product
// or a shift past 128 bits) are fuse.Func.Exact's own; a shift count's
// check (below 512, Starlark's error) is the low word's, which every read
// computes.

// maxWide is the bound, in bits, of the ints a wide local holds; unbound
// stands for a bound above it.
const (
	maxWide = 128
	unbound = 1000
)

// wideInfo is what the function's own scope knows of wide ints.
type wideInfo struct {
	bits map[string]int    // each candidate local's bound (wideLocals)
	wide map[string]bool   // the wide locals
	vars map[string][2]int // a wide local's low and high variables, once assigned
	memo map[syntax.Expr]int
	sc   *scope
}

// wideVal is an int as two words: hi is nil where it is 0.
type wideVal struct {
	lo, hi *fuse.Expr
	bits   int
}

// bigConst returns the value of e where e is an int constant: literals,
// free names bound to ints, and the operators of Starlark on them (where
// Starlark computes them: no division by zero, shift counts Starlark
// takes), or false.
func bigConst(sc *scope, e syntax.Expr) (*big.Int, bool) {
	// (each node once: a chain of n operators is looked at in O(n))
	k, seen := sc.konsts[e]
	if !seen {
		var ok bool
		if k, ok = bigConst1(sc, e); !ok {
			k = nil
		}
		if sc.konsts == nil {
			sc.konsts = map[syntax.Expr]*big.Int{}
		}
		sc.konsts[e] = k
	}
	if k == nil {
		return nil, false
	}
	return new(big.Int).Set(k), true
}

func bigConst1(sc *scope, e syntax.Expr) (*big.Int, bool) {
	switch e := e.(type) {
	case *syntax.Literal:
		switch v := e.Value.(type) {
		case int64:
			if e.Token == syntax.INT {
				return big.NewInt(v), true
			}
		case *big.Int:
			return new(big.Int).Set(v), true
		}
	case *syntax.ParenExpr:
		return bigConst(sc, e.X)
	case *syntax.Ident:
		if _, ok := sc.names[e.Name]; ok || sc.locals[e.Name] || sc.src.Free == nil {
			return nil, false
		}
		// (a lookup of a free name may build its module's globals: once)
		k, seen := sc.frees[e.Name]
		if !seen {
			if v, ok := sc.src.Free(e.Name); ok {
				if i, ok := v.(starlark.Int); ok {
					k = i.BigInt()
				}
			}
			if sc.frees == nil {
				sc.frees = map[string]*big.Int{}
			}
			sc.frees[e.Name] = k
		}
		if k != nil {
			return new(big.Int).Set(k), true
		}
	case *syntax.UnaryExpr:
		if e.X == nil {
			return nil, false
		}
		x, ok := bigConst(sc, e.X)
		if !ok {
			return nil, false
		}
		switch e.Op {
		case syntax.PLUS:
			return x, true
		case syntax.MINUS:
			return x.Neg(x), true
		case syntax.TILDE:
			return x.Not(x), true
		}
	case *syntax.BinaryExpr:
		return bigBinary(sc, e.Op, e.X, e.Y)
	}
	return nil, false
}

// bigBinary is bigConst of x op y.
func bigBinary(sc *scope, op syntax.Token, xe, ye syntax.Expr) (*big.Int, bool) {
	x, ok := bigConst(sc, xe)
	if !ok {
		return nil, false
	}
	y, ok := bigConst(sc, ye)
	if !ok {
		return nil, false
	}
	z := new(big.Int)
	switch op {
	case syntax.PLUS:
		z.Add(x, y)
	case syntax.MINUS:
		z.Sub(x, y)
	case syntax.STAR:
		if x.BitLen()+y.BitLen() > 4096 {
			return nil, false
		}
		z.Mul(x, y)
	case syntax.SLASHSLASH, syntax.PERCENT:
		if y.Sign() == 0 {
			return nil, false
		}
		// Starlark's division floors, its remainder takes the divisor's
		// sign.
		m := new(big.Int)
		z.QuoRem(x, y, m)
		if m.Sign() != 0 && m.Sign() != y.Sign() {
			z.Sub(z, big.NewInt(1))
			m.Add(m, y)
		}
		if op == syntax.PERCENT {
			z = m
		}
	case syntax.AMP:
		z.And(x, y)
	case syntax.PIPE:
		z.Or(x, y)
	case syntax.CIRCUMFLEX:
		z.Xor(x, y)
	case syntax.LTLT:
		if !y.IsInt64() || y.Int64() < 0 || y.Int64() >= 512 || x.BitLen()+int(y.Int64()) > 4096 {
			return nil, false
		}
		z.Lsh(x, uint(y.Int64()))
	case syntax.GTGT:
		if !y.IsInt64() || y.Int64() < 0 || y.Int64() >= 1<<31 {
			return nil, false
		}
		z.Rsh(x, uint(y.Int64()))
	default:
		return nil, false
	}
	return z, true
}

// constBits returns the bits of a constant that a pair holds, or false.
func constBits(k *big.Int) (int, bool) {
	if k.Sign() < 0 || k.BitLen() > maxWide {
		return 0, false
	}
	return k.BitLen(), true
}

// The shapes of a binary operation on pairs.
const (
	shLeaf = iota // compiled as a word
	shConst
	shAdd
	shSub
	shMul
	shShl
	shShr
	shBits   // & | ^
	shShlVar // a constant word shifted left by a count known at run time
	shMod    // a pair mod a word
	shDiv    // a pair // a word
)

// shape says how x op y is compiled on pairs, and the count of a shift.
func (w *wideInfo) shape(op syntax.Token, xe, ye syntax.Expr) (int, uint64) {
	if k, ok := bigBinary(w.sc, op, xe, ye); ok {
		if _, ok := constBits(k); ok {
			return shConst, 0
		}
		return shLeaf, 0
	}
	switch op {
	case syntax.PLUS:
		return shAdd, 0
	case syntax.MINUS:
		return shSub, 0
	case syntax.STAR:
		if w.opBits(xe) <= 64 || w.opBits(ye) <= 64 {
			return shMul, 0
		}
	case syntax.LTLT:
		if k, ok := bigConst(w.sc, ye); ok && k.IsInt64() && k.Int64() >= 0 && k.Int64() < maxWide {
			if k.Int64() < 64 || w.opBits(xe) <= 64 {
				return shShl, uint64(k.Int64())
			}
		} else if k, ok := bigConst(w.sc, xe); ok && !isConst(w.sc, ye) && k.Sign() >= 0 && k.BitLen() <= 64 {
			return shShlVar, 0
		}
	case syntax.GTGT:
		if k, ok := bigConst(w.sc, ye); ok && k.IsInt64() && k.Int64() >= 0 && k.Int64() < 1<<31 {
			return shShr, uint64(k.Int64())
		}
	case syntax.AMP:
		// Words masked, y & -x, y & ~x: fuse.Func.Exact compiles them
		// (the & of a negative int reads its word mod 2^64).
		if (w.bitsOf(xe) > 64 || w.bitsOf(ye) > 64) && !negated(xe) && !negated(ye) {
			return shBits, 0
		}
	case syntax.PIPE, syntax.CIRCUMFLEX:
		if w.bitsOf(xe) > 64 || w.bitsOf(ye) > 64 {
			return shBits, 0
		}
	case syntax.PERCENT:
		if w.bitsOf(xe) > 64 && w.bitsOf(ye) <= 64 {
			return shMod, 0
		}
	case syntax.SLASHSLASH:
		if w.bitsOf(xe) > 64 && w.bitsOf(ye) <= 64 {
			return shDiv, 0
		}
	}
	return shLeaf, 0
}

// negated reports whether e, as a pair, holds a - or ~ of a word.
func negated(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return negated(e.X)
	case *syntax.UnaryExpr:
		return e.Op == syntax.MINUS || e.Op == syntax.TILDE || e.X != nil && negated(e.X)
	case *syntax.BinaryExpr:
		return negated(e.X) || negated(e.Y)
	}
	return false
}

// grows reports whether an operand of x op y of shape sh that is a wide
// local is read as a word (checked): the operands of + * <<, so that a
// local assigned a sum of itself (Gosper's x, read in r = x + c) keeps
// its bound.
func grows(sh int) bool { return sh == shAdd || sh == shMul || sh == shShl }

// wideName reports whether e is a wide local.
func (w *wideInfo) wideName(e syntax.Expr) bool {
	id, ok := unparen(e).(*syntax.Ident)
	return ok && w.wide[id.Name]
}

// opBits is bitsOf of an operand of + * <<: 64 for a wide local (grows).
func (w *wideInfo) opBits(e syntax.Expr) int {
	if w.wideName(e) {
		return 64
	}
	return w.bitsOf(e)
}

// bitsOf returns a bound, in bits, of the int e gives as a pair (64 for a
// leaf, a word).
func (w *wideInfo) bitsOf(e syntax.Expr) int {
	if b, ok := w.memo[e]; ok {
		return b
	}
	b := w.bits1(e)
	w.memo[e] = b
	return b
}

func (w *wideInfo) bits1(e syntax.Expr) int {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return w.bitsOf(e.X)
	case *syntax.Literal, *syntax.Ident:
		if k, ok := bigConst(w.sc, e); ok {
			if b, ok := constBits(k); ok {
				return b
			}
			return 64
		}
		if id, ok := e.(*syntax.Ident); ok && w.wide[id.Name] {
			return w.bits[id.Name]
		}
	case *syntax.UnaryExpr:
		if k, ok := bigConst(w.sc, e); ok {
			if b, ok := constBits(k); ok {
				return b
			}
			return 64
		}
		if e.Op == syntax.PLUS && e.X != nil {
			return w.bitsOf(e.X)
		}
	case *syntax.BinaryExpr:
		return w.binBits(e.Op, e.X, e.Y)
	case *syntax.CallExpr:
		if a, b, isMax, ok := minMaxOf(w.sc, e); ok {
			if isMax {
				return max(w.bitsOf(a), w.bitsOf(b))
			}
			return min(w.bitsOf(a), w.bitsOf(b))
		}
	}
	return 64
}

// pairArgs reports whether min or max of a and b runs on pairs: one of
// them is past 64 bits.
func (w *wideInfo) pairArgs(a, b syntax.Expr) bool { return w.bitsOf(a) > 64 || w.bitsOf(b) > 64 }

// minMaxOf returns the operands of min(a, b) or max(a, b), Starlark's own,
// and whether it is max.
func minMaxOf(sc *scope, e syntax.Expr) (a, b syntax.Expr, isMax, ok bool) {
	call, isCall := unparen(e).(*syntax.CallExpr)
	name, named := callee(call)
	if !isCall || !named || name != "min" && name != "max" || len(call.Args) != 2 {
		return nil, nil, false, false
	}
	if _, local := sc.names[name]; local || sc.locals[name] || sc.src.Builtin != nil && !sc.src.Builtin(name) {
		return nil, nil, false, false
	}
	for _, a := range call.Args {
		if kw, ok := a.(*syntax.BinaryExpr); ok && kw.Op == syntax.EQ {
			return nil, nil, false, false
		}
	}
	return call.Args[0], call.Args[1], name == "max", true
}

// binBits is bitsOf of x op y.
func (w *wideInfo) binBits(op syntax.Token, xe, ye syntax.Expr) int {
	sh, k := w.shape(op, xe, ye)
	var b int
	switch sh {
	case shConst:
		c, _ := bigBinary(w.sc, op, xe, ye)
		b, _ = constBits(c)
	case shAdd:
		b = max(w.opBits(xe), w.opBits(ye)) + 1
	case shSub:
		b = w.bitsOf(xe)
	case shMul:
		b = w.opBits(xe) + w.opBits(ye)
	case shShl:
		b = w.opBits(xe) + int(k)
	case shShr:
		b = max(w.bitsOf(xe)-int(min(k, unbound)), 0)
	case shShlVar:
		// (a count past the pair's 128 bits fails its check)
		b = maxWide
	case shMod:
		b = w.bitsOf(ye)
	case shDiv:
		b = w.bitsOf(xe)
	case shBits:
		if op == syntax.AMP {
			b = min(w.bitsOf(xe), w.bitsOf(ye))
		} else {
			b = max(w.bitsOf(xe), w.bitsOf(ye))
		}
	default:
		// A word; where it is a part of one of the operands, its bound.
		b = 64
		switch op {
		case syntax.AMP:
			b = min(w.bitsOf(xe), w.bitsOf(ye), 64)
		case syntax.PERCENT:
			b = min(w.bitsOf(ye), 64)
		case syntax.SLASHSLASH, syntax.GTGT:
			b = min(w.bitsOf(xe), 64)
		}
	}
	return min(b, unbound)
}

// wideLocals finds the wide locals of sc, the function's own scope, and
// returns what the compiler needs of them.
func (c *compiler) wideLocals(sc *scope) *wideInfo {
	w := &wideInfo{bits: map[string]int{}, wide: map[string]bool{}, vars: map[string][2]int{}, sc: sc}
	type assign struct {
		name string
		op   syntax.Token // EQ or the operator of an augmented assignment
		rhs  syntax.Expr
	}
	var assigns []assign
	bad := map[string]bool{}
	for _, p := range sc.src.Params {
		bad[p.Name] = true
	}
	for name := range sc.negBias {
		bad[name] = true
	}
	// (a sum with a loop variable over a table holding a negative int
	// stays biased: signedloops.go)
	for name := range sc.signed {
		bad[name] = true
	}
	for name := range sc.appended {
		bad[name] = true
	}
	var binary []*syntax.BinaryExpr
	used := map[string]bool{} // the names read
	assigned := map[*syntax.Ident]bool{}
	for _, s := range sc.src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Ident:
				if !assigned[n] {
					used[n.Name] = true
				}
			case *syntax.ForStmt:
				markLocals(bad, n.Vars)
			case *syntax.AssignStmt:
				id, ok := n.LHS.(*syntax.Ident)
				if !ok {
					markLocals(bad, n.LHS)
					break
				}
				if n.Op == syntax.EQ {
					assigned[id] = true // (not a read)
				}
				if readsAny(n.RHS, sc.negBias) {
					// A sum with a signed local stays biased
					// (signedArith).
					bad[id.Name] = true
				}
				if n.Op == syntax.EQ {
					if !intValued(sc, n.RHS) {
						bad[id.Name] = true
					}
					assigns = append(assigns, assign{id.Name, syntax.EQ, n.RHS})
				} else if op, ok := augOps[n.Op]; ok {
					assigns = append(assigns, assign{id.Name, op, n.RHS})
				} else {
					bad[id.Name] = true
				}
			case *syntax.BinaryExpr:
				binary = append(binary, n)
			case *syntax.LambdaExpr, *syntax.DefStmt:
				return false
			}
			return true
		})
	}
	rhsBits := func(a assign) int {
		if a.op == syntax.EQ {
			return w.bitsOf(a.rhs)
		}
		return w.binBits(a.op, &syntax.Ident{Name: a.name}, a.rhs)
	}
	// The bounds: the most bits of the values each local is assigned,
	// until none grows (a bound that keeps growing is unbound).
	for round := 0; round < 24; round++ {
		w.memo = map[syntax.Expr]int{}
		w.wide = map[string]bool{}
		for name, b := range w.bits {
			w.wide[name] = b > 64 && b <= maxWide
		}
		grew := false
		for _, a := range assigns {
			if bad[a.name] {
				continue
			}
			if b := rhsBits(a); b > w.bits[a.name] {
				if round >= 12 {
					b = unbound
				}
				w.bits[a.name], grew = b, true
			}
		}
		if !grew {
			break
		}
	}
	// The wide locals: those read wide, until none drops out.
	w.wide = map[string]bool{}
	for name, b := range w.bits {
		if !bad[name] && b > 64 && b <= maxWide {
			w.wide[name] = true
		}
	}
	for round := 0; round < 16 && len(w.wide) > 0; round++ {
		w.memo = map[syntax.Expr]int{}
		read := map[string]bool{}
		for _, a := range assigns {
			if !w.wide[a.name] {
				continue
			}
			if a.op == syntax.EQ {
				w.reads(a.rhs, read)
			} else {
				w.reads(&syntax.BinaryExpr{Op: a.op, X: &syntax.Ident{Name: a.name}, Y: a.rhs}, read)
			}
		}
		for _, b := range binary {
			if w.site(b.Op, b.X, b.Y) {
				w.reads(b.X, read)
				w.reads(b.Y, read)
			}
		}
		same := true
		for name := range w.wide {
			// A local never read stays a pair: its value need not be a
			// word (limit = 1 << 64, unused).
			if !read[name] && used[name] {
				delete(w.wide, name)
				same = false
			}
		}
		if same {
			break
		}
	}
	w.memo = map[syntax.Expr]int{}
	return w
}

// intValued reports whether e, assigned to a name, is an int the pairs
// may hold: a literal, a name (but for True, False and None), a unary or
// binary operation on ints, min or max of two.
func intValued(sc *scope, e syntax.Expr) bool {
	if _, _, _, ok := minMaxOf(sc, e); ok {
		return true
	}
	switch e := unparen(e).(type) {
	case *syntax.Literal:
		return e.Token == syntax.INT
	case *syntax.Ident:
		return e.Name != "True" && e.Name != "False" && e.Name != "None"
	case *syntax.UnaryExpr:
		return e.Op == syntax.MINUS || e.Op == syntax.PLUS || e.Op == syntax.TILDE
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.PLUS, syntax.MINUS, syntax.STAR, syntax.SLASHSLASH, syntax.PERCENT,
			syntax.AMP, syntax.PIPE, syntax.CIRCUMFLEX, syntax.LTLT, syntax.GTGT:
			return !isRepeat(e) // ([False] * n is a list)
		}
	}
	return false
}

// reads adds to read the wide locals e reads as pairs.
func (w *wideInfo) reads(e syntax.Expr, read map[string]bool) {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		w.reads(e.X, read)
	case *syntax.Ident:
		if w.wide[e.Name] {
			read[e.Name] = true
		}
	case *syntax.UnaryExpr:
		if e.Op == syntax.PLUS && e.X != nil {
			w.reads(e.X, read)
		}
	case *syntax.CallExpr:
		if a, b, _, ok := minMaxOf(w.sc, e); ok && w.pairArgs(a, b) {
			w.reads(a, read)
			w.reads(b, read)
		}
	case *syntax.BinaryExpr:
		if sh, _ := w.shape(e.Op, e.X, e.Y); sh != shLeaf && sh != shConst {
			for _, o := range []syntax.Expr{e.X, e.Y} {
				if !grows(sh) || !w.wideName(o) {
					w.reads(o, read)
				}
			}
		}
	}
}

// site reports whether x op y, met as a word, is compiled on pairs: a
// comparison with an operand past 64 bits, a >> by a constant of an
// operand past 64 bits (but for a product of words that are variables
// and constants, or one of words shifted by 64 or more: fuse.Func.Exact
// makes both a 128-bit multiply), an & with a constant or a name whose
// other operand past 64 bits needs pairs (pairOnly).
func (w *wideInfo) site(op syntax.Token, xe, ye syntax.Expr) bool {
	if w.readsSigned(xe) || w.readsSigned(ye) {
		// (nr + 1) % 8, nr a biased sum: on the biased words
		// (signedloops.go), not on pairs, which read nr as a word.
		return false
	}
	switch op {
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE:
		return w.bitsOf(xe) > 64 && w.pairOnly(xe) || w.bitsOf(ye) > 64 && w.pairOnly(ye)
	}
	sh, k := w.shape(op, xe, ye)
	switch {
	case sh == shShr:
		if w.bitsOf(xe) <= 64 {
			return false
		}
		if m, ok := unparen(xe).(*syntax.BinaryExpr); ok && m.Op == syntax.STAR && w.bitsOf(m.X) <= 64 && w.bitsOf(m.Y) <= 64 {
			if k >= 64 || plain(m.X) && plain(m.Y) {
				return false
			}
		}
		return true
	case sh == shMod, sh == shDiv:
		return true
	case sh == shBits && op == syntax.AMP:
		// A mask: a constant or a name.
		return w.bitsOf(xe) > 64 && w.pairOnly(xe) && plain(ye) || w.bitsOf(ye) > 64 && w.pairOnly(ye) && plain(xe)
	}
	return false
}

// plain reports whether e is a name or a literal.
func plain(e syntax.Expr) bool {
	switch unparen(e).(type) {
	case *syntax.Ident, *syntax.Literal:
		return true
	}
	return false
}

// pairOnly reports whether e, as a pair, reads a wide local or a
// constant past 64 bits, or shifts an int past 64 bits right: what words
// (fuse.Func.Exact's checked and modular operands) cannot compute.
func (w *wideInfo) pairOnly(e syntax.Expr) bool {
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return w.pairOnly(e.X)
	case *syntax.Ident:
		return w.wide[e.Name] || w.bitsOf(e) > 64
	case *syntax.Literal:
		return w.bitsOf(e) > 64
	case *syntax.UnaryExpr:
		return e.Op == syntax.PLUS && e.X != nil && w.pairOnly(e.X)
	case *syntax.CallExpr:
		a, b, _, ok := minMaxOf(w.sc, e)
		return ok && w.pairArgs(a, b) && (w.pairOnly(a) || w.pairOnly(b))
	case *syntax.BinaryExpr:
		sh, _ := w.shape(e.Op, e.X, e.Y)
		switch sh {
		case shShr:
			return w.bitsOf(e.X) > 64
		case shShlVar:
			return true
		case shConst:
			return w.bitsOf(e) > 64
		case shLeaf:
			return false
		}
		return w.pairOnly(e.X) || w.pairOnly(e.Y)
	}
	return false
}

// wideOn returns the scope's wideInfo where x op y is a site of pairs.
func (c *compiler) wideSite(op syntax.Token, xe, ye syntax.Expr) bool {
	w := c.scope.wide
	return w != nil && w.site(op, xe, ye)
}

// foldWord folds x op y where both are int constants and the result is
// a word, with Options.Exact ((1 << 64) - 1 is a word, 1 << 64 is not).
func (c *compiler) foldWord(op syntax.Token, xe, ye syntax.Expr) (*fuse.Expr, bool) {
	if !c.opt.Exact {
		return nil, false
	}
	k, ok := bigBinary(c.scope, op, xe, ye)
	if !ok || k.Sign() < 0 || k.BitLen() > 64 {
		return nil, false
	}
	return constExpr(k.Uint64()), true
}

// wideBinary compiles x op y, a site of pairs (wideSite): a comparison
// of the pairs, or the low word of the pair, checked.
func (c *compiler) wideBinary(op syntax.Token, at syntax.Position, xe, ye syntax.Expr) (*fuse.Expr, error) {
	switch op {
	case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE:
		x, err := c.lower(xe)
		if err != nil {
			return nil, err
		}
		y, err := c.lower(ye)
		if err != nil {
			return nil, err
		}
		return c.compare(op, c.settle(x), c.settle(y)), nil
	}
	if op == syntax.AMP {
		if e, ok, err := c.maskedShift(xe, ye); ok || err != nil {
			return e, err
		}
	}
	v, err := c.lowerBin(op, at, xe, ye)
	if err != nil {
		return nil, err
	}
	return c.narrow(v, at, op.String()), nil
}

// maskedShift compiles (x >> k) & m, m a constant below 2^(64 - k) and x
// of words (no wide local, no constant past them), as ((x & U64) >> k) & m:
// its bits are those of x's low word, which fuse.Func.Exact computes
// with + - * << mod 2^64 (hash = ((A * x + B) >> 32) & 0xFFFFFFFF). It
// reports false where the & is not one.
func (c *compiler) maskedShift(xe, ye syntax.Expr) (*fuse.Expr, bool, error) {
	w := c.scope.wide
	for _, p := range [][2]syntax.Expr{{xe, ye}, {ye, xe}} {
		sh, ok := unparen(p[0]).(*syntax.BinaryExpr)
		if !ok || sh.Op != syntax.GTGT {
			continue
		}
		k, ok := bigConst(c.scope, sh.Y)
		m, isConst := bigConst(c.scope, p[1])
		if !ok || !isConst || !k.IsInt64() || k.Int64() < 0 || k.Int64() >= 64 || m.Sign() < 0 || m.BitLen()+int(k.Int64()) > 64 || w.pairOnly(sh.X) {
			continue
		}
		x, err := c.expr(sh.X)
		if err != nil {
			return nil, true, err
		}
		low := c.mk(fuse.OpAnd, x, constExpr(^uint64(0)))
		return c.mk(fuse.OpAnd, c.mk(fuse.OpShr, low, constExpr(uint64(k.Int64()))), constExpr(m.Uint64())), true, nil
	}
	return nil, false, nil
}

// compare compares two pairs whose words are variables or constants.
func (c *compiler) compare(op syntax.Token, x, y wideVal) *fuse.Expr {
	if op == syntax.GT || op == syntax.GE {
		x, y = y, x
		op = map[syntax.Token]syntax.Token{syntax.GT: syntax.LT, syntax.GE: syntax.LE}[op]
	}
	hi := func(v wideVal) *fuse.Expr {
		if v.hi == nil {
			return constExpr(0)
		}
		return cloneLeaf(v.hi)
	}
	e := func(o fuse.Op, a, b *fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: o, Args: []*fuse.Expr{a, b}, Check: -1}
	}
	lo := func(v wideVal) *fuse.Expr { return cloneLeaf(v.lo) }
	switch op {
	case syntax.EQL:
		return e(fuse.OpAndThen, e(fuse.OpEq, hi(x), hi(y)), e(fuse.OpEq, lo(x), lo(y)))
	case syntax.NEQ:
		return e(fuse.OpOrElse, e(fuse.OpNe, hi(x), hi(y)), e(fuse.OpNe, lo(x), lo(y)))
	}
	last := fuse.OpLt
	if op == syntax.LE {
		last = fuse.OpLe
	}
	return e(fuse.OpOrElse, e(fuse.OpLt, hi(x), hi(y)), e(fuse.OpAndThen, e(fuse.OpEq, hi(x), hi(y)), e(last, lo(x), lo(y))))
}

// cloneLeaf copies a variable or a constant.
func cloneLeaf(e *fuse.Expr) *fuse.Expr {
	d := *e
	return &d
}

// narrow returns v's low word, with a check that its high word is 0
// where it may not be.
func (c *compiler) narrow(v wideVal, at syntax.Position, what string) *fuse.Expr {
	if v.hi == nil {
		return v.lo
	}
	z := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{v.hi, constExpr(0)},
		Check: c.check(fuse.CheckFits, 0, at, "an int beyond 64 bits (%s)", what)}
	c.madeExact[z] = true
	c.pos[z] = at
	return &fuse.Expr{Op: fuse.OpOr, Args: []*fuse.Expr{v.lo, z}, Check: -1}
}

// spill keeps e in a variable of its own, unless it is one or a constant.
func (c *compiler) spill(e *fuse.Expr) *fuse.Expr {
	if e == nil || e.Op == fuse.OpVar || e.Op == fuse.OpConst {
		return e
	}
	t := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: e})
	return varExpr(t)
}

// settle spills both words of v.
func (c *compiler) settle(v wideVal) wideVal {
	v.lo, v.hi = c.spill(v.lo), c.spill(v.hi)
	return v
}

// exactOp makes op on args, an operation whose word is exact by
// construction (fuse.Func.Exact checks nothing of it).
func (c *compiler) exactOp(op fuse.Op, args ...*fuse.Expr) *fuse.Expr {
	e := &fuse.Expr{Op: op, Args: args, Check: -1}
	c.madeExact[e] = true
	return e
}

func plainOp(op fuse.Op, args ...*fuse.Expr) *fuse.Expr {
	return &fuse.Expr{Op: op, Args: args, Check: -1}
}

// constVal is the pair of a constant below 2^128.
func constVal(k *big.Int) wideVal {
	b, _ := constBits(k)
	lo := new(big.Int).And(k, new(big.Int).SetUint64(^uint64(0)))
	v := wideVal{lo: constExpr(lo.Uint64()), bits: b}
	if b > 64 {
		v.hi = constExpr(new(big.Int).Rsh(k, 64).Uint64())
	}
	return v
}

// lower compiles e as a pair.
func (c *compiler) lower(e syntax.Expr) (wideVal, error) {
	w := c.scope.wide
	switch e := e.(type) {
	case *syntax.ParenExpr:
		return c.lower(e.X)
	case *syntax.Literal, *syntax.Ident, *syntax.UnaryExpr:
		if k, ok := bigConst(c.scope, e); ok {
			if _, ok := constBits(k); ok {
				return constVal(k), nil
			}
			break
		}
		if id, ok := e.(*syntax.Ident); ok && w.wide[id.Name] {
			if vs, ok := w.vars[id.Name]; ok {
				return wideVal{lo: varExpr(vs[0]), hi: varExpr(vs[1]), bits: w.bitsOf(e)}, nil
			}
		}
		if u, ok := e.(*syntax.UnaryExpr); ok && u.Op == syntax.PLUS && u.X != nil {
			return c.lower(u.X)
		}
	case *syntax.BinaryExpr:
		return c.lowerBin(e.Op, e.OpPos, e.X, e.Y)
	case *syntax.CallExpr:
		if a, b, isMax, ok := minMaxOf(c.scope, e); ok && w.pairArgs(a, b) {
			return c.minMax(a, b, isMax, w.bitsOf(e))
		}
	}
	x, err := c.expr(e)
	return c.leafVal(x), err
}

// minMax compiles min(a, b) or max(a, b) of pairs: b where b < a (b > a),
// else a, as Starlark's min and max give the first of equal values.
func (c *compiler) minMax(ae, be syntax.Expr, isMax bool, bits int) (wideVal, error) {
	a, err := c.lower(ae)
	if err != nil {
		return wideVal{}, err
	}
	b, err := c.lower(be)
	if err != nil {
		return wideVal{}, err
	}
	a, b = c.settle(a), c.settle(b)
	pick := func() *fuse.Expr {
		if isMax {
			return c.compare(syntax.LT, a, b)
		}
		return c.compare(syntax.LT, b, a)
	}
	word := func(x *fuse.Expr) *fuse.Expr {
		if x == nil {
			return constExpr(0)
		}
		return cloneLeaf(x)
	}
	v := wideVal{lo: plainOp(fuse.OpCond, pick(), word(b.lo), word(a.lo)), bits: bits}
	if bits > 64 {
		v.hi = plainOp(fuse.OpCond, pick(), word(b.hi), word(a.hi))
	}
	return v, nil
}

// leafVal is the pair of a word compiled as one: a call held in a variable
// of its own, so that it runs once and in its turn.
func (c *compiler) leafVal(x *fuse.Expr) wideVal {
	if x == nil {
		return wideVal{}
	}
	if hasCall(x) {
		x = c.spill(x)
	}
	return wideVal{lo: x, bits: 64}
}

// lowerBin compiles x op y as a pair.
func (c *compiler) lowerBin(op syntax.Token, at syntax.Position, xe, ye syntax.Expr) (wideVal, error) {
	w := c.scope.wide
	sh, k := w.shape(op, xe, ye)
	bits := w.binBits(op, xe, ye)
	switch sh {
	case shConst:
		v, _ := bigBinary(c.scope, op, xe, ye)
		return constVal(v), nil
	case shLeaf:
		x, err := c.binary(op, at, xe, ye)
		return c.leafVal(x), err
	}
	operand := func(e syntax.Expr) (wideVal, error) {
		if grows(sh) && w.wideName(e) {
			x, err := c.expr(e)
			return c.leafVal(x), err
		}
		return c.lower(e)
	}
	if sh == shShlVar {
		return c.shlVar(xe, ye)
	}
	if sh == shMod {
		return c.mod(at, xe, ye)
	}
	if sh == shDiv {
		return c.div(at, xe, ye, bits)
	}
	x, err := operand(xe)
	if err != nil {
		return wideVal{}, err
	}
	var y wideVal
	if sh != shShl && sh != shShr {
		if y, err = operand(ye); err != nil {
			return wideVal{}, err
		}
	}
	// The words an operation reads twice are kept in variables.
	if bits > 64 && (sh == shAdd || sh == shMul || sh == shShl) || sh == shSub && (x.hi != nil || y.hi != nil) {
		x.lo, y.lo = c.spill(x.lo), c.spill(y.lo)
	}
	v := wideVal{bits: bits}
	switch sh {
	case shAdd:
		v.lo = c.exactOp(fuse.OpAdd, x.lo, y.lo)
		if bits <= 64 {
			break
		}
		carry := c.exactOp(fuse.OpLt, c.exactOp(fuse.OpAdd, cloneLeaf(x.lo), cloneLeaf(y.lo)), cloneLeaf(x.lo))
		v.hi = carry
		if x.hi != nil {
			v.hi = plainOp(fuse.OpAdd, x.hi, v.hi)
		}
		if y.hi != nil {
			v.hi = plainOp(fuse.OpAdd, v.hi, y.hi)
		}
	case shSub:
		if x.hi == nil && y.hi == nil {
			v.lo = plainOp(fuse.OpSub, x.lo, y.lo) // checked: no pair is negative
			break
		}
		// The high words' difference less the borrow, checked: no pair
		// is negative (an & that drops the high word reads the low word
		// of a negative int, as Starlark's & does).
		hx, hy := x.hi, y.hi
		if hx == nil {
			hx = constExpr(0)
		}
		if hy == nil {
			hy = constExpr(0)
		}
		v.lo = c.exactOp(fuse.OpSub, x.lo, y.lo)
		borrow := c.exactOp(fuse.OpLt, cloneLeaf(x.lo), cloneLeaf(y.lo))
		v.hi = plainOp(fuse.OpSub, plainOp(fuse.OpSub, hx, hy), borrow)
		if bits <= 64 {
			v = wideVal{lo: c.narrow(v, syntax.Position{}, "-"), bits: bits}
		}
	case shMul:
		if x.hi != nil {
			x, y = y, x
		}
		v.lo = c.exactOp(fuse.OpMul, x.lo, y.lo)
		if bits <= 64 {
			break
		}
		v.hi = plainOp(fuse.OpMulHi, cloneLeaf(x.lo), cloneLeaf(y.lo))
		if y.hi != nil {
			v.hi = plainOp(fuse.OpAdd, plainOp(fuse.OpMul, cloneLeaf(x.lo), y.hi), v.hi)
		}
	case shShl:
		if k == 0 {
			return x, nil
		}
		if k >= 64 {
			// x.hi is nil (shape): the low word moves up.
			v.lo = constExpr(0)
			v.hi = plainOp(fuse.OpShl, x.lo, constExpr(k-64))
			if bits <= 64 {
				v.lo, v.hi = v.hi, nil
			}
			break
		}
		v.lo = c.exactOp(fuse.OpShl, x.lo, constExpr(k))
		if bits <= 64 {
			v.lo = plainOp(fuse.OpShl, x.lo, constExpr(k)) // checked, though it cannot fail
			break
		}
		v.hi = c.exactOp(fuse.OpShr, cloneLeaf(x.lo), constExpr(64-k))
		if x.hi != nil {
			v.hi = c.exactOp(fuse.OpOr, plainOp(fuse.OpShl, x.hi, constExpr(k)), v.hi)
		}
	case shShr:
		return c.shr(x, k, bits), nil
	case shBits:
		o := map[syntax.Token]fuse.Op{syntax.AMP: fuse.OpAnd, syntax.PIPE: fuse.OpOr, syntax.CIRCUMFLEX: fuse.OpXor}[op]
		v.lo = c.exactOp(o, x.lo, y.lo)
		switch {
		case x.hi != nil && y.hi != nil:
			v.hi = c.exactOp(o, x.hi, y.hi)
		case o != fuse.OpAnd && x.hi != nil:
			v.hi = x.hi
		case o != fuse.OpAnd && y.hi != nil:
			v.hi = y.hi
		}
		if bits <= 64 && v.hi != nil {
			// (never: the bound of a pair with a high word is above 64)
			v.lo = c.narrow(v, syntax.Position{}, op.String())
			v.hi = nil
		}
	}
	return v, nil
}

// shlVar compiles k << n, k a constant word and n a count known at run
// time (1 << n, a limit of n bits), as a pair: its low word k << n where n
// is below 64, else 0; its high word k >> (64 - n) where n is below 64,
// else k << (n - 64), checked (a pair holds 128 bits: a count that passes
// them fails the run). A count of 512 or more fails the run where it is
// read, as it fails in Starlark.
func (c *compiler) shlVar(xe, ye syntax.Expr) (wideVal, error) {
	k, _ := bigConst(c.scope, xe)
	n, err := c.expr(ye)
	if err != nil {
		return wideVal{}, err
	}
	// Starlark's count is below 512 whatever reads the int (an & of the
	// low word drops the high word and its check): the check is the low
	// word's.
	fits := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{n, constExpr(511)},
		Check: c.check(fuse.CheckFits, 9, c.start(ye), "an int of more than 9 bits where the code takes fewer (an index, a shift count, a range bound)")}
	c.madeExact[fits] = true
	n = c.spill(fits)
	kw := constExpr(k.Uint64())
	small := func() *fuse.Expr { return plainOp(fuse.OpLt, cloneLeaf(n), constExpr(64)) }
	lo := plainOp(fuse.OpCond, small(), c.exactOp(fuse.OpShl, kw, cloneLeaf(n)), constExpr(0))
	up := plainOp(fuse.OpShl, cloneLeaf(kw), c.exactOp(fuse.OpSub, cloneLeaf(n), constExpr(64)))
	up.Check = c.check(fuse.CheckShlExact, 0, c.start(xe), "an int beyond 128 bits (<<)")
	hi := plainOp(fuse.OpCond, small(), c.exactOp(fuse.OpShr, cloneLeaf(kw), c.exactOp(fuse.OpSub, constExpr(64), cloneLeaf(n))), up)
	return wideVal{lo: lo, hi: hi, bits: maxWide}, nil
}

// mod compiles x % m, x a pair and m a word: lo % m where the high word
// is 0, else ((hi % m) * (2^64 % m) + lo % m) % m, whose words hold for m
// below 2^32 (checked: a greater modulus fails the run; the integer
// modulo by zero fails it as Starlark fails). A product mod a prime below
// 2^32 ((a * b) % 1000000007) runs so.
func (c *compiler) mod(at syntax.Position, xe, ye syntax.Expr) (wideVal, error) {
	x, err := c.lower(xe)
	if err != nil {
		return wideVal{}, err
	}
	m, err := c.lower(ye)
	if err != nil {
		return wideVal{}, err
	}
	bits := c.scope.wide.bitsOf(ye)
	mod := func(a, b *fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: fuse.OpMod, Args: []*fuse.Expr{a, b}, Check: c.check(fuse.CheckNonZero, 0, at, "integer modulo by zero")}
	}
	if x.hi == nil {
		return wideVal{lo: mod(x.lo, m.lo), bits: bits}, nil
	}
	x, m = c.settle(x), c.settle(m)
	small := cloneLeaf(m.lo)
	var t *fuse.Expr // 2^64 mod m
	if k, ok := bigConst(c.scope, ye); ok {
		if k.Sign() > 0 && k.BitLen() <= 32 {
			t = constExpr(new(big.Int).Mod(new(big.Int).Lsh(big.NewInt(1), 64), k).Uint64())
		}
	}
	if t == nil || bits > 32 {
		fits := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{cloneLeaf(m.lo), constExpr(1<<32 - 1)},
			Check: c.check(fuse.CheckFits, 32, c.start(xe), "an int beyond 64 bits mod 2^32 or more (%%)")}
		c.madeExact[fits] = true
		small = fits
	}
	if t == nil {
		// (2^64 - 1) % m + 1 is 2^64 % m, or m
		t = mod(c.exactOp(fuse.OpAdd, mod(constExpr(^uint64(0)), cloneLeaf(m.lo)), constExpr(1)), cloneLeaf(m.lo))
	}
	h := mod(cloneLeaf(x.hi), small)
	sum := c.exactOp(fuse.OpAdd, c.exactOp(fuse.OpMul, h, t), mod(cloneLeaf(x.lo), cloneLeaf(m.lo)))
	full := mod(sum, cloneLeaf(m.lo))
	direct := mod(cloneLeaf(x.lo), cloneLeaf(m.lo))
	return wideVal{lo: plainOp(fuse.OpCond, plainOp(fuse.OpEq, cloneLeaf(x.hi), constExpr(0)), direct, full), bits: bits}, nil
}

// div compiles x // m, x a pair and m a word: lo // m where the high word
// is 0, else the long division of the pair by m in 32-bit digits, whose
// words hold for m below 2^32 (checked: a greater divisor fails the run,
// as the integer division by zero fails it as Starlark fails): x * 1000
// // 1024, (a * b) // c.
func (c *compiler) div(at syntax.Position, xe, ye syntax.Expr, bits int) (wideVal, error) {
	x, err := c.lower(xe)
	if err != nil {
		return wideVal{}, err
	}
	m, err := c.lower(ye)
	if err != nil {
		return wideVal{}, err
	}
	op := func(o fuse.Op, a, b *fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: o, Args: []*fuse.Expr{a, b}, Check: c.check(fuse.CheckNonZero, 0, at, "integer division by zero")}
	}
	if x.hi == nil {
		return wideVal{lo: op(fuse.OpDiv, x.lo, m.lo), bits: bits}, nil
	}
	x, m = c.settle(x), c.settle(m)
	lo, hi := c.newVar(), c.newVar()
	set := func(v int, e *fuse.Expr) fuse.Stmt { return fuse.Stmt{Kind: fuse.SAssign, Var: v, X: e} }
	var long []fuse.Stmt
	tmp := func(e *fuse.Expr) *fuse.Expr {
		t := c.newVar()
		long = append(long, set(t, e))
		return varExpr(t)
	}
	fits := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{cloneLeaf(m.lo), constExpr(1<<32 - 1)},
		Check: c.check(fuse.CheckFits, 32, c.start(xe), "an int beyond 64 bits divided by 2^32 or more (//)")}
	c.madeExact[fits] = true
	d := tmp(fits)
	qh := tmp(op(fuse.OpDiv, cloneLeaf(x.hi), cloneLeaf(d)))
	rh := tmp(op(fuse.OpMod, cloneLeaf(x.hi), cloneLeaf(d)))
	// Two digits of 32 bits: each step divides a word below d * 2^32.
	a1 := tmp(c.exactOp(fuse.OpOr, c.exactOp(fuse.OpShl, rh, constExpr(32)), c.exactOp(fuse.OpShr, cloneLeaf(x.lo), constExpr(32))))
	q1 := tmp(op(fuse.OpDiv, a1, cloneLeaf(d)))
	r1 := tmp(op(fuse.OpMod, cloneLeaf(a1), cloneLeaf(d)))
	a0 := tmp(c.exactOp(fuse.OpOr, c.exactOp(fuse.OpShl, r1, constExpr(32)), c.exactOp(fuse.OpAnd, cloneLeaf(x.lo), constExpr(1<<32-1))))
	q0 := op(fuse.OpDiv, a0, cloneLeaf(d))
	long = append(long, set(lo, c.exactOp(fuse.OpOr, c.exactOp(fuse.OpShl, q1, constExpr(32)), q0)), set(hi, qh))
	c.emit(fuse.Stmt{Kind: fuse.SIf, X: plainOp(fuse.OpEq, cloneLeaf(x.hi), constExpr(0)),
		Body: []fuse.Stmt{set(lo, op(fuse.OpDiv, cloneLeaf(x.lo), cloneLeaf(m.lo))), set(hi, constExpr(0))},
		Else: long})
	v := wideVal{lo: varExpr(lo), bits: bits}
	if bits > 64 {
		v.hi = varExpr(hi)
	}
	return v, nil
}

// isConst reports whether e is an int constant.
func isConst(sc *scope, e syntax.Expr) bool {
	_, ok := bigConst(sc, e)
	return ok
}

// shr shifts the pair x right by k: its words read both of x's, so that
// their checks stay; a count of 64 or more goes by steps of 63.
func (c *compiler) shr(x wideVal, k uint64, bits int) wideVal {
	if k == 0 {
		return x
	}
	if x.hi == nil {
		return wideVal{lo: c.exactOp(fuse.OpShr, x.lo, constExpr(min(k, 64))), bits: bits}
	}
	if k >= 64 {
		return c.shr(c.shr(x, 63, max(x.bits-63, 0)), k-63, bits)
	}
	if bits > 64 {
		x.hi = c.spill(x.hi)
	}
	v := wideVal{bits: bits}
	v.lo = c.exactOp(fuse.OpOr, c.exactOp(fuse.OpShr, x.lo, constExpr(k)), c.exactOp(fuse.OpShl, x.hi, constExpr(64-k)))
	if bits > 64 {
		v.hi = c.exactOp(fuse.OpShr, cloneLeaf(x.hi), constExpr(k))
	}
	return v
}

// wideAssign compiles name = rhs, or name op= rhs, to a wide local, and
// reports whether name is one.
func (c *compiler) wideAssign(id *syntax.Ident, op syntax.Token, at syntax.Position, rhs syntax.Expr) (bool, error) {
	w := c.scope.wide
	if w == nil || !w.wide[id.Name] {
		return false, nil
	}
	var v wideVal
	var err error
	if op == syntax.EQ {
		v, err = c.lower(rhs)
	} else {
		v, err = c.lowerBin(op, at, id, rhs)
	}
	if err != nil {
		return true, err
	}
	if v.bits > w.bits[id.Name] {
		// (never: the bound holds every value assigned)
		v = wideVal{lo: c.spill(c.narrow(v, id.NamePos, id.Name)), bits: 64}
	}
	vs, ok := w.vars[id.Name]
	if !ok {
		vs = [2]int{c.newVar(), c.newVar()}
		w.vars[id.Name] = vs
		c.scope.names[id.Name] = binding{kind: bVar, id: vs[0]}
		c.varNames[[2]int{c.unit, vs[0]}] = id.Name
		c.varNames[[2]int{c.unit, vs[1]}] = id.Name
	}
	// The high word first, from the values before the assignment.
	hi := c.spill(v.hi)
	if hi == nil {
		hi = constExpr(0)
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vs[0], X: v.lo})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: vs[1], X: hi})
	return true, nil
}

// wideRead compiles a read of a wide local as a word: its low word,
// checked, or false where name is not one.
func (c *compiler) wideRead(id *syntax.Ident) (*fuse.Expr, bool) {
	w := c.scope.wide
	if w == nil || !w.wide[id.Name] {
		return nil, false
	}
	vs, ok := w.vars[id.Name]
	if !ok {
		return nil, false
	}
	return c.narrow(wideVal{lo: varExpr(vs[0]), hi: varExpr(vs[1])}, id.NamePos, id.Name), true
}

// readsAny reports whether e reads a name of names.
func readsAny(e syntax.Expr, names map[string]uint64) bool {
	found := false
	syntax.Walk(e, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			if _, ok := names[id.Name]; ok {
				found = true
			}
		}
		return !found
	})
	return found
}
