package builtins

import (
	"fmt"
	"strings"

	"github.com/bitsh/bitsh/builtins/chess"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
)

// Bindings of docs/chess.md: the predeclared chess module, with
// python-chess's names and meanings. Every argument that is a square or a
// bitboard may also be a word array; the result is then an array.

// memberDocs holds the docstrings of module members such as
// "chess.rook_attacks" for help(), keyed by that name, each without its
// "chess." (help adds it); filled by init, read-only afterwards.
var memberDocs map[string]string

// An argument kind: how a word or each word of an array is checked.
type chessKind int

const (
	kindBoard  chessKind = iota // any word
	kindSquare                  // 0..63
	kindCoord                   // a file or rank, 0..7
)

type chessParam struct {
	name string
	kind chessKind
}

// A chessFn is one elementwise member: at most two word parameters.
type chessFn struct {
	name   string
	params []chessParam
	doc    string
	f      func(x, y uint64) uint64
	// slice, when set, serves a scalar first and an array second argument.
	slice func(sq int, occ, out []uint64)
}

const squareDoc = "Squares are 0..63 (a1 = 0, h1 = 7, a8 = 56); an array of squares gives an array of results."
const boardDoc = "b is a bitboard (bit i = square i) or an array of them, then the result is an array."

var (
	sqP  = []chessParam{{"sq", kindSquare}}
	bbP  = []chessParam{{"b", kindBoard}}
	abP  = []chessParam{{"a", kindSquare}, {"b", kindSquare}}
	occP = []chessParam{{"sq", kindSquare}, {"occupied", kindBoard}}
)

func sq1(f func(int) int) func(x, _ uint64) uint64 {
	return func(x, _ uint64) uint64 { return uint64(f(int(x))) }
}
func sq2(f func(int, int) int) func(x, y uint64) uint64 {
	return func(x, y uint64) uint64 { return uint64(f(int(x), int(y))) }
}
func bb1(f func(uint64) uint64) func(x, _ uint64) uint64 {
	return func(x, _ uint64) uint64 { return f(x) }
}
func att1(f func(int) uint64) func(x, _ uint64) uint64 {
	return func(x, _ uint64) uint64 { return f(int(x)) }
}
func att2(f func(int, uint64) uint64) func(x, y uint64) uint64 {
	return func(x, y uint64) uint64 { return f(int(x), y) }
}
func ray2(f func(int, int) uint64) func(x, y uint64) uint64 {
	return func(x, y uint64) uint64 { return f(int(x), int(y)) }
}

const flipVerticalDoc = `flip_vertical(b)
Swaps rank r with rank 7-r (a1 to a8), as python-chess's chess.flip_vertical.
It moves squares as the packed-index flip_horizontal(index, n) of the
endgame topic does: the packed-index flip puzzle names flips by their axis, python-chess by
the direction squares move. ` + boardDoc

const flipHorizontalDoc = `flip_horizontal(b)
Swaps file f with file 7-f (a1 to h1), as python-chess's
chess.flip_horizontal. It moves squares as the packed-index
flip_vertical(index, n) of the endgame topic does (the packed-index flip puzzle names flips
by their axis). ` + boardDoc

