package fuse

// TailCalls turns the calls a Proc makes of itself as the last thing it
// does into jumps back to its start, as C compilers do (docs/fuse.md,
// "Recursion"): `return f(args)`, and `return x + f(args)` (x computed
// first, then added to an accumulator that every later return adds in;
// words wrap mod 2^64, so the sum is the same). Such a return, where no
// loop or block encloses it, becomes: the depth check of the call, the
// arguments, the parameters set to them and every other variable to 0 (a
// frame's start, as Eval gives it), the Proc's leading guards, and a jump
// back. Array arguments must be the Proc's own array parameters, passed on
// in place; a call that passes other arrays stays a call.
//
// The depth check counts the calls the jumps stand for, from the depth the
// Proc was called at: a chain of tail calls fails where its calls would
// have. A call the Proc then makes starts from its own frame's depth, so a
// chain mixing both goes deeper before it fails than the calls it stands
// for would (the depth limit guards the frames in use, which the jumps do
// not take).
func (f *Func) TailCalls() {
	for i := range f.Procs {
		f.tailCalls(i, false)
	}
}

// LeafTailCalls is TailCalls for the Procs that make no other call: their
// chains of jumps end the chains of calls, so the depth they check counts
// every call a Starlark run of the same functions makes (the frames its
// interpreter would take). A Proc that also makes other calls keeps its
// calls in tail position as calls. Exact compilation uses it.
func (f *Func) LeafTailCalls() {
	for i := range f.Procs {
		f.tailCalls(i, true)
	}
}

// tailCalls rewrites Proc i (see TailCalls); leaf: only where every call
// it makes is in tail position.
func (f *Func) tailCalls(i int, leaf bool) {
	p := &f.Procs[i]
	guards := p.Body[:p.Guards()]
	rest := p.Body[len(guards):]
	tails, acc := 0, false
	eachTail(rest, func(s *Stmt) {
		if _, call := tailCall(p, i, s.X); call != nil {
			tails++
			if s.X.Op == OpAdd {
				acc = true
			}
		}
	})
	if tails == 0 || leaf && callsIn(rest) > tails {
		return
	}
	vars := p.Vars
	depth := newVar(p)
	accVar := -1
	if acc {
		accVar = newVar(p)
	}
	temps := make([]int, p.Params)
	for k := range temps {
		temps[k] = -1
	}
	label := p.Labels
	p.Labels++

	jump := func(s *Stmt) []Stmt {
		left, call := tailCall(p, i, s.X)
		if call == nil {
			return nil
		}
		var out []Stmt
		if left != nil {
			out = append(out, Stmt{Kind: SAssign, Var: accVar, X: binary(OpAdd, varExpr(accVar), left)})
		}
		out = append(out, Stmt{Kind: SIf,
			X:    binary(OpGe, varExpr(depth), constExpr(uint64(f.MaxCalls()))),
			Body: []Stmt{{Kind: SFail, Check: call.Check, X: varExpr(depth)}}})
		out = append(out, f.setParams(p, call.Args[:p.Params], temps)...)
		for v := p.Params; v < vars; v++ {
			out = append(out, Stmt{Kind: SAssign, Var: v, X: constExpr(0)})
		}
		out = append(out, Stmt{Kind: SAssign, Var: depth, X: binary(OpAdd, varExpr(depth), constExpr(1))})
		for _, g := range guards {
			g.X = cloneExpr(g.X)
			g.Body = []Stmt{{Kind: SReturn, X: cloneExpr(g.Body[0].X)}}
			out = append(out, g)
		}
		return append(out, Stmt{Kind: SContinue, Label: label})
	}
	body := rewriteTails(rest, jump)
	if accVar >= 0 {
		addAccumulator(body, func(x *Expr) *Expr { return binary(OpAdd, varExpr(accVar), x) })
	}
	init := []Stmt{{Kind: SAssign, Var: depth, X: &Expr{Op: OpDepth, Check: -1}}}
	if accVar >= 0 {
		init = append(init, Stmt{Kind: SAssign, Var: accVar, X: constExpr(0)})
	}
	out := append(append(append([]Stmt(nil), guards...), init...),
		Stmt{Kind: SWhile, X: constExpr(1), Label: label, Body: body},
		Stmt{Kind: SReturn, X: constExpr(0)}) // never reached: the loop only returns
	p.Body = out
}

