package stdlib_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/stdlib"
	"go.starlark.net/syntax"
)

// TestDocListsEveryExport checks that Doc lists each exported top-level
// def of every stdlib module with its signature and that each has a
// docstring, so help("@stdlib/NAME.star") documents the whole module.
func TestDocListsEveryExport(t *testing.T) {
	mods := stdlib.Modules()
	if len(mods) == 0 {
		t.Fatal("no stdlib modules")
	}
	for _, m := range mods {
		file := strings.TrimPrefix(m, "@stdlib/")
		doc, err := stdlib.Doc(file)
		if err != nil {
			t.Fatalf("Doc(%q): %v", file, err)
		}
		src, _ := fs.ReadFile(stdlib.FS, file)
		f, err := dialect.FileOptions().Parse(file, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(doc, m+"\n") || !strings.Contains(doc, "\nExports:\n") {
			t.Errorf("Doc(%q) lacks its title or Exports:\n%s", file, doc)
		}
		for _, st := range f.Stmts {
			def, ok := st.(*syntax.DefStmt)
			if !ok || strings.HasPrefix(def.Name.Name, "_") {
				continue
			}
			i := strings.Index(doc, "\n  "+def.Name.Name+"(")
			if i < 0 {
				t.Errorf("Doc(%q) does not list %s", file, def.Name.Name)
				continue
			}
			rest := doc[i+1:]
			lines := strings.SplitN(rest, "\n", 3)
			if len(lines) < 2 || !strings.HasPrefix(lines[1], "      ") {
				t.Errorf("Doc(%q): %s has no docstring", file, def.Name.Name)
			}
		}
	}
	if _, err := stdlib.Doc("nope.star"); err == nil || !strings.Contains(err.Error(), "@stdlib/board.star") {
		t.Errorf("Doc(nope.star) = %v; want an error listing the modules", err)
	}
}

func TestDocSignature(t *testing.T) {
	doc, err := stdlib.Doc("board.star")
	if err != nil {
		t.Fatal(err)
	}
	want := "\n  diagram(index, n, pieces=None, numbering=\"natural\", labels=False)\n      Draws the n pieces packed in index, one letter per piece.\n"
	if !strings.Contains(doc, want) {
		t.Errorf("Doc(board.star) lacks %q:\n%s", want, doc)
	}
}
