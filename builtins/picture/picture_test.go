package picture_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bitsh/bitsh/builtins/picture"
)

// refBoard draws a bitboard the slow way: a grid of square names.
func refBoard(bb uint64) string {
	var lines []string
	for _, rank := range "87654321" {
		cells := []string{string(rank)}
		for _, file := range "abcdefgh" {
			sq := int(rank-'1')*8 + int(file-'a')
			c := "."
			if bb&(1<<sq) != 0 {
				c = "x"
			}
			cells = append(cells, c)
		}
		lines = append(lines, strings.Join(cells, " "))
	}
	lines = append(lines, "  a b c d e f g h")
	return strings.Join(lines, "\n")
}

func TestBoard(t *testing.T) {
	for _, bb := range []uint64{0, 1, 1 << 63, 0xff00, 0x8100000000000081, ^uint64(0), 0x123456789abcdef0} {
		if got, want := picture.Board(bb, false), refBoard(bb); got != want {
			t.Errorf("Board(%#x) =\n%s\nwant\n%s", bb, got, want)
		}
		// Colour changes no visible character.
		plain := strings.NewReplacer("\x1b[0m", "", "\x1b[1m", "", "\x1b[2m", "").Replace(picture.Board(bb, true))
		if plain != refBoard(bb) {
			t.Errorf("Board(%#x, color) without escapes = %q", bb, plain)
		}
	}
}

// checkSVG parses doc as XML and counts its elements by name.
func checkSVG(t *testing.T, doc string) map[string]int {
	t.Helper()
	count := map[string]int{}
	d := xml.NewDecoder(strings.NewReader(doc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v\n%s", err, doc)
		}
		if se, ok := tok.(xml.StartElement); ok {
			count[se.Name.Local]++
		}
	}
	if count["svg"] != 1 {
		t.Fatalf("want one svg element, got %v", count)
	}
	return count
}

func TestBoardSVG(t *testing.T) {
	for _, bb := range []uint64{0, 0xff00, ^uint64(0), 0x8000000000000001} {
		n := checkSVG(t, picture.BoardSVG(bb))
		ones := 0
		for x := bb; x != 0; x &= x - 1 {
			ones++
		}
		if n["rect"] != 64 || n["circle"] != ones || n["text"] != 16 {
			t.Errorf("BoardSVG(%#x): %d squares, %d discs, %d labels; want 64, %d, 16", bb, n["rect"], n["circle"], n["text"], ones)
		}
	}
}

func TestFromIndex(t *testing.T) {
	for c := 0; c < 81; c++ {
		k := picture.FromIndex(c)
		if back := 27*k.Number + 9*k.Color + 3*k.Shading + k.Shape; back != c {
			t.Errorf("FromIndex(%d) = %+v, which numbers %d", c, k, back)
		}
	}
	if got := picture.FromIndex(27 + 9 + 3).Name(); got != "2 green striped diamonds" {
		t.Errorf("card 39 is %q", got)
	}
	if got := picture.FromIndex(80).Letters(); got != "3PoO" {
		t.Errorf("card 80 letters %q", got)
	}
}

