package builtins

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/endgame"
	"go.starlark.net/starlark"
)

// Bindings of SPEC section 5 (document 003): packed endgame indices.

const numberingDoc = `numbering is "natural" (square = 8*rank + file, a1 = 0, h1 = 7, a8 = 56)
or "symmetric" (document 003's second table: a1 = 0o60, e4 = 0o73, h8 = 0o66).`

const indexDoc = `index is a packed index of n pieces (n = 1..10, index < 2^(6n)); ` + numberingDoc

func init() {
	register(
		Builtin{Name: "pack", Topic: "endgame", Fn: pack, Doc: `pack(squares)
Returns the packed index of the pieces on squares (a sequence of 1..10
squares 0..63, piece i on squares[i]): hi << 3n | lo, where lo holds bits
0..2 of squares[i] at bits 3i..3i+2 and hi holds bits 3..5 of squares[i] at
bits 3i..3i+2. pack([0o52, 0o46]) == 0o4562 (document 003).`},
		Builtin{Name: "unpack", Topic: "endgame", Fn: unpackIndex, Doc: `unpack(index, n)
Returns the list of the n squares packed in index, the inverse of pack.
n is 1..10 and index < 2^(6n).`},
		Builtin{Name: "square", Topic: "endgame", Fn: square, Doc: `square(name, numbering="natural")
Returns the number of the square called name ("e4": file a..h, rank 1..8).
square("e4") == 28, square("e4", "symmetric") == 0o73.
` + numberingDoc},
		Builtin{Name: "square_name", Topic: "endgame", Fn: squareName, Doc: `square_name(sq, numbering="natural")
Returns the name ("e4") of square sq (0..63), the inverse of square.
` + numberingDoc},
		Builtin{Name: "flip_horizontal", Topic: "endgame", Fn: flip(endgame.FlipHorizontal), Doc: `flip_horizontal(index, n, numbering="natural")
Flips every piece of the packed index about the horizontal axis (rank r to
7-r; a1 to a8), with a fixed number of word operations (no loop over pieces).
It moves squares as chess.flip_vertical(bb) does on a bitboard (python-chess's
chess.flip_vertical): document 003 names flips by their axis.
` + indexDoc},
		Builtin{Name: "flip_vertical", Topic: "endgame", Fn: flip(endgame.FlipVertical), Doc: `flip_vertical(index, n, numbering="natural")
Flips every piece of the packed index about the vertical axis (file f to
7-f; a1 to h1), with a fixed number of word operations (no loop over pieces).
It moves squares as chess.flip_horizontal(bb) does on a bitboard
(python-chess's chess.flip_horizontal): document 003 names flips by their axis.
` + indexDoc},
		Builtin{Name: "flip_diag", Topic: "endgame", Fn: flip(endgame.FlipDiag), Doc: `flip_diag(index, n, numbering="natural")
Flips every piece of the packed index about the a1-h8 diagonal (file and rank
swap; b1 to a2), with a fixed number of word operations (no loop over pieces).
` + indexDoc},
		Builtin{Name: "symmetries", Topic: "endgame", Fn: symmetries, Doc: `symmetries(index, n, numbering="natural")
Returns the list of the 8 images of the packed index under the symmetries of
the square, in the order identity, flip_vertical, flip_horizontal, rotate 180,
flip_diag, flip_anti (a8-h1 diagonal), rotate 90 clockwise (a1 to a8),
rotate 90 anticlockwise (a1 to h1). No loop over pieces.
` + indexDoc},
		Builtin{Name: "canonical", Topic: "endgame", Fn: canonical, Doc: `canonical(index, n, numbering="natural")
Returns the least of the 8 images of the packed index under the symmetries
of the square (see symmetries).
` + indexDoc},
		Builtin{Name: "board", Topic: "endgame", Fn: board, Doc: `board(bb)
Returns an 8-line diagram of the 64-bit bitboard bb in the natural numbering:
rank 8 first, "x" for a one bit and "." for a zero, files separated by single
spaces, no newline after the last line (so print(board(bb)) draws it).`},
	)
}

// toInt converts an int argument that must lie in lo..hi.
func toInt(fn, name string, v starlark.Value, lo, hi int, what string) (int, error) {
	i, ok := v.(starlark.Int)
	if !ok {
		return 0, fmt.Errorf("%s: %s: got %s, want int", fn, name, v.Type())
	}
	x, ok := i.Int64()
	if !ok || x < int64(lo) || x > int64(hi) {
		return 0, fmt.Errorf("%s: %s = %s is not %s %d..%d", fn, name, i, what, lo, hi)
	}
	return int(x), nil
}

// toNumbering converts the numbering argument.
func toNumbering(fn string, v starlark.Value) (endgame.Numbering, error) {
	s, ok := v.(starlark.String)
	if !ok {
		return 0, fmt.Errorf("%s: numbering: got %s, want string", fn, v.Type())
	}
	m, ok := endgame.ParseNumbering(string(s))
	if !ok {
		return 0, fmt.Errorf("%s: numbering = %s is not \"natural\" or \"symmetric\"", fn, s)
	}
	return m, nil
}

