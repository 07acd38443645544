package builtins

// Bindings of docs/repl.md's pictures: board, cards and table. The
// drawing is in builtins/picture; here are the Starlark values.

import (
	"fmt"
	"strings"

	"github.com/bitsh/bitsh/builtins/picture"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func init() {
	register(
		Builtin{Name: "board", Topic: "pictures", Fn: boardFn, Doc: `board(bb)
Returns a board value: a picture of the 64-bit bitboard bb in the natural
numbering (a1 = bit 0, h8 = bit 63). print(b), str(b) and the REPL's echo
show the diagram: 8 rows, rank 8 first, each the rank's digit, a space, then
"x" for a one bit and "." for a zero, files separated by single spaces, and a
last row of file letters a..h under them (no newline after it). repr(b) is
board(0x...); b.bb is the word; == compares words. In a notebook it is
drawn as an SVG chessboard.`},
		Builtin{Name: "cards", Topic: "pictures", Fn: cardsFn, Doc: `cards(list)
Returns a picture of SET cards (ints 0..80, as card() makes them). Reading a
card as card_str does, the four values are the number of shapes (1..3), the
color (red, green, purple), the shading (solid, striped, open) and the shape
(diamond, squiggle, oval). On a terminal the REPL shows each card as a small
colored box of its shapes; str(c) and print(c) give plain letters, one code
a card: number, color R/G/P, shading s/t/o (solid, striped, open), shape
D/S/O (diamond, squiggle, oval), as "1RsD 2GtS". repr(c) is cards([...]);
len(c) and c[i] give the cards back. In a notebook the cards are drawn.`},
		Builtin{Name: "table", Topic: "pictures", Fn: tableFn, Doc: `table(rows, header=None)
Returns a string of rows laid out in aligned columns two spaces apart, for
print: Starlark has no format widths (%5d) and no rjust. rows is an
iterable of rows, each an iterable of cells; a string cell is itself, any
other value its str(). Columns of numbers are right-aligned, others
left-aligned. header, a row of titles, is followed by a row of dashes.
Rows may differ in length. No newline after the last row.`},
		Builtin{Name: "repr", Topic: "starlark", Fn: reprFn, Doc: `repr(x)
As Starlark's repr, except that a picture (board, cards) gives the call
that makes it (board(0xff)) rather than its drawing, which str() gives.`},
	)
}

// A reprer is a value whose repr differs from its str (its String), as
// pictures do: str draws, repr names.
type reprer interface {
	Repr() string
}

func reprFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	if r, ok := x.(reprer); ok {
		return starlark.String(r.Repr()), nil
	}
	return starlark.Call(thread, starlark.Universe["repr"], args, nil)
}

// Board is the board value: a bitboard with a picture.
type Board uint64

var (
	_ Pictured            = Board(0)
	_ starlark.HasAttrs   = Board(0)
	_ starlark.Comparable = Board(0)
)

func boardFn(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var bb Word
	if err := unpack(b.Name(), args, kwargs, "bb", &bb); err != nil {
		return nil, err
	}
	return Board(bb), nil
}

// String returns the labelled diagram (docs/builtins.md).
func (b Board) String() string { return picture.Board(uint64(b), false) }

// Repr returns board(0x...).
func (b Board) Repr() string { return fmt.Sprintf("board(%#x)", uint64(b)) }

// Type returns "board".
func (b Board) Type() string { return "board" }

// Freeze does nothing: a board is immutable.
func (b Board) Freeze() {}

// Truth is True when some bit is set.
func (b Board) Truth() starlark.Bool { return b != 0 }

// Hash hashes the word.
func (b Board) Hash() (uint32, error) { return uint32(b) ^ uint32(b>>32), nil }

// Attr returns the word as bb.
func (b Board) Attr(name string) (starlark.Value, error) {
	if name == "bb" {
		return wordValue(uint64(b)), nil
	}
	return nil, nil
}

// AttrNames lists bb.
func (b Board) AttrNames() []string { return []string{"bb"} }

// CompareSameType compares the words for == and !=; boards have no order.
func (b Board) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	c := y.(Board)
	switch op {
	case syntax.EQL:
		return b == c, nil
	case syntax.NEQ:
		return b != c, nil
	}
	return false, fmt.Errorf("%s %s %s not implemented", b.Type(), op, c.Type())
}

// PictureText returns the diagram, ones in bold when color is true.
func (b Board) PictureText(color bool) string { return picture.Board(uint64(b), color) }

// PictureSVG returns the board as an SVG chessboard.
func (b Board) PictureSVG() string { return picture.BoardSVG(uint64(b)) }

// Cards is the cards value: SET cards with a picture.
type Cards struct{ cards []int }

var (
	_ Pictured          = (*Cards)(nil)
	_ starlark.Sequence = (*Cards)(nil)
)

func cardsFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var list starlark.Iterable
	if err := unpack(b.Name(), args, kwargs, "list", &list); err != nil {
		return nil, err
	}
	var out []int
	it := list.Iterate()
	defer it.Done()
	var v starlark.Value
	for i := 0; it.Next(&v); i++ {
		if i >= 1<<16 {
			return nil, fmt.Errorf("%s: list holds more than 65536 cards", b.Name())
		}
		c, ok := v.(starlark.Int)
		n, exact := c.Int64()
		if !ok || !exact || n < 0 || n > 80 {
			return nil, fmt.Errorf("%s: list[%d] = %s is not a card (an int 0..80)", b.Name(), i, Short(v))
		}
		out = append(out, int(n))
	}
	return &Cards{cards: out}, nil
}

func (c *Cards) pictures() []picture.Card {
	out := make([]picture.Card, len(c.cards))
	for i, n := range c.cards {
		out[i] = picture.FromIndex(n)
	}
	return out
}

// String returns the plain letters of the cards ("1RsD 2GtS").
func (c *Cards) String() string { return picture.CardsText(c.pictures(), false) }

// Repr returns cards([...]).
func (c *Cards) Repr() string {
	parts := make([]string, len(c.cards))
	for i, n := range c.cards {
		parts[i] = fmt.Sprint(n)
	}
	return "cards([" + strings.Join(parts, ", ") + "])"
}

// Type returns "cards".
func (c *Cards) Type() string { return "cards" }

// Freeze does nothing: cards are immutable.
func (c *Cards) Freeze() {}

// Truth is True when there is a card.
func (c *Cards) Truth() starlark.Bool { return len(c.cards) > 0 }

// Hash fails: cards are a sequence, unhashable as lists are.
func (c *Cards) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: cards") }

// Len returns the number of cards.
func (c *Cards) Len() int { return len(c.cards) }

// Index returns card i as an int.
func (c *Cards) Index(i int) starlark.Value { return starlark.MakeInt(c.cards[i]) }

// Iterate iterates over the cards as ints.
func (c *Cards) Iterate() starlark.Iterator { return &cardsIter{c: c} }

type cardsIter struct {
	c *Cards
	i int
}

func (it *cardsIter) Next(p *starlark.Value) bool {
	if it.i >= len(it.c.cards) {
		return false
	}
	*p = it.c.Index(it.i)
	it.i++
	return true
}

func (it *cardsIter) Done() {}

// PictureText returns the boxed colored cards, or the letters.
func (c *Cards) PictureText(color bool) string { return picture.CardsText(c.pictures(), color) }

// PictureSVG returns the cards drawn as real SET cards.
func (c *Cards) PictureSVG() string { return picture.CardsSVG(c.pictures()) }

// maxTableCells bounds one row (or the header) of a table: a row is read
// whole before it is laid out, and a lazy value can stand for 2^64 cells.
const maxTableCells = 1 << 16

func tableFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var rows starlark.Iterable
	var header starlark.Value = starlark.None
	if err := unpack(b.Name(), args, kwargs, "rows", &rows, "header?", &header); err != nil {
		return nil, err
	}
	ctx := Context(thread)
	cells := func(what string, v starlark.Value) ([]string, error) {
		it, ok := v.(starlark.Iterable)
		if !ok {
			return nil, fmt.Errorf("%s: %s: got %s, want an iterable of cells", b.Name(), what, v.Type())
		}
		if s, ok := v.(starlark.Sequence); ok && s.Len() > maxTableCells {
			return nil, fmt.Errorf("%s: %s has more than %d cells", b.Name(), what, maxTableCells)
		}
		var out []string
		iter := it.Iterate()
		defer iter.Done()
		var c starlark.Value
		for iter.Next(&c) {
			if len(out) == maxTableCells {
				return nil, fmt.Errorf("%s: %s has more than %d cells", b.Name(), what, maxTableCells)
			}
			if s, ok := starlark.AsString(c); ok {
				out = append(out, s)
			} else {
				out = append(out, c.String())
			}
		}
		return out, nil
	}
	var hdr []string
	if header != starlark.None {
		var err error
		if hdr, err = cells("header", header); err != nil {
			return nil, err
		}
		if hdr == nil {
			hdr = []string{}
		}
	}
	var body [][]string
	size := 0
	iter := rows.Iterate()
	defer iter.Done()
	var r starlark.Value
	for i := 0; iter.Next(&r); i++ {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("%s: cancelled", b.Name())
			}
		}
		row, err := cells(fmt.Sprintf("rows[%d]", i), r)
		if err != nil {
			return nil, err
		}
		for _, c := range row {
			size += len(c) + 2
		}
		if size > 1<<28 {
			return nil, fmt.Errorf("%s: the table would exceed 256 MiB", b.Name())
		}
		body = append(body, row)
	}
	return starlark.String(picture.Table(hdr, body)), nil
}