func TestCardsText(t *testing.T) {
	cards := []picture.Card{picture.FromIndex(0), picture.FromIndex(40), picture.FromIndex(80)}
	if got, want := picture.CardsText(cards, false), "1RsD 2GtS 3PoO"; got != want {
		t.Errorf("plain = %q; want %q", got, want)
	}
	col := picture.CardsText(cards, true)
	lines := strings.Split(col, "\n")
	if len(lines) != 3 {
		t.Fatalf("colored cards: %d lines, want 3:\n%s", len(lines), col)
	}
	for _, l := range lines {
		vis := stripANSI(l)
		if n := utf8.RuneCountInString(vis); n != 3*7+2 {
			t.Errorf("line %q is %d wide, want 23", vis, n)
		}
	}
	if !strings.Contains(lines[1], "\x1b[31m◆\x1b[0m") || !strings.Contains(lines[1], "\x1b[35m○○○\x1b[0m") {
		t.Errorf("middle line %q lacks the red diamond or the three purple ovals", lines[1])
	}
	// Ten cards wrap to two rows of boxes.
	var ten []picture.Card
	for c := 0; c < 10; c++ {
		ten = append(ten, picture.FromIndex(c))
	}
	if n := strings.Count(picture.CardsText(ten, true), "\n"); n != 5 {
		t.Errorf("ten cards: %d newlines, want 5", n)
	}
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && s[i] != 'm' {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func TestCardsSVG(t *testing.T) {
	for c := 0; c < 81; c++ {
		k := picture.FromIndex(c)
		doc := picture.CardsSVG([]picture.Card{k})
		n := checkSVG(t, doc)
		shapes := n["polygon"] + n["path"] + n["rect"] - 1 - 3 // the card and the 3 pattern backgrounds
		if shapes != k.Number+1 {
			t.Errorf("card %d (%s): %d shapes", c, k.Name(), shapes)
		}
		want := map[int]string{0: "polygon", 1: "path", 2: "rect"}[k.Shape]
		if n[want] == 0 {
			t.Errorf("card %d (%s) has no %s", c, k.Name(), want)
		}
		if k.Shading == 1 && !strings.Contains(doc, "url(#stripes-") || k.Shading == 2 && !strings.Contains(doc, `fill="none"`) {
			t.Errorf("card %d (%s): shading not drawn", c, k.Name())
		}
	}
	checkSVG(t, picture.CardsSVG(nil))
}

func TestTable(t *testing.T) {
	tests := []struct {
		header []string
		rows   [][]string
		want   string
	}{
		{nil, nil, ""},
		{[]string{"k", "total"}, [][]string{{"0", "1"}, {"1", "81"}, {"2", "3240"}},
			"k  total\n-  -----\n0      1\n1     81\n2   3240"},
		{nil, [][]string{{"a", "1.5"}, {"bcd", "-20"}, {"é", "3e5"}},
			"a    1.5\nbcd  -20\né    3e5"},
		{[]string{"name"}, [][]string{{"x", "extra"}, {}}, "name\n----  -----\nx     extra\n"},
		{[]string{"w"}, [][]string{{"0xff"}, {"0x1"}}, "   w\n----\n0xff\n 0x1"},
	}
	for _, tt := range tests {
		if got := picture.Table(tt.header, tt.rows); got != tt.want {
			t.Errorf("Table(%q, %q) =\n%q\nwant\n%q", tt.header, tt.rows, got, tt.want)
		}
	}
}

// FuzzTable checks that any cells lay out in aligned columns: every
// untrimmed line has each column's cell at the same offset.
func FuzzTable(f *testing.F) {
	f.Add("a", "1", "bb", "22")
	f.Add("", "x y", "-", "1e")
	f.Fuzz(func(t *testing.T, a, b, c, d string) {
		for _, s := range []string{a, b, c, d} {
			if strings.ContainsAny(s, "\n\r") || !utf8.ValidString(s) {
				return
			}
		}
		out := picture.Table([]string{"h1", "h2"}, [][]string{{a, b}, {c, d}})
		lines := strings.Split(out, "\n")
		if len(lines) != 4 {
			t.Fatalf("%d lines: %q", len(lines), out)
		}
		w1 := max(2, utf8.RuneCountInString(a), utf8.RuneCountInString(c))
		if got := strings.Split(lines[1], "  ")[0]; got != strings.Repeat("-", w1) {
			t.Fatalf("dashes %q, want %d", got, w1)
		}
	})
}

func BenchmarkTable(b *testing.B) {
	rows := make([][]string, 100)
	for i := range rows {
		rows[i] = []string{fmt.Sprint(i), fmt.Sprint(i * i), "row"}
	}
	for range b.N {
		_ = picture.Table([]string{"i", "square", "label"}, rows)
	}
}

func BenchmarkBoard(b *testing.B) {
	for i := range b.N {
		_ = picture.Board(uint64(i)*0x9e3779b97f4a7c15, false)
	}
}
