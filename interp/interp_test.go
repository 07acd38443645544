package interp_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

func TestDialect(t *testing.T) {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	_, err := in.ExecFile(context.Background(), "dialect.star", `
def fact(n):
    return 1 if n < 2 else n * fact(n - 1)   # recursion
x = 0
while x < 5:                                  # while
    x += 1
if x == 5:                                    # top-level if
    x = fact(x)                               # global reassignment
s = set([1, 2, 2])                            # set
for i in range(2):                            # top-level for
    pass
print(x, len(s), math.floor(2.5), json.encode([1]), type(time.now()), struct(a=1).a)
`)
	if err != nil {
		t.Fatal(backtrace(err))
	}
	if got, want := out.String(), "120 2 2 [1] time.time 1\n"; got != want {
		t.Errorf("output = %q; want %q", got, want)
	}
}

func TestExecKeepsGlobals(t *testing.T) {
	in := interp.New(interp.WithStdout(new(strings.Builder)))
	ctx := context.Background()
	if v, err := in.Exec(ctx, "<stdin>", "x = popcount(7)"); err != nil || v != starlark.None {
		t.Fatalf("Exec(x = ...) = %v, %v; want None, nil", v, err)
	}
	v, err := in.Exec(ctx, "<stdin>", "x * 2")
	if err != nil || v.String() != "6" {
		t.Fatalf("Exec(x * 2) = %v, %v; want 6", v, err)
	}
	if v, err := in.Eval(ctx, "hex(x)"); err != nil || v.String() != `"0x3"` {
		t.Fatalf(`Eval(hex(x)) = %v, %v; want "0x3"`, v, err)
	}
	g := in.Globals()
	if len(g) != 1 || g["x"] == nil {
		t.Errorf("Globals() = %v; want just x", g.Keys())
	}
	names := in.Names()
	if !contains(names, "x") || !contains(names, "popcount") {
		t.Errorf("Names() lacks x or popcount")
	}
	if _, err := in.Exec(ctx, "<stdin>", "1 +"); err == nil {
		t.Error("Exec of a syntax error succeeded")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// The context stops a pure Starlark loop (through thread.Cancel).
func TestCancelStarlarkLoop(t *testing.T) {
	in := interp.New()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := in.Exec(ctx, "<stdin>", "while True:\n    pass\n")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v; want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("while True: pass was not cancelled")
	}
	// The interpreter is still usable after a cancelled run.
	if v, err := in.Eval(context.Background(), "1 + 1"); err != nil || v.String() != "2" {
		t.Fatalf("after cancel, 1 + 1 = %v, %v", v, err)
	}
}

// A native builtin sees the run's context through builtins.Context.
func TestCancelNativeKernel(t *testing.T) {
	spin := starlark.NewBuiltin("spin", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		ctx := builtins.Context(thread)
		for i := 0; ; i++ {
			if i%4096 == 0 && ctx.Err() != nil {
				return nil, fmt.Errorf("spin: %w", ctx.Err())
			}
		}
	})
	in := interp.New(interp.WithPredeclared(starlark.StringDict{"spin": spin}))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := in.ExecFile(ctx, "spin.star", "spin()\n")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want context.DeadlineExceeded", err)
	}
}

func TestMaxSteps(t *testing.T) {
	in := interp.New(interp.WithMaxSteps(1000))
	_, err := in.ExecFile(context.Background(), "loop.star", "n = 0\nwhile True:\n    n += 1\n")
	if err == nil || !strings.Contains(err.Error(), "too many steps") {
		t.Fatalf("err = %v; want too many steps", err)
	}
	// The cap is per run: a short run afterwards succeeds.
	if _, err := in.Exec(context.Background(), "<stdin>", "x = 1"); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	fsys := fstest.MapFS{
		"main.star":     {Data: []byte("load('lib/a.star', 'a')\nload('lib/a.star', 'a')\nload('@stdlib/assert.star', 'assert')\nassert.eq(a, 42)\nprint('main', a)\n")},
		"lib/a.star":    {Data: []byte("load('b.star', 'b')\nprint('loading a')\na = b * 2\n")},
		"lib/b.star":    {Data: []byte("b = 21\n")},
		"cycle1.star":   {Data: []byte("load('cycle2.star', 'y')\nx = 1\n")},
		"cycle2.star":   {Data: []byte("load('cycle1.star', 'x')\ny = 1\n")},
		"spin.star":     {Data: []byte("load('spinlib.star', 'z')\n")},
		"spinlib.star":  {Data: []byte("z = 0\nwhile True:\n    z += 1\n")},
		"missing.star":  {Data: []byte("load('nope.star', 'z')\n")},
		"badstd.star":   {Data: []byte("load('@stdlib/nope.star', 'z')\n")},
		"badscope.star": {Data: []byte("load('@other/x.star', 'z')\n")},
	}
	var out strings.Builder
	in := interp.New(interp.WithFS(fsys), interp.WithStdout(&out), interp.WithMaxSteps(100000))
	ctx := context.Background()
	if _, err := in.ExecFile(ctx, "main.star", nil); err != nil {
		t.Fatal(backtrace(err))
	}
	if got, want := out.String(), "loading a\nmain 42\n"; got != want {
		t.Errorf("output = %q; want %q (modules run once, print reaches the sink)", got, want)
	}
	for file, want := range map[string]string{
		"cycle1.star":   "load cycle: cycle1.star -> cycle2.star -> cycle1.star",
		"spin.star":     "too many steps",
		"missing.star":  "nope.star",
		"badstd.star":   `no stdlib module "@stdlib/nope.star"`,
		"badscope.star": "unknown module prefix",
	} {
		_, err := in.ExecFile(ctx, file, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ExecFile(%s) error = %v; want it to contain %q", file, err, want)
		}
	}
}