var chessFns = []chessFn{
	{name: "square", params: []chessParam{{"file", kindCoord}, {"rank", kindCoord}}, f: func(x, y uint64) uint64 { return uint64(chess.Square(int(x), int(y))) }, doc: `square(file, rank)
Returns the square on file (0..7, a = 0) and rank (0..7, rank 1 = 0):
8*rank + file. Arrays of files and ranks give an array.`},
	{name: "square_file", params: sqP, f: sq1(chess.SquareFile), doc: "square_file(sq)\nReturns the file of sq, 0 for the a-file. " + squareDoc},
	{name: "square_rank", params: sqP, f: sq1(chess.SquareRank), doc: "square_rank(sq)\nReturns the rank of sq, 0 for the first rank. " + squareDoc},
	{name: "square_mirror", params: sqP, f: sq1(chess.SquareMirror), doc: "square_mirror(sq)\nReturns sq mirrored vertically (rank r to 7-r): sq ^ 0x38. " + squareDoc},
	{name: "square_distance", params: abP, f: sq2(chess.SquareDistance), doc: "square_distance(a, b)\nReturns the Chebyshev distance of a and b (the number of king steps). " + squareDoc},
	{name: "square_manhattan_distance", params: abP, f: sq2(chess.SquareManhattanDistance), doc: "square_manhattan_distance(a, b)\nReturns the taxicab distance of a and b (orthogonal king steps). " + squareDoc},
	{name: "square_knight_distance", params: abP, f: sq2(chess.SquareKnightDistance), doc: "square_knight_distance(a, b)\nReturns the number of knight moves from a to b on an empty board (0 when a == b). " + squareDoc},
	{name: "shift_up", params: bbP, f: bb1(chess.ShiftUp), doc: "shift_up(b)\nMoves every square one rank up; squares pushed off the board are dropped. " + boardDoc},
	{name: "shift_2_up", params: bbP, f: bb1(chess.Shift2Up), doc: "shift_2_up(b)\nMoves every square two ranks up. " + boardDoc},
	{name: "shift_down", params: bbP, f: bb1(chess.ShiftDown), doc: "shift_down(b)\nMoves every square one rank down. " + boardDoc},
	{name: "shift_2_down", params: bbP, f: bb1(chess.Shift2Down), doc: "shift_2_down(b)\nMoves every square two ranks down. " + boardDoc},
	{name: "shift_left", params: bbP, f: bb1(chess.ShiftLeft), doc: "shift_left(b)\nMoves every square one file towards a; the a-file is dropped, never wrapped to h. " + boardDoc},
	{name: "shift_2_left", params: bbP, f: bb1(chess.Shift2Left), doc: "shift_2_left(b)\nMoves every square two files towards a, without wrapping. " + boardDoc},
	{name: "shift_right", params: bbP, f: bb1(chess.ShiftRight), doc: "shift_right(b)\nMoves every square one file towards h, without wrapping. " + boardDoc},
	{name: "shift_2_right", params: bbP, f: bb1(chess.Shift2Right), doc: "shift_2_right(b)\nMoves every square two files towards h, without wrapping. " + boardDoc},
	{name: "shift_up_left", params: bbP, f: bb1(chess.ShiftUpLeft), doc: "shift_up_left(b)\nMoves every square one step up and towards a, without wrapping. " + boardDoc},
	{name: "shift_up_right", params: bbP, f: bb1(chess.ShiftUpRight), doc: "shift_up_right(b)\nMoves every square one step up and towards h, without wrapping. " + boardDoc},
	{name: "shift_down_left", params: bbP, f: bb1(chess.ShiftDownLeft), doc: "shift_down_left(b)\nMoves every square one step down and towards a, without wrapping. " + boardDoc},
	{name: "shift_down_right", params: bbP, f: bb1(chess.ShiftDownRight), doc: "shift_down_right(b)\nMoves every square one step down and towards h, without wrapping. " + boardDoc},
	{name: "flip_vertical", params: bbP, f: bb1(chess.FlipVertical), doc: flipVerticalDoc},
	{name: "flip_horizontal", params: bbP, f: bb1(chess.FlipHorizontal), doc: flipHorizontalDoc},
	{name: "flip_diagonal", params: bbP, f: bb1(chess.FlipDiagonal), doc: "flip_diagonal(b)\nFlips about the a1-h8 diagonal (file and rank swap; b1 to a2), as python-chess. " + boardDoc},
	{name: "flip_anti_diagonal", params: bbP, f: bb1(chess.FlipAntiDiagonal), doc: "flip_anti_diagonal(b)\nFlips about the a8-h1 diagonal (a1 to h8), as python-chess. " + boardDoc},
	{name: "knight_attacks", params: sqP, f: att1(chess.KnightAttacks), doc: "knight_attacks(sq)\nReturns the bitboard of the squares a knight on sq attacks (python-chess's BB_KNIGHT_ATTACKS[sq]). " + squareDoc},
	{name: "king_attacks", params: sqP, f: att1(chess.KingAttacks), doc: "king_attacks(sq)\nReturns the squares a king on sq attacks (BB_KING_ATTACKS[sq]). " + squareDoc},
	{name: "rook_attacks", params: occP, f: att2(chess.RookAttacks), slice: chess.RookAttacksSlice, doc: `rook_attacks(sq, occupied)
Returns the squares a rook on sq attacks when the pieces on the bitboard
occupied block it: each ray stops at its first occupied square, included
(python-chess's BB_RANK_ATTACKS and BB_FILE_ATTACKS). sq and occupied may be
arrays (of equal length when both are); the result is then an array.`},
	{name: "bishop_attacks", params: occP, f: att2(chess.BishopAttacks), slice: chess.BishopAttacksSlice, doc: `bishop_attacks(sq, occupied)
Returns the squares a bishop on sq attacks when the pieces on occupied
block it (python-chess's BB_DIAG_ATTACKS). Arrays as rook_attacks.`},
	{name: "queen_attacks", params: occP, f: att2(chess.QueenAttacks), slice: chess.QueenAttacksSlice, doc: `queen_attacks(sq, occupied)
Returns rook_attacks(sq, occupied) | bishop_attacks(sq, occupied). Arrays
as rook_attacks.`},
	{name: "ray", params: abP, f: ray2(chess.Ray), doc: `ray(a, b)
Returns the whole rank, file or diagonal through squares a and b, both
included, or 0 when they share none or a == b (python-chess's ray). ` + squareDoc},
	{name: "between", params: abP, f: ray2(chess.Between), doc: `between(a, b)
Returns the squares strictly between a and b on their common line, or 0
(python-chess's between). ` + squareDoc},
	{name: "rook_mask", params: sqP, f: att1(chess.RookMask), doc: `rook_mask(sq)
Returns the relevant occupancy of a rook on sq for magic bitboards: its
attack rays on an empty board without the last square of each ray (the
squares whose occupancy can change rook_attacks(sq, occupied)). ` + squareDoc},
	{name: "bishop_mask", params: sqP, f: att1(chess.BishopMask), doc: `bishop_mask(sq)
Returns the relevant occupancy of a bishop on sq (see rook_mask). ` + squareDoc},
}

