package builtins

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/endgame"
	"go.starlark.net/starlark"
)

// Bindings of docs/builtins.md (the packed-index flip puzzle): packed endgame indices.

const numberingDoc = `numbering is "natural" (square = 8*rank + file, a1 = 0, h1 = 7, a8 = 56)
or "symmetric" (the second numbering of the "Bit Manipulation Problem" blog post
on flipping packed endgame indices: a1 = 0o60, e4 = 0o73, h8 = 0o66).`

// indexElementwiseDoc ends the docstrings of the flips and canonical.
const indexElementwiseDoc = `Elementwise: with a word array of indices, returns the array of the
results (n and numbering stay single values).`

const indexDoc = `index is a packed index of n pieces (n = 1..10, index < 2^(6n)); ` + numberingDoc

func init() {
	register(
		Builtin{Name: "pack", Topic: "endgame", Fn: pack, Doc: `pack(squares)
Returns the packed index of the pieces on squares (a sequence of 1..10
squares 0..63, piece i on squares[i]): hi << 3n | lo, where lo holds bits
0..2 of squares[i] at bits 3i..3i+2 and hi holds bits 3..5 of squares[i] at
bits 3i..3i+2. pack([0o52, 0o46]) == 0o4562 (the blog post's example).`},
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
		Builtin{Name: "flip_horizontal", Topic: "endgame", Fn: flipHorizontalOp.call, Doc: `flip_horizontal(index, n, numbering="natural")
Flips every piece of the packed index about the horizontal axis (rank r to
7-r; a1 to a8), with a fixed number of word operations (no loop over pieces).
It moves squares as chess.flip_vertical(bb) does on a bitboard (python-chess's
chess.flip_vertical): the "Bit Manipulation Problem" post names flips by their axis.
` + indexDoc + "\n" + indexElementwiseDoc},
		Builtin{Name: "flip_vertical", Topic: "endgame", Fn: flipVerticalOp.call, Doc: `flip_vertical(index, n, numbering="natural")
Flips every piece of the packed index about the vertical axis (file f to
7-f; a1 to h1), with a fixed number of word operations (no loop over pieces).
It moves squares as chess.flip_horizontal(bb) does on a bitboard
(python-chess's chess.flip_horizontal): the "Bit Manipulation Problem" post names flips by their axis.
` + indexDoc + "\n" + indexElementwiseDoc},
		Builtin{Name: "flip_diag", Topic: "endgame", Fn: flipDiagOp.call, Doc: `flip_diag(index, n, numbering="natural")
Flips every piece of the packed index about the a1-h8 diagonal (file and rank
swap; b1 to a2), with a fixed number of word operations (no loop over pieces).
` + indexDoc + "\n" + indexElementwiseDoc},
		Builtin{Name: "symmetries", Topic: "endgame", Fn: symmetries, Doc: `symmetries(index, n, numbering="natural")
Returns the list of the 8 images of the packed index under the symmetries of
the square, in the order identity, flip_vertical, flip_horizontal, rotate 180,
flip_diag, flip_anti (a8-h1 diagonal), rotate 90 clockwise (a1 to a8),
rotate 90 anticlockwise (a1 to h1). No loop over pieces.
` + indexDoc},
		Builtin{Name: "canonical", Topic: "endgame", Fn: canonicalOp.call, Doc: `canonical(index, n, numbering="natural")
Returns the least of the 8 images of the packed index under the symmetries
of the square (see symmetries).
` + indexDoc + "\n" + indexElementwiseDoc},
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
		return 0, fmt.Errorf("%s: %s = %s is not %s %d..%d", fn, name, Short(i), what, lo, hi)
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

// indexParams are the parameters (index, n, numbering="natural") of the
// flips and canonical.
var indexParams = []param{{name: "index"}, {name: "n", kind: kPieces}, {name: "numbering", kind: kNumbering, opt: true, def: uint64(endgame.Natural)}}

// indexFits is the check of the flips and canonical: n and the numbering
// are checked by their kinds, the index against n here.
func indexFits(fn string, v [4]uint64, nm *argNames) error {
	if n := uint(v[1]); v[0]>>(6*n) != 0 {
		return fmt.Errorf("%s: %s = %O has bits at or above bit 6n = %d", fn, nm.name(0), v[0], 6*n)
	}
	return nil
}

// layoutOf returns the layout of valid arguments.
func layoutOf(v [4]uint64) endgame.Layout {
	l, _ := endgame.NewLayout(int(v[1]), endgame.Numbering(v[2]))
	return l
}

// flipOp declares one of the three flips (k is endgame.FlipHorizontal,
// FlipVertical or FlipDiag).
func flipOp(k int) *wordOp {
	return newWordOp(wordOp{
		params: indexParams,
		check:  indexFits,
		scalar: func(v [4]uint64) uint64 {
			l := layoutOf(v)
			switch k {
			case endgame.FlipHorizontal:
				return l.FlipHorizontal(v[0])
			case endgame.FlipVertical:
				return l.FlipVertical(v[0])
			}
			return l.FlipDiag(v[0])
		},
		array: func(dst []uint64, c [4][]uint64) bool {
			v := [4]uint64{0, c[1][0], c[2][0]}
			if !endgame.Fit(c[0], int(v[1])) {
				return false
			}
			layoutOf(v).FlipAll(k, dst, c[0])
			return true
		},
	})
}

var (
	flipHorizontalOp = flipOp(endgame.FlipHorizontal)
	flipVerticalOp   = flipOp(endgame.FlipVertical)
	flipDiagOp       = flipOp(endgame.FlipDiag)
	canonicalOp      = newWordOp(wordOp{
		params: indexParams,
		check:  indexFits,
		scalar: func(v [4]uint64) uint64 { return layoutOf(v).Canonical(v[0]) },
		array: func(dst []uint64, c [4][]uint64) bool {
			v := [4]uint64{0, c[1][0], c[2][0]}
			if !endgame.Fit(c[0], int(v[1])) {
				return false
			}
			layoutOf(v).Canonicals(dst, c[0])
			return true
		},
	})
)

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
