package compile

import (
	"fmt"
	"slices"

	"github.com/bitsh/bitsh/builtins/chess"
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// The chess module inside a fused function (docs/fuse.md, "The chess
// module"): its int constants read as constants, and its attack functions
// of one square compile to the table lookups they are, the step attacks
// from 64-entry tables and the sliders from their magic-bitboard entries.
// A square outside 0..63 fails naming the function; pawn_attacks' white
// takes a bool or the 0 or 1 of a comparison.

// chessModule returns the chess module that the name x of a dotted
// expression reads, if it does.
func (c *compiler) chessModule(x syntax.Expr) (*starlarkstruct.Module, bool) {
	id, ok := unparen(x).(*syntax.Ident)
	if !ok {
		return nil, false
	}
	if _, local := c.scope.names[id.Name]; local || c.scope.locals[id.Name] {
		return nil, false
	}
	v, ok := c.scope.src.Free(id.Name)
	if !ok {
		return nil, false
	}
	m, ok := v.(*starlarkstruct.Module)
	if !ok || m.Name != "chess" {
		return nil, false
	}
	// bitsh's own module: its functions are bitsh's builtins.
	if b, ok := m.Members["knight_attacks"].(*starlark.Builtin); !ok || b.Name() != "chess.knight_attacks" {
		return nil, false
	}
	return m, true
}

// chessConstant compiles chess.NAME for an int constant of the module.
func (c *compiler) chessConstant(e *syntax.DotExpr, m *starlarkstruct.Module) (*fuse.Expr, error) {
	v, ok := m.Members[e.Name.Name]
	if !ok {
		return nil, errAt(e.Name.NamePos, "chess has no member %s", e.Name.Name)
	}
	if _, ok := v.(*starlark.Builtin); ok {
		return nil, errAt(e.Name.NamePos, "chess.%s is a function: call it", e.Name.Name)
	}
	w, ok := WordOf(v)
	if !ok {
		return nil, errAt(e.Name.NamePos, "chess.%s is a %s; a fused function reads the module's ints and calls its attack functions", e.Name.Name, v.Type())
	}
	return constExpr(w), nil
}

// chessTables are the tables of the attack functions, added to a Func on
// first use.
type chessTables struct {
	knight, king, pawn                 int
	rookMask, rookMul, rookShift, rook int
	bishopMask, bishopMul, bishopShift int
	bishop                             int
}

func (c *compiler) chessTable(id *int, name string, build func() fuse.Table) (int, error) {
	if *id > 0 {
		return *id - 1, nil
	}
	t := build()
	t.Name = name
	i, _, err := c.addTable(t)
	if err != nil {
		return 0, err
	}
	*id = i + 1
	return i, nil
}

func flat64(f func(sq int) uint64) fuse.Table {
	row := make([]uint64, 64)
	for sq := range row {
		row[sq] = f(sq)
	}
	return fuse.Table{Flat: true, Rows: [][]uint64{row}}
}

// sliderTables returns the mask, multiplier, shift and attack tables of
// the rook's or the bishop's magics.
func sliderTables(magic func(int) (uint64, uint64, uint, []uint64)) (mask, mul, shift, att fuse.Table) {
	mask = flat64(func(sq int) uint64 { m, _, _, _ := magic(sq); return m })
	mul = flat64(func(sq int) uint64 { _, k, _, _ := magic(sq); return k })
	shift = flat64(func(sq int) uint64 { _, _, s, _ := magic(sq); return uint64(s) })
	for sq := 0; sq < 64; sq++ {
		_, _, _, a := magic(sq)
		att.Rows = append(att.Rows, a)
	}
	return
}

// chessCall compiles chess.NAME(args) for an attack function. With
// Options.Exact, the expressions the lowering makes (the magic multiply
// wraps on purpose) are given to fuse.Func.Exact as exact, the arguments'
// own expressions are typed as any others, and white must be a bool (a
// comparison, a not, True or False) or a variable.
func (c *compiler) chessCall(e *syntax.CallExpr, fn *syntax.DotExpr) (*fuse.Expr, error) {
	if !c.opt.Exact {
		r, _, _, err := c.chessLower(e, fn)
		return r, err
	}
	from := len(*c.out)
	r, args, argAt, err := c.chessLower(e, fn)
	if err != nil {
		return nil, err
	}
	user := map[*fuse.Expr]bool{}
	for _, a := range args {
		user[a] = a != nil
	}
	if fn.Name.Name == "pawn_attacks" && args[1] != nil {
		switch args[1].Op {
		case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe, fuse.OpLNot, fuse.OpBool, fuse.OpVar:
			// A variable holds a bool (its word 0 or 1) or an int (the
			// builtin takes 0 and 1, the check of fits fails on others).
			c.madeExact[args[1]] = true
		default:
			return nil, errAt(pos(argAt[1]), "chess.pawn_attacks: white must be a bool (a comparison, a not, True or False, bool(x) or a variable) in a function run as machine code")
		}
	}
	var mark func(x *fuse.Expr)
	mark = func(x *fuse.Expr) {
		if x == nil || user[x] {
			return
		}
		c.madeExact[x] = true
		for _, a := range x.Args {
			mark(a)
		}
	}
	for _, st := range (*c.out)[from:] {
		mark(st.X)
	}
	mark(r)
	return r, nil
}

// chessLower is chessCall's lowering; it returns the arguments' words and
// texts too, by parameter.
func (c *compiler) chessLower(e *syntax.CallExpr, fn *syntax.DotExpr) (*fuse.Expr, []*fuse.Expr, []syntax.Expr, error) {
	name := "chess." + fn.Name.Name
	var params []string
	switch fn.Name.Name {
	case "knight_attacks", "king_attacks":
		params = []string{"sq"}
	case "pawn_attacks":
		params = []string{"sq", "white"}
	case "rook_attacks", "bishop_attacks", "queen_attacks":
		params = []string{"sq", "occupied"}
	default:
		return nil, nil, nil, errAt(fn.Name.NamePos, "%s is not allowed in a fused function (the attack functions of one square are)", name)
	}
	args := make([]*fuse.Expr, len(params))
	argAt := make([]syntax.Expr, len(params)) // each argument's text
	for i, a := range e.Args {
		// Arguments in the order written (as Starlark evaluates them),
		// by position, then by name (sq=, white=, occupied=).
		k := i
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			id, _ := kv.X.(*syntax.Ident)
			if id == nil || !slices.Contains(params, id.Name) {
				return nil, nil, nil, errAt(pos(a), "%s has no parameter %s", name, describe(kv.X))
			}
			k = slices.Index(params, id.Name)
			if args[k] != nil {
				return nil, nil, nil, errAt(pos(a), "%s: %s given twice", name, id.Name)
			}
			a = kv.Y
		} else if i >= len(params) {
			return nil, nil, nil, errAt(pos(a), "%s takes at most %d arguments", name, len(params))
		}
		x, err := c.word(a)
		if err != nil {
			return nil, nil, nil, err
		}
		args[k], argAt[k] = x, a
	}
	for i, a := range args {
		if a == nil && !(params[i] == "white") {
			return nil, nil, nil, errAt(pos(e.Fn), "%s: missing argument %s", name, params[i])
		}
	}
	if args[0].Op == fuse.OpConst && args[0].Imm > 63 {
		return nil, nil, nil, errAt(pos(argAt[0]), "%s: sq = %d is not a square 0..63", name, int64(args[0].Imm))
	}
	// The square, checked once: where it is a variable, the check is the
	// operand evaluated first and the other uses read the variable (whose
	// index checks then pass); else it goes into a variable of its own.
	at := e.Lparen
	sq := c.fits(args[0], 6, at, "%s: sq is not a square 0..63", name)
	first := sq
	if sq.Op != fuse.OpConst {
		if args[0].Op == fuse.OpVar && (fn.Name.Name != "pawn_attacks" || args[1] == nil || cannotFail(args[1], 1)) {
			sq = args[0]
		} else {
			v := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: sq})
			sq = varExpr(v)
			first = sq
		}
	}
	t := &c.chess
	load := func(tab int, i *fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: fuse.OpLoad, Imm: uint64(tab), Args: []*fuse.Expr{i},
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range of the table %s (in %s)", c.f.Tables[tab].Name, name)}
	}
	step := func(id *int, tname string, f func(int) uint64) (*fuse.Expr, error) {
		tab, err := c.chessTable(id, tname, func() fuse.Table { return flat64(f) })
		if err != nil {
			return nil, err
		}
		return load(tab, first), nil
	}
	slider := func(rook bool, occ, first *fuse.Expr) (*fuse.Expr, error) {
		ids := []*int{&t.bishopMask, &t.bishopMul, &t.bishopShift, &t.bishop}
		magic, piece := chess.BishopMagic, "bishop"
		if rook {
			ids = []*int{&t.rookMask, &t.rookMul, &t.rookShift, &t.rook}
			magic, piece = chess.RookMagic, "rook"
		}
		mask, mul, shift, att := sliderTables(magic)
		var tabs [4]int
		for i, tb := range []fuse.Table{mask, mul, shift, att} {
			var err error
			tb := tb
			if tabs[i], err = c.chessTable(ids[i], fmt.Sprintf("chess.%s_%s", piece, []string{"mask", "magic", "shift", "attacks"}[i]),
				func() fuse.Table { return tb }); err != nil {
				return nil, err
			}
		}
		idx := mk(fuse.OpShr, mk(fuse.OpMul, mk(fuse.OpAnd, occ, load(tabs[0], sq)), load(tabs[1], sq)), load(tabs[2], sq))
		return &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(tabs[3]), Args: []*fuse.Expr{first, idx},
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range of the table chess.%s_attacks (in %s)", piece, name)}, nil
	}
	switch fn.Name.Name {
	case "knight_attacks":
		r, err := step(&t.knight, "chess.knight", chess.KnightAttacks)
		return r, args, argAt, err
	case "king_attacks":
		r, err := step(&t.king, "chess.king", chess.KingAttacks)
		return r, args, argAt, err
	case "pawn_attacks":
		tab, err := c.chessTable(&t.pawn, "chess.pawn", func() fuse.Table {
			b := flat64(func(sq int) uint64 { return chess.PawnAttacks(sq, false) })
			w := flat64(func(sq int) uint64 { return chess.PawnAttacks(sq, true) })
			return fuse.Table{Rows: [][]uint64{b.Rows[0], w.Rows[0]}}
		})
		if err != nil {
			return nil, nil, nil, err
		}
		white := constExpr(1)
		if args[1] != nil {
			white = c.fits(args[1], 1, at, "%s: white is not a bool (or 0 or 1)", name)
		}
		return &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(tab), Args: []*fuse.Expr{white, first},
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range of the table chess.pawn (in %s)", name)}, args, argAt, nil
	case "rook_attacks":
		r, err := slider(true, args[1], first)
		return r, args, argAt, err
	case "bishop_attacks":
		r, err := slider(false, args[1], first)
		return r, args, argAt, err
	}
	// queen_attacks: both, on an occupancy read once.
	occ := args[1]
	if occ.Op != fuse.OpConst && occ.Op != fuse.OpVar {
		v := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: occ})
		occ = varExpr(v)
	}
	r, err := slider(true, occ, first)
	if err != nil {
		return nil, nil, nil, err
	}
	b, err := slider(false, occ, sq)
	if err != nil {
		return nil, nil, nil, err
	}
	return mk(fuse.OpOr, r, b), args, argAt, nil
}

// cannotFail reports whether x always fits in w bits: a constant that
// does, or (for a bit) a comparison or a not.
func cannotFail(x *fuse.Expr, w uint64) bool {
	switch x.Op {
	case fuse.OpConst:
		return x.Imm>>w == 0
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe, fuse.OpLNot, fuse.OpBool:
		return w >= 1
	}
	return false
}

// fits returns x, failing with a check where it does not fit in w bits.
func (c *compiler) fits(x *fuse.Expr, w uint64, at syntax.Position, format string, args ...any) *fuse.Expr {
	if x.Op == fuse.OpConst && x.Imm>>w == 0 {
		return x
	}
	return &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{x, constExpr(1<<w - 1)}, Check: c.check(fuse.CheckFits, w, at, format, args...)}
}
