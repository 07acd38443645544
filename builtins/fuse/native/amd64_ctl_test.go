package native

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ctlOffsets are the control area's constants, by name, as the code has
// them.
var ctlOffsets = map[string]int{
	"ctlResume": ctlResume,
	"ctlN":      ctlN,
	"ctlWrite":  ctlWrite,
	"ctlPoll":   ctlPoll,
	"ctlCount":  ctlCount,
	"ctlStop":   ctlStop,
	"ctlAffine": ctlAffine,
	"ctlRegs":   ctlRegs,
	"ctlGoSP":   ctlGoSP,
	"ctlCodeSP": ctlCodeSP,
	"ctlDepth":  ctlDepth,
	"ctlEpoch":  ctlEpoch,
	"ctlBias":   ctlBias,
	"ctlOps":    ctlOps,
	"ctlSlots":  ctlSlots,
}

// ctlRow is a row of amd64.go's table of the control area: an offset and
// the constant's name.
var ctlRow = regexp.MustCompile(`^//\t(\d+)\s+(ctl\w+)\s`)

// TestControlAreaComment holds the table of the control area in amd64.go's
// comment to the constants the code uses: every constant named ctl* in the
// file has its row, at its offset, in the order of the offsets.
func TestControlAreaComment(t *testing.T) {
	src, err := os.ReadFile("amd64.go")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]int{}
	last := -1
	for line := range strings.SplitSeq(string(src), "\n") {
		m := ctlRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		off, _ := strconv.Atoi(m[1])
		if off <= last {
			t.Errorf("amd64.go's table: %s at %d comes after offset %d; want the rows in the order of the offsets", m[2], off, last)
		}
		last = off
		rows[m[2]] = off
	}
	f, err := parser.ParseFile(token.NewFileSet(), "amd64.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				if strings.HasPrefix(n.Name, "ctl") {
					names = append(names, n.Name)
				}
			}
		}
	}
	if len(names) == 0 {
		t.Fatal("amd64.go declares no ctl* constant; the test reads the wrong file")
	}
	for _, n := range names {
		want, ok := ctlOffsets[n]
		if !ok {
			t.Errorf("amd64.go declares %s; add it to ctlOffsets", n)
			continue
		}
		got, ok := rows[n]
		switch {
		case !ok:
			t.Errorf("amd64.go's table of the control area has no row for %s (offset %d)", n, want)
		case got != want:
			t.Errorf("amd64.go's table says %s is at %d; the code has %d", n, got, want)
		}
	}
	for n := range rows {
		if _, ok := ctlOffsets[n]; !ok {
			t.Errorf("amd64.go's table has a row for %s, which the code does not declare", n)
		}
	}
}