func TestLoadCancelled(t *testing.T) {
	fsys := fstest.MapFS{
		"main.star": {Data: []byte("load('spin.star', 'z')\n")},
		"spin.star": {Data: []byte("z = 0\nwhile True:\n    z += 1\n")},
	}
	in := interp.New(interp.WithFS(fsys))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := in.ExecFile(ctx, "main.star", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v; want context.DeadlineExceeded from inside the loaded module", err)
	}
}

// Two interpreters in two goroutines share nothing (run with -race).
func TestParallelInterpreters(t *testing.T) {
	var wg sync.WaitGroup
	outs := make([]strings.Builder, 4)
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := interp.New(interp.WithStdout(&outs[i]), interp.WithPredeclared(starlark.StringDict{"id": starlark.MakeInt(i)}))
			src := "load('@stdlib/assert.star', 'assert')\npopcount = lambda x: -1\nn = 0\nfor x in range(2000):\n    n += bits(x)[0] if x else 0\nprint(id, n)\n"
			if _, err := in.ExecFile(context.Background(), "p.star", src); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for i := range outs {
		if !strings.HasPrefix(outs[i].String(), fmt.Sprint(i, " ")) {
			t.Errorf("interpreter %d printed %q", i, outs[i].String())
		}
	}
	// Reassigning a builtin in one interpreter does not leak into another.
	if v, err := interp.New().Eval(context.Background(), "popcount(7)"); err != nil || v.String() != "3" {
		t.Errorf("popcount(7) = %v, %v in a fresh interpreter", v, err)
	}
}

// bitsh's builtins work in a plain go.starlark.net thread.
func TestPlainThread(t *testing.T) {
	thread := &starlark.Thread{Name: "plain"}
	g, err := starlark.ExecFile(thread, "plain.star", "x = hex(pdep(3, 0xf0))\n", interp.Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	if got := g["x"].String(); got != `"0x30"` {
		t.Errorf("x = %s; want \"0x30\"", got)
	}
}

func ExampleInterp_Exec() {
	in := interp.New()
	ctx := context.Background()
	in.Exec(ctx, "<stdin>", "x = 0b1011")
	v, _ := in.Exec(ctx, "<stdin>", "popcount(x), hex(x, 8)")
	fmt.Println(v)
	// Output: (3, "0x0b")
}

func ExampleWithStdout() {
	var out strings.Builder
	in := interp.New(interp.WithStdout(&out))
	in.ExecFile(context.Background(), "hello.star", `print(bits(0b1010))`)
	fmt.Print(out.String())
	// Output: [1, 3]
}

// Lazy values made in one input and used in the next (as in the REPL)
// poll the later run's context and keep their size limits.
func TestLazyValuesAcrossRuns(t *testing.T) {
	in := interp.New(interp.WithStdout(new(strings.Builder)))
	for _, src := range []string{"c = set_classes(4)", "s = subsets((1 << 40) - 1)", "d = debruijn_sequences(16)"} {
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := in.Exec(ctx, "<stdin>", src); err != nil {
			t.Fatal(err)
		}
		cancel() // the run that made the value is over
	}
	ctx := context.Background()
	for expr, want := range map[string]string{
		"len([x for x in c])": "128",
		"len(list(d))":        "16",
		"len(s)":              "1099511627776",
	} {
		if v, err := in.Exec(ctx, "<stdin>", expr); err != nil || v.String() != want {
			t.Errorf("%s = %v, %v; want %s", expr, v, err, want)
		}
	}
	if _, err := in.Exec(ctx, "<stdin>", "list(s)"); err == nil || !strings.Contains(err.Error(), "items, more than") {
		t.Errorf("list(s) of 2^40 subsets: err = %v; want a size error", err)
	}
	// A later run cancelled mid-iteration stops the lazy value made earlier.
	ctx2, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := in.Exec(ctx2, "<stdin>", "max(s)"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("max over 2^40 subsets with a deadline: err = %v; want DeadlineExceeded", err)
	}
}
