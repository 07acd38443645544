package builtins

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// tuplesScript reads tables of tuples and of negative ints as Python
// programmers write them: (piece, mask) pairs listed by cell for an exact
// cover (bench/natural/cover.star's shape, on a small box), direction
// pairs holding -1 (bench/natural/magic.star's rook walk), and ints at the
// ends of what a table may hold. It changes a row of the table between
// calls, and result gathers every answer.
const tuplesScript = `
H, W = 4, 4
PLACEMENTS = [[] for _ in range(H * W)]
for c0 in range(W):
    for r0 in range(H):
        cell = c0 * H + r0
        if r0 + 1 < H:
            PLACEMENTS[cell].append((0, (1 << cell) | (1 << (cell + 1))))
        if c0 + 1 < W:
            PLACEMENTS[cell].append((1, (1 << cell) | (1 << (cell + H))))
FULL = (1 << (H * W)) - 1

def tilings(board, used):
    if board == FULL:
        return 1
    cell = 0
    while (board >> cell) & 1:
        cell += 1
    n = 0
    for kind, mask in PLACEMENTS[cell]:
        if not board & mask:
            n += tilings(board | mask, used + kind)
    return n

DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1))

def attacks(sq, occ):
    r, f = sq // 8, sq % 8
    a = 0
    for dr, df in DIRS:
        rr, ff = r + dr, f + df
        while 0 <= rr and rr < 8 and 0 <= ff and ff < 8:
            a |= 1 << (rr * 8 + ff)
            if (occ >> (rr * 8 + ff)) & 1:
                break
            rr += dr
            ff += df
    return a

EDGES = [(-(1 << 63), 1), ((1 << 63) - 1, 2), (-1, 3), (0, 4)]
TOP = [((1 << 64) - 1, 1), (5, 0)]

def edges(x):
    n = 0
    for v, w in EDGES:
        if v < 0:
            n += w
        if v == -1:
            n += 100
        if v == -(1 << 63):
            n += 1000
        if v > (x & 0xff) - 1:
            n += 10000
    # Other names: v holds EDGES's ints, biased by 2^63, and so could not
    # hold TOP's 2^64 - 1 (the call would go back to the interpreter).
    for a, b in TOP:
        n = n * 3 + (a & 0xff) + b
    return n

def low(x):
    for v, w in EDGES:
        if w == x % 5:
            return v + x
    return x

r1 = [tilings(0, 0) for _ in range(3)]
r2 = [attacks(sq, occ) for sq in range(64) for occ in (0, 0x0000001008000000, (1 << 64) - 1)]
r3 = [edges(x) for x in range(8)]
r4 = [low(x) for x in range(20)]
PLACEMENTS[0].append((1, 3))
r5 = [tilings(0, 0) for _ in range(3)]
result = (r1, r2, r3, r4, r5)
`

// TestNativeTuples: tuplesScript's functions run as code and answer as the
// interpreter does, before and after a row of their table changes.
func TestNativeTuples(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	thread := &starlark.Thread{Name: "tuples"}
	SetEnv(thread, Env{Sources: testSources{"tuples.star": tuplesScript}, Context: context.Background()})
	nfs, _ := recordingHook(t, thread)
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "tuples.star", tuplesScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := runNative(t, tuplesScript, false)
	if got := g["result"].String(); got != want {
		t.Errorf("result = %s with code, %s interpreted", got, want)
	}
	for _, name := range []string{"tilings", "attacks", "edges", "low"} {
		nf := nfs[name]
		if nf == nil {
			t.Errorf("%s was not compiled", name)
			continue
		}
		if nf.runs.Load() == 0 {
			t.Errorf("%s: no call ran as code", name)
		}
	}
	if nf := nfs["tilings"]; nf != nil && nf.giveUp.tableChanged.Load() == 0 {
		t.Errorf("tilings: no call saw PLACEMENTS changed")
	}
}

// TestNativeTuplesErrors: a tuple of another length put into a table
// after its function was compiled, or there from the start, and a table
// no word can bias, give the interpreter's error or answer.
func TestNativeTuplesErrors(t *testing.T) {
	const search = `
def walk(x):
    s = 0
    for a, b in P[x % len(P)]:
        s += a * b + x
    return s
`
	for _, src := range []string{
		"P = [[(1, 2), (3, 4)], [(5, 6)]]" + search + "r = [walk(x) for x in range(50)]\nP[1][0] = (1, 2, 3)\nresult = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4)], [(5, 6)]]" + search + "r = [walk(x) for x in range(50)]\nP[1][0] = (1,)\nresult = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4)], [(5, 6)]]" + search + "r = [walk(x) for x in range(50)]\nP[0].append(7)\nresult = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4, 0)], [(5, 6)]]" + search + "result = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4)], [(-1, 6)]]" + search + "result = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4)], [(-1, (1 << 64) - 1)]]" + search + "result = [walk(x) for x in range(50)]\n",
		"P = [[(1, 2), (3, 4)], [(-(1 << 63), 0), ((1 << 63) - 1, 1)]]" + search + "result = [walk(x) for x in range(50)]\n",
	} {
		got, _ := runNative(t, src, true)
		want, _ := runNative(t, src, false)
		if got != want {
			t.Errorf("%s\ngot %s with code, %s interpreted", src, got, want)
		}
		if strings.Contains(src, "(1, 2, 3)") && !strings.Contains(want, "unpack") {
			t.Errorf("%s\ngave %s; want the interpreter's error on unpacking", src, want)
		}
	}
}