// chessArg is one unpacked argument: a word, or the words of an array.
type chessArg struct {
	w   uint64
	arr []uint64
	is  bool // an array
}

func chessArgument(fn string, p chessParam, v starlark.Value) (chessArg, error) {
	check := func(name string, x uint64) error {
		switch p.kind {
		case kindSquare:
			if x > 63 {
				return fmt.Errorf("%s: %s = %d is not a square 0..63", fn, name, x)
			}
		case kindCoord:
			if x > 7 {
				return fmt.Errorf("%s: %s = %d is not in 0..7", fn, name, x)
			}
		}
		return nil
	}
	if a, ok := v.(*Words); ok {
		ws := a.Uint64s()
		if p.kind != kindBoard {
			for i, x := range ws {
				if err := check(fmt.Sprintf("%s[%d]", p.name, i), x); err != nil {
					return chessArg{}, err
				}
			}
		}
		return chessArg{arr: ws, is: true}, nil
	}
	if i, ok := v.(starlark.Int); ok && p.kind != kindBoard {
		if x, ok := i.Int64(); !ok || x < 0 || x > 63 {
			if p.kind == kindSquare {
				return chessArg{}, fmt.Errorf("%s: %s = %s is not a square 0..63", fn, p.name, Short(i))
			}
			return chessArg{}, fmt.Errorf("%s: %s = %s is not in 0..7", fn, p.name, Short(i))
		}
	}
	w, err := toWord(fn, p.name, v)
	if err != nil {
		if _, isInt := v.(starlark.Int); !isInt {
			return chessArg{}, fmt.Errorf("%s: %s: got %s, want int or words", fn, p.name, v.Type())
		}
		return chessArg{}, err
	}
	if err := check(p.name, uint64(w)); err != nil {
		return chessArg{}, err
	}
	return chessArg{w: uint64(w)}, nil
}

func (c chessArg) at(i int) uint64 {
	if c.is {
		return c.arr[i]
	}
	return c.w
}

// scalarArg returns the word of a positional int argument of kind k when
// it is valid, without allocating: the fast path of a scalar call.
func scalarArg(k chessKind, v starlark.Value) (uint64, bool) {
	x, ok := argWord(v)
	switch {
	case !ok:
		return 0, false
	case k == kindSquare:
		return x, x <= 63
	case k == kindCoord:
		return x, x <= 7
	}
	return x, true
}

