package interp_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/interp"
)

// nativeCheckCases are small scripts whose functions a run offers to run
// as machine code (each loops, so its first call offers it), most of
// them refused: a string, a dict of tuples, a builtin the compiler does
// not know, a default value, a list argument, nested defs.
var nativeCheckCases = map[string]string{
	"strings.star": `
def word(n):
    s = ""
    for i in range(n):
        s += "ab"
    return len(s)
print(word(100))
`,
	"dict_tuples.star": `
D = {1: (2, 3), 4: (5, 6)}
def pick(n):
    t = 0
    for i in range(n):
        t += D.get(i % 5, (0, 0))[0]
    return t
print(pick(100))
`,
	"unknown_builtin.star": `
def letters(n):
    s = 0
    for i in range(n):
        s += ord(chr(65 + i % 26))
    return s
print(letters(50))
`,
	"default.star": `
def tri(n, k=1):
    s = 0
    for i in range(n):
        s += i * k
    return s
print(tri(50))
`,
	"varargs.star": `
def va(*xs):
    s = 0
    for x in xs:
        s += x
    return s
print(va(1, 2, 3))
`,
	"nested.star": `
M = 7
def outer(n):
    def sq(x):
        t = 0
        for i in range(x):
            t += i * M
        return t
    def add(x):
        s = 0
        for i in range(x):
            s += n
        return s
    def word(k):
        s = ""
        for i in range(k):
            s += "a"
        return len(s)
    return sq(n) + add(n) + word(n)
print(outer(10), outer(3))
`,
	"lists.star": `
N = 10
MASK = (1 << N) - 1
def total(xs):
    s = 0
    for x in xs:
        s += x & MASK
    return s
def spread(x):
    y = 0
    for i in range(N):
        y |= ((x >> i) & 1) << (2 * i)
    return y
print(total([1, 2, 3]), spread(MASK))
`,
}

// TestCheckNativeAgreesWithRun: for the natural programs of bench/natural
// and small refused cases, the verdict of Interp.CheckNative on each
// function (machine code, or interpreted and why) is the report's of a
// run of the same file, wherever the check gives one.
func TestCheckNativeAgreesWithRun(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("plain functions run as machine code on x86-64 Linux only")
	}
	files := map[string][]byte{}
	for name, src := range nativeCheckCases {
		files[name] = []byte(src)
	}
	natural, err := filepath.Glob("../bench/natural/*.star")
	if err != nil || len(natural) == 0 {
		t.Fatalf("no natural programs: %v", err)
	}
	for _, path := range natural {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(path)] = src
	}
	compared, refused := 0, 0
	for name, src := range files {
		run := interp.New(interp.WithNativeReport(io.Discard), interp.WithStdout(io.Discard))
		if _, err := run.ExecFile(context.Background(), name, src); err != nil {
			t.Fatalf("%s: run: %v", name, err)
		}
		report := run.NativeReport()
		starlarkfork.Require(t, "the native hook", len(report) > 0)
		check := interp.New(interp.WithStdout(io.Discard))
		verdicts, err := check.CheckNative(context.Background(), name, src)
		if err != nil {
			t.Fatalf("%s: check: %v", name, err)
		}
		byPos := map[string]interp.NativeVerdict{}
		for _, v := range verdicts {
			byPos[v.Pos.String()] = v
		}
		for _, f := range report {
			if f.Loop {
				continue
			}
			v, ok := byPos[f.Position]
			if !ok {
				t.Errorf("%s: the run offered %s (%s), the check says nothing of it", name, f.Name, f.Position)
				continue
			}
			if v.Name != f.Name {
				t.Errorf("%s: %s: the check names %s, the run %s", name, f.Position, v.Name, f.Name)
			}
			if v.Depends {
				if _, small := nativeCheckCases[name]; small {
					t.Errorf("%s: %s: %v", name, f.Name, v)
				}
				continue
			}
			compared++
			if f.Refused != "" {
				refused++
			}
			if v.Why != f.Refused {
				t.Errorf("%s: %s: the check says %q, the run's report %q", name, f.Name, v.Why, f.Refused)
			}
		}
	}
	// Every small case's functions, and most natural programs', compared.
	if compared < 19 || refused < 7 {
		t.Errorf("compared %d functions, %d of them refused; want at least 19 and 7", compared, refused)
	}
}

// TestCheckNativeRunsNothing: the check runs no statement of the file
// but its defs, loads and constants; a function reading a global the
// script computes depends on it, a parameter indexed twice (a list of
// lists) on its argument, and a default value the script computes is
// not computed.
func TestCheckNativeRunsNothing(t *testing.T) {
	const src = `
N = 4
def f(x):
    for i in range(N):
        x += i
    return x
def g(x):
    for i in range(len(T)):
        x += T[i]
    return x
def h(grid, i):
    return grid[i][i]
T = [f(i) for i in range(3)]
def k(n, m=T[0]):
    return n + m
fail("ran")
`
	in := interp.New(interp.WithStdout(io.Discard))
	verdicts, err := in.CheckNative(context.Background(), "n.star", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range verdicts {
		got = append(got, v.String())
	}
	want := []string{
		"n.star:3:1: f: machine code",
		"n.star:7:1: g: depends on the values of globals the script computes: T",
		"n.star:11:1: h: depends on its arguments: grid is a list of lists, and what its code takes depends on what it holds",
		"n.star:14:1: k: interpreted: its parameter m has a default value",
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		want = want[1:]
		got = got[1:]
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
