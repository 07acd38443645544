package picture

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// A Bar is one bar of a bar chart: its label and its (non-negative) height.
type Bar struct {
	Label string
	Value float64
}

// barWidth is the most characters a text bar takes.
const barWidth = 40

// BarsText draws a horizontal bar chart in text: one line per bar, the
// label right-aligned, the bar in '#' scaled to the greatest value, then
// the value as given by format.
func BarsText(bars []Bar, format func(float64) string) string {
	if len(bars) == 0 {
		return "(no bars)\n"
	}
	labelW, top := 0, 0.0
	for _, b := range bars {
		labelW = max(labelW, len([]rune(b.Label)))
		top = math.Max(top, b.Value)
	}
	var s strings.Builder
	for _, b := range bars {
		n := 0
		if top > 0 && b.Value > 0 {
			n = max(1, int(math.Round(b.Value/top*barWidth)))
		}
		pad := strings.Repeat(" ", labelW-len([]rune(b.Label)))
		fmt.Fprintf(&s, "%s%s | %s %s\n", pad, b.Label, strings.Repeat("#", n), format(b.Value))
	}
	return s.String()
}

// BarsSVG draws a vertical bar chart as a standalone SVG document, labels
// under the bars and values above them.
func BarsSVG(bars []Bar, format func(float64) string) string {
	const (
		height  = 200.0 // of the tallest bar
		top     = 24.0  // room for the value above a bar
		bottom  = 28.0  // room for the labels
		left    = 8.0
		minStep = 22.0
	)
	step := minStep
	for _, b := range bars {
		step = math.Max(step, 7*float64(len([]rune(b.Label)))+8)
	}
	step = math.Min(step, 120)
	width := left*2 + step*float64(max(1, len(bars)))
	peak := 0.0
	for _, b := range bars {
		peak = math.Max(peak, b.Value)
	}
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="11">`+"\n",
		width, top+height+bottom, width, top+height+bottom)
	fmt.Fprintf(&s, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&s, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#555"/>`+"\n", left, top+height, width-left, top+height)
	for i, b := range bars {
		h := 0.0
		if peak > 0 && b.Value > 0 {
			h = b.Value / peak * height
		}
		x := left + step*float64(i)
		fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#3b73b9"><title>%s: %s</title></rect>`+"\n",
			x+2, top+height-h, step-4, h, html.EscapeString(b.Label), html.EscapeString(format(b.Value)))
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x+step/2, top+height-h-4, html.EscapeString(format(b.Value)))
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x+step/2, top+height+16, html.EscapeString(b.Label))
	}
	s.WriteString("</svg>\n")
	return s.String()
}