// setParams returns the statements that set p's parameters to args, as a
// call would bind them. A parameter passed on unchanged needs nothing.
// Where the arguments are pure (no call, no check: their order cannot
// show), each is assigned once no other still to be assigned reads the
// parameter it sets, a parameter some other reads in a cycle first saved
// in a temporary; else the arguments go left to right into temporaries
// first. temps holds the temporary of each parameter (-1: none yet).
func (f *Func) setParams(p *Proc, args []*Expr, temps []int) []Stmt {
	temp := func(k int) int {
		if temps[k] < 0 {
			temps[k] = newVar(p)
		}
		return temps[k]
	}
	var pending []int
	for k, a := range args {
		if a.Op != OpVar || a.Imm != uint64(k) {
			pending = append(pending, k)
		}
	}
	var out []Stmt
	if !pureArgs(args) {
		var set []Stmt
		for _, k := range pending {
			out = append(out, Stmt{Kind: SAssign, Var: temp(k), X: args[k]})
			set = append(set, Stmt{Kind: SAssign, Var: k, X: varExpr(temp(k))})
		}
		return append(out, set...)
	}
	args = append([]*Expr(nil), args...)
	for len(pending) > 0 {
		next := -1
		for i, k := range pending {
			free := true
			for _, j := range pending {
				if j != k && reads(args[j], k) {
					free = false
					break
				}
			}
			if free {
				next = i
				break
			}
		}
		if next < 0 {
			// A cycle: save the first parameter, and let the others read
			// the copy.
			k := pending[0]
			t := temp(k)
			out = append(out, Stmt{Kind: SAssign, Var: t, X: varExpr(k)})
			for _, j := range pending[1:] {
				args[j] = renameVar(args[j], k, t)
			}
			continue
		}
		k := pending[next]
		out = append(out, Stmt{Kind: SAssign, Var: k, X: args[k]})
		pending = append(pending[:next], pending[next+1:]...)
	}
	return out
}

// callsIn counts the calls (OpCall) in ss.
func callsIn(ss []Stmt) int {
	n := 0
	var expr func(x *Expr)
	expr = func(x *Expr) {
		if x == nil {
			return
		}
		if x.Op == OpCall {
			n++
		}
		for _, a := range x.Args {
			expr(a)
		}
	}
	eachStmt(ss, func(s *Stmt) {
		expr(s.X)
		expr(s.Y)
		expr(s.Z)
	})
	return n
}

// pureArgs reports whether xs call and check nothing and read no array
// (their order of evaluation cannot show).
func pureArgs(xs []*Expr) bool {
	for _, x := range xs {
		if x.Check >= 0 || x.Op == OpCall || x.Op == OpScratch || x.Op == OpArray || x.Op == OpDepth || x.Op == OpResult || !pureArgs(x.Args) {
			return false
		}
	}
	return true
}

// reads reports whether x reads variable v.
func reads(x *Expr, v int) bool {
	if x.Op == OpVar && x.Imm == uint64(v) {
		return true
	}
	for _, a := range x.Args {
		if reads(a, v) {
			return true
		}
	}
	return false
}

// renameVar returns x with its reads of variable v reading w instead.
func renameVar(x *Expr, v, w int) *Expr {
	if x.Op == OpVar && x.Imm == uint64(v) {
		return varExpr(w)
	}
	if !reads(x, v) {
		return x
	}
	y := *x
	y.Args = make([]*Expr, len(x.Args))
	for k, a := range x.Args {
		y.Args[k] = renameVar(a, v, w)
	}
	return &y
}

// Guards returns how many statements p.Body starts with that are guards:
// "if X: return Y" whose X and Y read only p's word parameters and call,
// load and check nothing, so that they give the same result run on the
// arguments where p is called as in a frame of p. The x86-64 and
// WebAssembly engines run them at call sites, TailCalls at each jump.
func (p *Proc) Guards() int {
	n := 0
	for n < len(p.Body) {
		s := &p.Body[n]
		if s.Kind != SIf || len(s.Else) > 0 || len(s.Body) != 1 || s.Body[0].Kind != SReturn ||
			!onParams(s.X, p.Params) || !onParams(s.Body[0].X, p.Params) {
			break
		}
		n++
	}
	return n
}