// randomTupleFunc writes random global tables (P: a list of rows of
// k-tuples, some rows empty; D: a tuple of k-tuples; F: a flat list),
// their ints small and signed, at times at the ends of what a table holds
// (-2^63, 2^63 - 1, 2^64 - 1), and a plain function f(x, y) that loops
// over them unpacking their tuples, compares, adds and reads their ints,
// and returns a word.
func randomTupleFunc(r *rand.Rand) string {
	var b strings.Builder
	k := 2 + r.IntN(2)
	val := func() string {
		switch r.IntN(24) {
		case 0:
			return "-(1 << 63)"
		case 1:
			return "(1 << 63) - 1"
		case 2:
			if r.IntN(3) == 0 {
				return "(1 << 64) - 1"
			}
		}
		return fmt.Sprint(r.IntN(30) - 9)
	}
	tuple := func() string {
		var vs []string
		for range k {
			vs = append(vs, val())
		}
		return "(" + strings.Join(vs, ", ") + ")"
	}
	b.WriteString("P = [")
	for i := range 1 + r.IntN(4) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("[")
		for j := range r.IntN(4) {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(tuple())
		}
		b.WriteString("]")
	}
	b.WriteString("]\nD = (")
	for range 1 + r.IntN(4) {
		b.WriteString(tuple() + ", ")
	}
	b.WriteString(")\nF = [")
	for range 1 + r.IntN(5) {
		b.WriteString(val() + ", ")
	}
	b.WriteString("]\n\ndef f(x, y):\n    s = 0\n")
	names := func(depth int) (string, []string) {
		var ns []string
		for m := range k {
			ns = append(ns, fmt.Sprintf("%c%d", 'a'+m, depth))
		}
		return strings.Join(ns, ", "), ns
	}
	var stmt func(ind string, depth int, vars []string)
	stmt = func(ind string, depth int, vars []string) {
		word := func() string {
			opts := []string{"x", "(y & 15)", "s", fmt.Sprint(r.IntN(9))}
			opts = append(opts, vars...)
			return opts[r.IntN(len(opts))]
		}
		switch c := r.IntN(10); {
		case c == 0 && depth < 2:
			list, ns := names(depth)
			fmt.Fprintf(&b, "%sfor %s in P[(x + %d) %% len(P)]:\n", ind, list, r.IntN(3))
			stmt(ind+"    ", depth+1, append(vars, ns...))
			stmt(ind+"    ", depth+1, append(vars, ns...))
		case c == 1 && depth < 2:
			list, ns := names(depth)
			fmt.Fprintf(&b, "%sfor %s in D:\n", ind, list)
			stmt(ind+"    ", depth+1, append(vars, ns...))
		case c == 2 && depth < 2:
			v := fmt.Sprintf("e%d", depth)
			fmt.Fprintf(&b, "%sfor %s in F:\n", ind, v)
			stmt(ind+"    ", depth+1, append(vars, v))
		case c == 3:
			fmt.Fprintf(&b, "%sif %s < %s:\n", ind, word(), word())
			stmt(ind+"    ", depth+1, vars)
		case c == 4:
			fmt.Fprintf(&b, "%sif %s == -1:\n%s    s += 1\n", ind, word(), ind)
		case c == 5:
			fmt.Fprintf(&b, "%ss = (s * 3 + (%s & 0xff)) & 0xffffffff\n", ind, word())
		case c == 6:
			fmt.Fprintf(&b, "%sif %s + %s >= 0:\n%s    s += %s + %s\n", ind, word(), word(), ind, word(), word())
		case c == 7:
			fmt.Fprintf(&b, "%ss += len(P[x %% len(P)]) + F[y %% len(F)] + D[x %% len(D)][%d]\n", ind, r.IntN(k))
		default:
			fmt.Fprintf(&b, "%ss += %s\n", ind, word())
		}
	}
	for n := 2 + r.IntN(4); n > 0; n-- {
		stmt("    ", 0, nil)
	}
	b.WriteString("    return s\n")
	return b.String()
}

// TestNativeRandomTuples: random plain functions over tables of tuples
// and of negative ints give, as code, the interpreter's result wherever
// the code gives one; where the interpreter fails or gives no word, the
// code gives the call back.
func TestNativeRandomTuples(t *testing.T) {
	needAMD64(t)
	n := 300
	if testscale.Short() {
		n = 80
	}
	coded, given, refused := 0, 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7091e5))
		src := randomTupleFunc(r)
		fn, thread := randomModule(t, src)
		nf, _, err := compileNative(thread, fn, nil, nil, nil, false)
		if err != nil {
			refused++
			continue
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatalf("%v\n%s", nf.pc.Err(), src)
		}
		for k := range 8 {
			in := rand.New(rand.NewPCG(seed, uint64(k)))
			args := ints(in.Uint64N(1<<uint(1+in.IntN(63))), in.Uint64())
			got, ok := nf.call(thread, args)
			want, perr := starlark.Call(thread, fn, args, nil)
			if !ok {
				given++
				continue
			}
			coded++
			if perr != nil {
				t.Fatalf("seed %d: f%v = %v as code; the interpreter fails: %v\n%s", seed, args, got, perr, src)
			}
			if got.String() != want.String() || got.Type() != want.Type() {
				t.Fatalf("seed %d: f%v = %v (%s) as code, %v (%s) interpreted\n%s", seed, args, got, got.Type(), want, want.Type(), src)
			}
		}
	}
	t.Logf("%d functions: %d calls as code, %d given back, %d functions refused", n, coded, given, refused)
	if coded < 2*n {
		t.Errorf("%d calls as code, %d given back, %d refused: the test tests little", coded, given, refused)
	}
}
