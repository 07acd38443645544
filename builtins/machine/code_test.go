package machine

import (
	"context"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
)

// texts are kept sources: one text per file name.
type texts map[string]string

func (t texts) Texts(filename string) []string {
	if s, ok := t[filename]; ok {
		return []string{s}
	}
	return nil
}

// module runs src as the file m.star and returns its globals and the
// Sources that keep it.
func module(t *testing.T, src string) (starlark.StringDict, Sources) {
	t.Helper()
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), &starlark.Thread{Name: "test"}, "m.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	return g, texts{"m.star": src}
}

// TestCompileFused: the front door compiles a def for fuse, and its Code
// runs one call and a space as the def computes them.
func TestCompileFused(t *testing.T) {
	g, srcs := module(t, "def f(x):\n    if x & 1:\n        return 3 * x + 1\n    return x >> 1\n")
	code, err := Compile(g["f"].(*starlark.Function), Fused, Env{Sources: srcs, Context: context.Background()})
	if err != nil {
		t.Fatal(err)
	}
	if code.Name != "f" || code.Where != "m.star:1:1" || len(code.Params) != 1 || code.Plain != nil {
		t.Errorf("Code %q at %q, params %q, plain %v", code.Name, code.Where, code.Params, code.Plain != nil)
	}
	f := func(x uint64) uint64 {
		if x&1 != 0 {
			return 3*x + 1
		}
		return x >> 1
	}
	for _, x := range []uint64{0, 1, 6, 7, 1 << 63} {
		if got, err := code.Call(context.Background(), []uint64{x}); err != nil || got != f(x) {
			t.Errorf("Call(%d) = %d, %v; want %d", x, got, err, f(x))
		}
	}
	res, err := code.Run(context.Background(), []fuse.Space{fuse.Range{Start: 0, Step: 1, N: 1000}}, fuse.Sum, fuse.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	var want uint64
	for x := range uint64(1000) {
		want += f(x)
	}
	if res.SumHi != 0 || res.SumLo != want {
		t.Errorf("Run sum = %d:%d, want %d", res.SumHi, res.SumLo, want)
	}
	// Without kept sources there is nothing to compile.
	if _, err := Compile(g["f"].(*starlark.Function), Fused, Env{}); err == nil {
		t.Error("Compile without sources: no error")
	}
}

// TestCompileText: the text form of fuse, with its free names.
func TestCompileText(t *testing.T) {
	free := func(name string) (starlark.Value, bool) {
		if name == "K" {
			return starlark.MakeInt(7), true
		}
		return nil, false
	}
	code, err := CompileText("lambda x: x * K + 1", free, func(string) bool { return true }, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := code.Call(context.Background(), []uint64{5}); err != nil || got != 36 {
		t.Errorf("Call(5) = %d, %v; want 36", got, err)
	}
	for _, bad := range []string{"lambda x=1: x", "x + 1", "def f(x):\n    return x\ndef g(x):\n    return x\n"} {
		if _, err := CompileText(bad, free, func(string) bool { return true }, Env{}); err == nil {
			t.Errorf("CompileText(%q): no error", bad)
		}
	}
}

// TestCompilePlain: a plain function's Code says what its calls pass
// (a list of the first call's length, a bool) and gets its machine code
// ready, or says why not.
func TestCompilePlain(t *testing.T) {
	g, srcs := module(t, "def f(xs, on):\n    t = 0\n    for x in xs:\n        if on:\n            t += x\n    return t\n"+
		"def g(s):\n    return s + 'x'\n")
	env := Env{Sources: srcs, Context: context.Background()}
	args := starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.MakeInt(2)}), starlark.True}
	code, err := Compile(g["f"].(*starlark.Function), Plain(args), env)
	if err != nil {
		t.Fatal(err)
	}
	pc := code.Plain
	if pc == nil || len(pc.Lists) != 2 || pc.Lists[0] != 2 || pc.Lists[1] != -1 || pc.NLists != 1 || len(pc.Bools) != 2 || !pc.Bools[1] {
		t.Fatalf("PlainCode %+v; want a list of 2 and a bool", pc)
	}
	<-pc.Ready()
	if (pc.Executable() == nil) != (pc.Err() != nil) {
		t.Errorf("ready: executable %v, error %v", pc.Executable() != nil, pc.Err())
	}
	if _, err := Compile(g["g"].(*starlark.Function), Plain(starlark.Tuple{starlark.String("a")}), env); err == nil {
		t.Error("a function of strings compiled as a plain function")
	}
}
