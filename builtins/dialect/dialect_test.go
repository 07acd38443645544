package dialect_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/syntax"
)

func TestCleanDoc(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"one line", "one line"},
		{"\n  Title.\n\n    indented\n  body\n  ", "Title.\n\n  indented\nbody"},
		{"Title.\n\tbody\n\t\tmore", "Title.\nbody\n\tmore"},
	} {
		if got := dialect.CleanDoc(c.in); got != c.want {
			t.Errorf("CleanDoc(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

func TestDocstring(t *testing.T) {
	for _, c := range []struct {
		src, want string
		ok        bool
	}{
		{"def f():\n    \"\"\"Sum.\n\n    More.\n    \"\"\"\n    return 1\n", "Sum.\n\nMore.", true},
		{"def f():\n    \"\"\n", "", true},
		{"def f():\n    return 1\n", "", false},
		{"def f():\n    x = \"no\"\n", "", false},
	} {
		f, err := dialect.FileOptions().Parse("d.star", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := dialect.Docstring(f.Stmts[0].(*syntax.DefStmt).Body)
		if got != c.want || ok != c.ok {
			t.Errorf("Docstring(%q) = %q, %v; want %q, %v", c.src, got, ok, c.want, c.ok)
		}
	}
}

func TestDefSignature(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"def f(): pass\n", "f()"},
		{"def f(a, b = 2, *c, d, e = [1,\n      2], **g): pass\n", "f(a, b=2, *c, d, e=[1, 2], **g)"},
		{"def f(a, *, k = \"é\"): pass\n", "f(a, *, k=\"é\")"},
	} {
		f, err := dialect.FileOptions().Parse("d.star", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := dialect.DefSignature(f.Stmts[0].(*syntax.DefStmt), []byte(c.src)); got != c.want {
			t.Errorf("DefSignature(%q) = %q; want %q", c.src, got, c.want)
		}
	}
}