// indexArgs parses (index, n, numbering="natural") and checks the index
// against n.
func indexArgs(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (uint64, endgame.Layout, error) {
	var index Word
	var nv starlark.Value
	var mv starlark.Value = starlark.String("natural")
	if err := unpack(b.Name(), args, kwargs, "index", &index, "n", &nv, "numbering?", &mv); err != nil {
		return 0, endgame.Layout{}, err
	}
	n, err := toInt(b.Name(), "n", nv, 1, endgame.MaxPieces, "in")
	if err != nil {
		return 0, endgame.Layout{}, err
	}
	m, err := toNumbering(b.Name(), mv)
	if err != nil {
		return 0, endgame.Layout{}, err
	}
	if err := endgame.Check(uint64(index), n); err != nil {
		return 0, endgame.Layout{}, fmt.Errorf("%s: %v", b.Name(), err)
	}
	l, err := endgame.NewLayout(n, m)
	if err != nil {
		return 0, endgame.Layout{}, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return uint64(index), l, nil
}

func pack(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var seq starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "squares", &seq); err != nil {
		return nil, err
	}
	it, ok := seq.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: squares: got %s, want sequence of squares", b.Name(), seq.Type())
	}
	iter := it.Iterate()
	defer iter.Done()
	var squares []int
	var v starlark.Value
	for i := 0; iter.Next(&v); i++ {
		if i == endgame.MaxPieces {
			return nil, fmt.Errorf("%s: squares: got more than %d squares, want 1..%d", b.Name(), endgame.MaxPieces, endgame.MaxPieces)
		}
		sq, err := toInt(b.Name(), fmt.Sprintf("squares[%d]", i), v, 0, 63, "a square")
		if err != nil {
			return nil, err
		}
		squares = append(squares, sq)
	}
	if len(squares) == 0 {
		return nil, fmt.Errorf("%s: squares: got 0 squares, want 1..%d", b.Name(), endgame.MaxPieces)
	}
	x, err := endgame.Pack(squares)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	return wordValue(x), nil
}

func unpackIndex(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var index Word
	var nv starlark.Value
	if err := unpack(b.Name(), args, kwargs, "index", &index, "n", &nv); err != nil {
		return nil, err
	}
	n, err := toInt(b.Name(), "n", nv, 1, endgame.MaxPieces, "in")
	if err != nil {
		return nil, err
	}
	if err := endgame.Check(uint64(index), n); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name(), err)
	}
	sq := endgame.Unpack(uint64(index), n)
	elems := make([]starlark.Value, n)
	for i, s := range sq {
		elems[i] = starlark.MakeInt(s)
	}
	return starlark.NewList(elems), nil
}

func square(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var name starlark.Value
	var mv starlark.Value = starlark.String("natural")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "name", &name, "numbering?", &mv); err != nil {
		return nil, err
	}
	s, ok := name.(starlark.String)
	if !ok {
		return nil, fmt.Errorf("%s: name: got %s, want string", b.Name(), name.Type())
	}
	m, err := toNumbering(b.Name(), mv)
	if err != nil {
		return nil, err
	}
	sq, ok := endgame.Square(string(s), m)
	if !ok {
		return nil, fmt.Errorf("%s: name = %s is not a square name a1..h8", b.Name(), s)
	}
	return starlark.MakeInt(sq), nil
}

func squareName(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var sv starlark.Value
	var mv starlark.Value = starlark.String("natural")
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "sq", &sv, "numbering?", &mv); err != nil {
		return nil, err
	}
	sq, err := toInt(b.Name(), "sq", sv, 0, 63, "a square")
	if err != nil {
		return nil, err
	}
	m, err := toNumbering(b.Name(), mv)
	if err != nil {
		return nil, err
	}
	return starlark.String(endgame.SquareName(sq, m)), nil
}

// flip returns the binding of one of the three flips (k is FlipHorizontal,
// FlipVertical or FlipDiag).
func flip(k int) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		x, l, err := indexArgs(b, args, kwargs)
		if err != nil {
			return nil, err
		}
		switch k {
		case endgame.FlipHorizontal:
			x = l.FlipHorizontal(x)
		case endgame.FlipVertical:
			x = l.FlipVertical(x)
		default:
			x = l.FlipDiag(x)
		}
		return wordValue(x), nil
	}
}

func symmetries(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, l, err := indexArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	imgs := l.Symmetries(x)
	elems := make([]starlark.Value, len(imgs))
	for i, y := range imgs {
		elems[i] = wordValue(y)
	}
	return starlark.NewList(elems), nil
}

func canonical(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	x, l, err := indexArgs(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return wordValue(l.Canonical(x)), nil
}

func board(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var bb Word
	if err := unpack(b.Name(), args, kwargs, "bb", &bb); err != nil {
		return nil, err
	}
	return starlark.String(endgame.Board(uint64(bb))), nil
}
