package main

import (
	"context"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/interp"
)

func TestCompleter(t *testing.T) {
	in := interp.New()
	if _, err := in.Exec(context.Background(), "<test>", "popular = 1\n_private = 2\ns = struct(alpha = 1, beta = 2)\n"); err != nil {
		t.Fatal(err)
	}
	c := &completer{in: in}
	tests := []struct {
		line   string
		want   []string // candidates' suffixes (a subset check when some is "...")
		length int
	}{
		{"popc", []string{"ount"}, 4},
		{"x = popu", []string{"lar"}, 4},
		{"_pri", []string{"vate"}, 4},
		{"s.a", []string{"lpha"}, 1},
		{"s.", []string{"alpha", "beta"}, 0},
		{"math.sqr", []string{"t"}, 3},
		{"f(s.b", []string{"eta"}, 1},
		{"whil", []string{"e"}, 4},
		{"le", []string{"n"}, 2},
		{"", []string{"    "}, 0},     // indentation
		{"    ", []string{"    "}, 0}, // indentation
		{"nosuch.x", nil, 1},          // undefined prefix
		{"f().x", nil, 1},             // not a plain dotted name: never called
		{"popular.x", nil, 1},         // an int has no attributes
		{"12.5", nil, 0},              // a number
		{"zzz", nil, 3},
	}
	for _, tt := range tests {
		line := []rune(tt.line)
		got, length := c.Do(line, len(line))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if !slices.Equal(gs, tt.want) || (len(gs) > 0 && length != tt.length) {
			t.Errorf("Do(%q) = %q, %d; want %q, %d", tt.line, gs, length, tt.want, tt.length)
		}
	}
}

// TestCompleterHidesPrivate checks that names starting with "_" are only
// offered once the user types the underscore.
func TestCompleterHidesPrivate(t *testing.T) {
	in := interp.New()
	if _, err := in.Exec(context.Background(), "<test>", "_p = 1\np = 2\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := (&completer{in: in}).Do([]rune("x = "), 4)
	if len(got) == 0 {
		t.Fatal(`Do("x = ") offers nothing`)
	}
	for _, g := range got {
		if len(g) > 0 && g[0] == '_' {
			t.Errorf(`Do("x = ") offers the private name %q`, string(g))
		}
	}
}
