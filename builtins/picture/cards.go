package picture

import (
	"fmt"
	"strings"
)

// A Card is a SET card: each attribute is 0, 1 or 2. Number 0..2 means
// one to three shapes; Color red, green, purple; Shading solid, striped,
// open; Shape diamond, squiggle, oval.
type Card struct {
	Number, Color, Shading, Shape int
}

// FromIndex returns the card numbered c (0..80) in bitsh's numbering,
// c = 27(x1-1) + 9(x2-1) + 3(x3-1) + (x4-1), reading x1 as the number,
// x2 as the color, x3 as the shading and x4 as the shape.
func FromIndex(c int) Card {
	return Card{Number: c / 27 % 3, Color: c / 9 % 3, Shading: c / 3 % 3, Shape: c % 3}
}

var (
	colorNames   = [3]string{"red", "green", "purple"}
	shadingNames = [3]string{"solid", "striped", "open"}
	shapeNames   = [3]string{"diamond", "squiggle", "oval"}
	colorLetters = [3]byte{'R', 'G', 'P'}
	shadeLetters = [3]byte{'s', 't', 'o'}
	shapeLetters = [3]byte{'D', 'S', 'O'}
	colorANSI    = [3]string{"\x1b[31m", "\x1b[32m", "\x1b[35m"}
	colorSVG     = [3]string{"#e0212d", "#1b9e3e", "#6c2b9c"}
	// glyphs[shape][shading]
	glyphs = [3][3]string{
		{"◆", "◈", "◇"},
		{"≋", "≈", "∼"},
		{"●", "◍", "○"},
	}
)

// Letters returns the card's plain-text code: the number (1..3), the
// color (R, G, P), the shading (s solid, t striped, o open) and the shape
// (D diamond, S squiggle, O oval), as "2GtO" for two green striped ovals.
func (c Card) Letters() string {
	return fmt.Sprintf("%d%c%c%c", c.Number+1, colorLetters[c.Color], shadeLetters[c.Shading], shapeLetters[c.Shape])
}

// Name returns the card in words, as "2 green striped ovals".
func (c Card) Name() string {
	s := ""
	if c.Number > 0 {
		s = "s"
	}
	return fmt.Sprintf("%d %s %s %s%s", c.Number+1, colorNames[c.Color], shadingNames[c.Shading], shapeNames[c.Shape], s)
}

// cardsPerRow is how many boxed cards CardsText puts side by side.
const cardsPerRow = 9

// CardsText draws cards for a terminal. Without color it is the plain
// letters of each card separated by spaces, on one line. With color each
// card is a small box holding its 1..3 shapes in its color, the shape's
// glyph filled, hatched or hollow for the shading, nine cards a row.
func CardsText(cards []Card, color bool) string {
	if !color {
		parts := make([]string, len(cards))
		for i, c := range cards {
			parts[i] = c.Letters()
		}
		return strings.Join(parts, " ")
	}
	var rows []string
	for start := 0; start < len(cards); start += cardsPerRow {
		row := cards[start:min(len(cards), start+cardsPerRow)]
		var top, mid, bot []string
		for _, c := range row {
			g := strings.Repeat(glyphs[c.Shape][c.Shading], c.Number+1)
			pad := 3 - (c.Number + 1)
			inner := strings.Repeat(" ", pad/2+1) + colorANSI[c.Color] + g + ansiReset + strings.Repeat(" ", pad-pad/2+1)
			top = append(top, "╭─────╮")
			mid = append(mid, "│"+inner+"│")
			bot = append(bot, "╰─────╯")
		}
		rows = append(rows, strings.Join(top, " "), strings.Join(mid, " "), strings.Join(bot, " "))
	}
	return strings.Join(rows, "\n")
}

// Card geometry of the SVG pictures, in pixels.
const (
	cardW, cardH = 80, 120
	cardGap      = 10
	shapeW       = 56
	shapeH       = 22
)

// CardsSVG draws the cards as real SET cards side by side: a white
// rounded card holding 1..3 diamonds, squiggles or ovals in red, green or
// purple, solid, striped (thin vertical lines) or open.
func CardsSVG(cards []Card) string {
	n := max(len(cards), 1)
	w := n*cardW + (n+1)*cardGap
	h := cardH + 2*cardGap
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">`+"\n", w, h, w, h)
	b.WriteString("<defs>\n")
	for i, col := range colorSVG {
		fmt.Fprintf(&b, `<pattern id="stripes-%s" width="5" height="10" patternUnits="userSpaceOnUse"><rect width="5" height="10" fill="white"/><line x1="1" y1="0" x2="1" y2="10" stroke="%s" stroke-width="1.5"/></pattern>`+"\n", colorNames[i], col)
	}
	b.WriteString("</defs>\n")
	for i, c := range cards {
		x := cardGap + i*(cardW+cardGap)
		fmt.Fprintf(&b, `<g transform="translate(%d,%d)"><title>%s</title>`+"\n", x, cardGap, c.Name())
		fmt.Fprintf(&b, `<rect x="0" y="0" width="%d" height="%d" rx="8" fill="white" stroke="#888" stroke-width="1.5"/>`+"\n", cardW, cardH)
		k := c.Number + 1
		step := shapeH + 8
		y0 := cardH/2 - (k-1)*step/2
		for j := 0; j < k; j++ {
			b.WriteString(shapeSVG(c, cardW/2, y0+j*step))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// shapeSVG draws one shape of card c centred at (cx, cy).
func shapeSVG(c Card, cx, cy int) string {
	fill := colorSVG[c.Color]
	switch c.Shading {
	case 1:
		fill = "url(#stripes-" + colorNames[c.Color] + ")"
	case 2:
		fill = "none"
	}
	style := fmt.Sprintf(`fill="%s" stroke="%s" stroke-width="2"`, fill, colorSVG[c.Color])
	hw, hh := shapeW/2, shapeH/2
	switch c.Shape {
	case 0: // diamond
		return fmt.Sprintf(`<polygon points="%d,%d %d,%d %d,%d %d,%d" %s/>`+"\n", cx-hw, cy, cx, cy-hh, cx+hw, cy, cx, cy+hh, style)
	case 1: // squiggle: an S-shaped blob, two humps on each long side
		return fmt.Sprintf(`<path transform="translate(%d,%d)" d="M-25,9 C-31,-4 -19,-13 -7,-9 C2,-6 9,-10 17,-12 C27,-14 31,-4 25,6 C19,14 8,11 0,7 C-8,3 -15,15 -25,9 Z" %s/>`+"\n", cx, cy, style)
	default: // oval
		return fmt.Sprintf(`<rect x="%d" y="%d" width="%d" height="%d" rx="%d" %s/>`+"\n", cx-hw, cy-hh, shapeW, shapeH, hh, style)
	}
}