func (c chessFn) call(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	// The common call, every argument a valid positional int: no unpacking.
	if len(kwargs) == 0 && len(args) == len(c.params) {
		var w [2]uint64
		ok := true
		for i, p := range c.params {
			if w[i], ok = scalarArg(p.kind, args[i]); !ok {
				break
			}
		}
		if ok {
			return wordValue(c.f(w[0], w[1])), nil
		}
	}
	raw := make([]starlark.Value, len(c.params))
	pairs := make([]any, 0, 2*len(c.params))
	for i, p := range c.params {
		pairs = append(pairs, p.name, &raw[i])
	}
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, pairs...); err != nil {
		return nil, err
	}
	var in [2]chessArg
	n := -1
	for i, p := range c.params {
		a, err := chessArgument(b.Name(), p, raw[i])
		if err != nil {
			return nil, err
		}
		if a.is {
			if n >= 0 && len(a.arr) != n {
				return nil, fmt.Errorf("%s: %s has %d words, want %d like %s", b.Name(), p.name, len(a.arr), n, c.params[0].name)
			}
			n = len(a.arr)
		}
		in[i] = a
	}
	if n < 0 {
		return wordValue(c.f(in[0].w, in[1].w)), nil
	}
	if err := CheckAlloc(thread, b.Name(), int64(8*n)); err != nil {
		return nil, err
	}
	out, err := makeSlice[uint64](thread, b.Name(), n)
	if err != nil {
		return nil, err
	}
	if err := inChunks(thread, b.Name(), n, pollWords, func(lo, hi int) {
		switch {
		case c.slice != nil && !in[0].is:
			c.slice(int(in[0].w), in[1].arr[lo:hi], out[lo:hi])
		default:
			for i := lo; i < hi; i++ {
				out[i] = c.f(in[0].at(i), in[1].at(i))
			}
		}
	}); err != nil {
		return nil, err
	}
	return NewWords(out), nil
}

func chessSquareName(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "sq", &v); err != nil {
		return nil, err
	}
	a, err := chessArgument(b.Name(), chessParam{"sq", kindSquare}, v)
	if err != nil {
		return nil, err
	}
	if !a.is {
		return starlark.String(chess.SquareName(int(a.w))), nil
	}
	names := make([]starlark.Value, len(a.arr))
	for i, sq := range a.arr {
		names[i] = starlark.String(chess.SquareName(int(sq)))
	}
	return starlark.NewList(names), nil
}

func chessParseSquare(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name string
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name); err != nil {
		return nil, err
	}
	sq, ok := chess.ParseSquare(name)
	if !ok {
		return nil, fmt.Errorf("%s: name = %q is not a square name a1..h8", b.Name(), name)
	}
	return starlark.MakeInt(sq), nil
}

func chessPawnAttacks(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if sq, ok := pawnFast(args, kwargs); ok {
		return wordValue(chess.PawnAttacks(int(sq&63), sq < 64)), nil
	}
	var v starlark.Value
	var wv starlark.Value = starlark.True
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "sq", &v, "white?", &wv); err != nil {
		return nil, err
	}
	white, err := boolOrBit(b.Name(), "white", wv)
	if err != nil {
		return nil, err
	}
	a, err := chessArgument(b.Name(), chessParam{"sq", kindSquare}, v)
	if err != nil {
		return nil, err
	}
	if !a.is {
		return wordValue(chess.PawnAttacks(int(a.w), white)), nil
	}
	out := make([]uint64, len(a.arr))
	for i, sq := range a.arr {
		out[i] = chess.PawnAttacks(int(sq), white)
	}
	return NewWords(out), nil
}

// boolOrBit reads a bool argument, or the int 0 or 1 a comparison gives
// in fused code, so that one text runs plain and fused.
func boolOrBit(fn, param string, v starlark.Value) (bool, error) {
	switch v := v.(type) {
	case starlark.Bool:
		return bool(v), nil
	case starlark.Int:
		if w, ok := v.Int64(); ok && (w == 0 || w == 1) {
			return w == 1, nil
		}
	}
	return false, fmt.Errorf("%s: %s: got %s, want bool (or 0 or 1)", fn, param, v.Type())
}

// pawnFast reads the common calls pawn_attacks(sq), pawn_attacks(sq, b)
// and pawn_attacks(sq, white=b) with a valid square and a bool, without
// unpacking: it returns sq, plus 64 when white is False.
func pawnFast(args starlark.Tuple, kwargs []starlark.Tuple) (uint64, bool) {
	var white starlark.Value = starlark.True
	switch {
	case len(args) == 2 && len(kwargs) == 0:
		white = args[1]
	case len(args) == 1 && len(kwargs) == 1 && kwargs[0][0] == starlark.String("white"):
		white = kwargs[0][1]
	case len(args) == 1 && len(kwargs) == 0:
	default:
		return 0, false
	}
	w, ok := white.(starlark.Bool)
	if !ok || len(args) == 0 {
		return 0, false
	}
	sq, ok := scalarArg(kindSquare, args[0])
	if !ok {
		return 0, false
	}
	if !w {
		sq += 64
	}
	return sq, true
}