// onParams reports whether x reads only variables below params and
// calls, loads and checks nothing.
func onParams(x *Expr, params int) bool {
	if x.Check >= 0 {
		return false
	}
	switch x.Op {
	case OpVar:
		return x.Imm < uint64(params)
	case OpLoad, OpLoad2, OpRowLen, OpScratch, OpCall, OpArray, OpDepth, OpResult:
		return false
	}
	for _, a := range x.Args {
		if !onParams(a, params) {
			return false
		}
	}
	return true
}

// tailCall returns the call of Proc i that x, a returned expression of it,
// ends with, and the expression added before it (nil for none): x is the
// call, or left + the call. It returns a nil call where x is neither or
// the call passes arrays other than Proc i's own array parameters, in
// order.
func tailCall(p *Proc, i int, x *Expr) (left, call *Expr) {
	if x == nil {
		return nil, nil
	}
	call = x
	if x.Op == OpAdd && x.Check < 0 {
		left, call = x.Args[0], x.Args[1]
	}
	if call.Op != OpCall || call.Imm != uint64(i) {
		return nil, nil
	}
	for k := 0; k < p.Arrays; k++ {
		if a := call.Args[p.Params+k]; a.Op != OpArray || a.Imm != uint64(k) {
			return nil, nil
		}
	}
	return left, call
}

// rewriteTails returns a copy of ss with each return statement that no
// loop or block encloses (through ifs only) replaced by jump's statements
// for it, where jump gives any.
func rewriteTails(ss []Stmt, jump func(s *Stmt) []Stmt) []Stmt {
	var out []Stmt
	for _, s := range ss {
		switch s.Kind {
		case SReturn:
			if j := jump(&s); j != nil {
				out = append(out, j...)
				continue
			}
		case SIf:
			s.Body = rewriteTails(s.Body, jump)
			s.Else = rewriteTails(s.Else, jump)
		default:
			s.Body = cloneStmts(s.Body)
			s.Else = cloneStmts(s.Else)
		}
		out = append(out, s)
	}
	return out
}

// eachTail calls visit with each return statement of ss that no loop or
// block encloses (through ifs only).
func eachTail(ss []Stmt, visit func(s *Stmt)) {
	for k := range ss {
		s := &ss[k]
		switch s.Kind {
		case SReturn:
			visit(s)
		case SIf:
			eachTail(s.Body, visit)
			eachTail(s.Else, visit)
		}
	}
}

// addAccumulator rewrites every return of ss, at any depth, to return
// ret of its value (the statements are ss's own: rewriteTails copied them).
func addAccumulator(ss []Stmt, ret func(*Expr) *Expr) {
	for k := range ss {
		s := &ss[k]
		if s.Kind == SReturn {
			s.X = ret(s.X)
		}
		addAccumulator(s.Body, ret)
		addAccumulator(s.Else, ret)
	}
}

// cloneStmts copies ss and the statements in them (expressions are shared:
// nothing rewrites them in place).
func cloneStmts(ss []Stmt) []Stmt {
	if ss == nil {
		return nil
	}
	out := make([]Stmt, len(ss))
	for k, s := range ss {
		s.Body = cloneStmts(s.Body)
		s.Else = cloneStmts(s.Else)
		out[k] = s
	}
	return out
}

// cloneExpr copies x deeply: code generators key what they learn by
// expression, so an expression copied to a second place is a new one.
func cloneExpr(x *Expr) *Expr {
	y := *x
	y.Args = make([]*Expr, len(x.Args))
	for k, a := range x.Args {
		y.Args[k] = cloneExpr(a)
	}
	return &y
}

func newVar(p *Proc) int {
	p.Vars++
	return p.Vars - 1
}

func varExpr(v int) *Expr            { return &Expr{Op: OpVar, Imm: uint64(v), Check: -1} }
func constExpr(c uint64) *Expr       { return &Expr{Op: OpConst, Imm: c, Check: -1} }
func binary(op Op, a, b *Expr) *Expr { return &Expr{Op: op, Args: []*Expr{a, b}, Check: -1} }
