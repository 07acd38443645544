// Package picture draws bitsh's pictures from plain data: bitboards, SET
// cards and tables, as text for a terminal (with or without ANSI colours)
// and as standalone SVG documents for notebooks. It knows nothing of
// Starlark.
package picture

import (
	"fmt"
	"strings"
)

const files = "abcdefgh"

// ANSI escapes used by the coloured text pictures.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
)

// Board returns the labelled diagram of a bitboard in the natural
// numbering (square = 8*rank + file, a1 = bit 0): 8 rows, rank 8 first,
// each the rank's digit, a space, then "x" for a one bit and "." for a
// zero, files separated by single spaces; then a row of the file letters
// under them. There is no newline after the last row. With color, ones
// are bold and zeros dim (same characters, so the layout is unchanged).
func Board(bb uint64, color bool) string {
	var b strings.Builder
	for rank := 7; rank >= 0; rank-- {
		fmt.Fprintf(&b, "%d", rank+1)
		for file := 0; file < 8; file++ {
			b.WriteByte(' ')
			one := bb>>(8*rank+file)&1 == 1
			switch {
			case one && color:
				b.WriteString(ansiBold + "x" + ansiReset)
			case one:
				b.WriteByte('x')
			case color:
				b.WriteString(ansiDim + "." + ansiReset)
			default:
				b.WriteByte('.')
			}
		}
		b.WriteByte('\n')
	}
	b.WriteString(" ")
	for file := 0; file < 8; file++ {
		b.WriteByte(' ')
		b.WriteByte(files[file])
	}
	return b.String()
}

// BoardSVG returns a bitboard as an SVG chessboard: light and dark
// squares, a disc on each square whose bit is one, rank numbers on the
// left and file letters below.
func BoardSVG(bb uint64) string {
	const cell, margin = 32, 20
	size := 8*cell + margin
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="13">`+"\n", size, size, size, size)
	for rank := 7; rank >= 0; rank-- {
		y := (7 - rank) * cell
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" dominant-baseline="central">%d</text>`+"\n", margin/2, y+cell/2, rank+1)
		for file := 0; file < 8; file++ {
			x := margin + file*cell
			fill := "#f0d9b5"
			if (rank+file)%2 == 0 {
				fill = "#b58863" // a1 is dark
			}
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>`+"\n", x, y, cell, cell, fill)
			if bb>>(8*rank+file)&1 == 1 {
				fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="%d" fill="#1f5fbf" stroke="#ffffff" stroke-width="1.5"/>`+"\n", x+cell/2, y+cell/2, cell/3)
			}
		}
	}
	for file := 0; file < 8; file++ {
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" dominant-baseline="central">%c</text>`+"\n", margin+file*cell+cell/2, 8*cell+margin/2, files[file])
	}
	b.WriteString("</svg>\n")
	return b.String()
}
