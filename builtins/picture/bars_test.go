package picture_test

import (
	"encoding/xml"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/picture"
)

func itoa(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }

func TestBarsText(t *testing.T) {
	for _, c := range []struct {
		bars []picture.Bar
		want string
	}{
		{nil, "(no bars)\n"},
		{[]picture.Bar{{"a", 0}}, "a |  0\n"},
		{[]picture.Bar{{"1", 2}, {"10", 4}}, " 1 | " + strings.Repeat("#", 20) + " 2\n10 | " + strings.Repeat("#", 40) + " 4\n"},
		// A small non-zero value still shows one mark.
		{[]picture.Bar{{"x", 1}, {"y", 1000}}, "x | # 1\ny | " + strings.Repeat("#", 40) + " 1000\n"},
	} {
		if got := picture.BarsText(c.bars, itoa); got != c.want {
			t.Errorf("BarsText(%v) =\n%q\nwant\n%q", c.bars, got, c.want)
		}
	}
}

// TestBarsSVG checks that the SVG is well-formed XML with one rect per bar
// (beside the background) whose heights follow the values.
func TestBarsSVG(t *testing.T) {
	bars := []picture.Bar{{"<a&b>", 1}, {"two", 2}, {"zero", 0}}
	svg := picture.BarsSVG(bars, itoa)
	var doc struct {
		Rects []struct {
			Height string `xml:"height,attr"`
			Title  string `xml:"title"`
		} `xml:"rect"`
	}
	if err := xml.Unmarshal([]byte(svg), &doc); err != nil {
		t.Fatalf("BarsSVG is not XML: %v\n%s", err, svg)
	}
	if len(doc.Rects) != 1+len(bars) {
		t.Fatalf("BarsSVG has %d rects, want %d", len(doc.Rects), 1+len(bars))
	}
	h := func(i int) float64 {
		v, err := strconv.ParseFloat(doc.Rects[1+i].Height, 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if h(1) != 2*h(0) || h(2) != 0 {
		t.Errorf("bar heights %v, %v, %v do not follow the values 1, 2, 0", h(0), h(1), h(2))
	}
	if doc.Rects[1].Title != "<a&b>: 1" {
		t.Errorf("first bar's title %q, want the label unescaped by the XML reader", doc.Rects[1].Title)
	}
}

func BenchmarkBarsSVG(b *testing.B) {
	bars := make([]picture.Bar, 64)
	for i := range bars {
		bars[i] = picture.Bar{Label: strconv.Itoa(i), Value: float64(i * i)}
	}
	for b.Loop() {
		picture.BarsSVG(bars, itoa)
	}
}