const chessModuleDoc = `chess
The chess module: python-chess's bitboard vocabulary (import chess; chess.X
there is chess.X here). Squares are 0..63, a1 = 0, h1 = 7, a8 = 56, h8 = 63;
bit i of a bitboard is square i. Every member that takes a square or a
bitboard also takes a word array (see words) and then returns an array.
help("chess.rook_attacks") prints one member's docstring.

Constants: A1 .. H8 (squares), SQUARE_NAMES, BB_EMPTY, BB_ALL, BB_A1 ..
BB_H8, BB_SQUARES, BB_FILES, BB_RANKS (lists), BB_FILE_A .. BB_FILE_H,
BB_RANK_1 .. BB_RANK_8, BB_LIGHT_SQUARES, BB_DARK_SQUARES (a1 is dark),
BB_CORNERS, BB_CENTER (d4 e4 d5 e5), BB_BACKRANKS (ranks 1 and 8).`

func init() {
	// Built as every run starts: the maps and the doc are sized once, and
	// no fmt or strings.ToUpper (a third of this init's time went to
	// growing maps and strings).
	nfns := 3 + len(chessFns)
	members := make(starlark.StringDict, nfns+2*64+2*8+4+len(chessBoards))
	memberDocs = make(map[string]string, nfns)
	docs := make([]string, 0, nfns)
	docLen := len(chessModuleDoc)
	add := func(name string, fn func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error), d string) {
		full := "chess." + name
		members[name] = starlark.NewBuiltin(full, fn)
		memberDocs[full] = d // help prefixes "chess."
		docs = append(docs, d)
		docLen += len("\n\nchess.") + len(d)
	}
	add("square_name", chessSquareName, "square_name(sq)\nReturns the name of sq (\"e4\"); an array of squares gives a list of names.")
	add("parse_square", chessParseSquare, "parse_square(name)\nReturns the square called name (\"a1\" .. \"h8\", lower case); any other string is an error.")
	add("pawn_attacks", chessPawnAttacks, "pawn_attacks(sq, white=True)\nReturns the squares a pawn of that colour on sq attacks (white pawns attack up the board; python-chess's BB_PAWN_ATTACKS[white][sq]). "+squareDoc)
	for _, c := range chessFns {
		add(c.name, c.call, c.doc)
	}
	var doc strings.Builder
	doc.Grow(docLen)
	doc.WriteString(chessModuleDoc)
	for _, d := range docs {
		doc.WriteString("\n\nchess.")
		doc.WriteString(d)
	}
	names := chess.SquareNames()
	sqs := make([]starlark.Value, 64)
	nameVals := make([]starlark.Value, 64)
	for sq, n := range names {
		upper := string([]byte{'B', 'B', '_', 'A' + byte(sq&7), '1' + byte(sq>>3)}) // "BB_E4"
		w := wordValue(1 << sq)
		members[upper[3:]] = starlark.MakeInt(sq)
		members[upper] = w
		sqs[sq] = w
		nameVals[sq] = starlark.String(n)
	}
	files := make([]starlark.Value, 8)
	ranks := make([]starlark.Value, 8)
	for i := range 8 {
		files[i] = wordValue(chess.Files[i])
		ranks[i] = wordValue(chess.Ranks[i])
		members["BB_FILE_"+string(rune('A'+i))] = files[i]
		members["BB_RANK_"+string(rune('1'+i))] = ranks[i]
	}
	members["SQUARE_NAMES"] = starlark.NewList(nameVals)
	members["BB_SQUARES"] = starlark.NewList(sqs)
	members["BB_FILES"] = starlark.NewList(files)
	members["BB_RANKS"] = starlark.NewList(ranks)
	for _, b := range chessBoards {
		members[b.name] = wordValue(b.x)
	}
	m := &starlarkstruct.Module{Name: "chess", Members: members}
	// Frozen, the module and its lists are shared read-only by every
	// interpreter.
	m.Freeze()
	register(Builtin{Name: "chess", Topic: "chess", Value: m, Doc: doc.String()})
}

// chessBoards are the module's named bitboards other than files, ranks
// and squares.
var chessBoards = [...]struct {
	name string
	x    uint64
}{
	{"BB_EMPTY", chess.Empty}, {"BB_ALL", chess.All}, {"BB_LIGHT_SQUARES", chess.LightSquares},
	{"BB_DARK_SQUARES", chess.DarkSquares}, {"BB_CORNERS", chess.Corners}, {"BB_CENTER", chess.Center},
	{"BB_BACKRANKS", chess.Backranks},
}
