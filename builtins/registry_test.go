package builtins_test

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/dialect"
	"go.starlark.net/starlark"
)

func TestEveryBuiltinHasDoc(t *testing.T) {
	all := builtins.All()
	if len(all) == 0 {
		t.Fatal("no builtins registered")
	}
	for _, b := range all {
		sig := builtins.Summary(b.Doc)
		if !strings.HasPrefix(sig, b.Name) {
			t.Errorf("%s: docstring must start with its signature, got %q", b.Name, sig)
		}
		if !strings.Contains(strings.TrimSpace(b.Doc), "\n") {
			t.Errorf("%s: docstring has a signature but no contract", b.Name)
		}
		if !slices.Contains(builtins.Topics(), b.Topic) {
			t.Errorf("%s: unknown topic %q", b.Name, b.Topic)
		}
	}
}

func TestDocsUpToDate(t *testing.T) {
	var buf bytes.Buffer
	if err := builtins.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../docs/builtins.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, buf.Bytes()) {
		t.Error("docs/builtins.md is stale: run go generate ./...")
	}
}

func TestPredeclaredIsFresh(t *testing.T) {
	a, b := builtins.Predeclared(), builtins.Predeclared()
	a["popcount"] = starlark.None
	if b["popcount"] == starlark.None {
		t.Fatal("Predeclared dictionaries share state")
	}
	for _, bi := range builtins.All() {
		if _, ok := b[bi.Name]; !ok {
			t.Errorf("%s registered but not predeclared", bi.Name)
		}
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	thread := &starlark.Thread{}
	builtins.SetEnv(thread, builtins.Env{Stdout: &out, Stderr: &out})
	env := builtins.Predeclared()
	if _, err := starlark.Call(thread, env["help"], nil, nil); err != nil {
		t.Fatal(err)
	}
	for _, topic := range []string{"bits:", "popcount(x)"} {
		if !strings.Contains(out.String(), topic) {
			t.Errorf("help() output lacks %q:\n%s", topic, out.String())
		}
	}
	out.Reset()
	if _, err := starlark.Call(thread, env["help"], starlark.Tuple{starlark.String("pdep")}, nil); err != nil {
		t.Fatal(err)
	}
	if want := "pdep(x, mask)\nParallel bit deposit"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("help(\"pdep\") = %q; want prefix %q", out.String(), want)
	}
}

// TestWordBuiltinsRegistered checks that each word builtin declared in
// bitops is registered, with the declaration's signature opening its doc.
func TestWordBuiltinsRegistered(t *testing.T) {
	pre := builtins.Predeclared()
	for _, d := range bitops.Builtins {
		v, ok := pre[d.Name]
		if !ok {
			t.Errorf("%s is declared in bitops but not registered", d.Name)
			continue
		}
		doc, err := builtins.Doc(v)
		if err != nil || !strings.HasPrefix(doc, d.Name+"(") || !strings.Contains(doc, d.Doc) {
			t.Errorf("Doc(%s) = %q, %v; want its signature and declared doc", d.Name, doc, err)
		}
	}
}

// TestWordBuiltinsFuse checks that each word builtin declared in bitops
// can be called in a fused function, with its required arguments and with
// every argument given by keyword, and agrees there with the builtin.
func TestWordBuiltinsFuse(t *testing.T) {
	for _, d := range bitops.Builtins {
		var pos, kw []string
		for i, p := range d.Params {
			arg := "0x0f0f" // a mask for which delta = 4 is a valid delta_swap
			switch {
			case i == 0:
				arg = "s | 1" // nonzero, for bsf and bsr
			case p.Kind == bitops.Count:
				arg = "s % 70"
			case p.Kind == bitops.Int:
				arg = "4"
			case p.Optional:
				arg = p.DefaultText()
			}
			if !p.Optional {
				pos = append(pos, arg)
			}
			kw = append(kw, p.Name+" = "+arg)
		}
		for _, args := range []string{strings.Join(pos, ", "), strings.Join(kw, ", ")} {
			call := d.Name + "(" + args + ")"
			src := "f = fuse(\"lambda s: " + call + "\", device = \"cpu\")\n" +
				"for s in [0, 1, 0x8000, 0xdeadbeef, 0xfedcba9876543210]:\n" +
				"    if f(s) != " + call + ":\n" +
				"        fail(\"s = %d: fused %d, builtin %d\" % (s, f(s), " + call + "))\n"
			thread := &starlark.Thread{Name: "fuse"}
			if _, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "fuse.star", src, builtins.Predeclared()); err != nil {
				t.Errorf("%s: %v", call, err)
			}
		}
	}
}
