package builtins

import (
	"context"
	"math/big"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// nativeScript holds plain functions that compile exactly, as the
// benchmarks write them (bench/calls.star, bench/word_loop.star).
const nativeScript = `
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)

def find(seq, depth, vtx, nz, lock, path, k):
    if (lock >> vtx) & 1 or nz > 32:
        return 0
    if depth == 0:
        return 1
    lock = lock | (1 << vtx)
    if vtx == 31 and depth > 2:
        return find(seq | (1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k)
    if k > 0:
        if path & 1:
            return find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1)
        return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1)
    return (find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
            find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0))

def queens(full, cols, d1, d2):
    if cols == full:
        return 1
    n = 0
    free = full & ~(cols | d1 | d2)
    while free:
        bit = free & -free
        free ^= bit
        n += queens(full, cols | bit, ((d1 | bit) << 1) & full, (d2 | bit) >> 1 & full)
    return n

def loop(x, a, b, n):
    for _ in range(n):
        x = (x + a) ^ b
    return x

PRIMES = (2, 3, 5, 7, 11, 13)
STEP = 3

def weigh(x):
    return PRIMES[x % len(PRIMES)] * x + STEP

def total(n):
    s = 0
    for i in range(n):
        s += weigh(i)
    return s

def pow3(n):
    x = 1
    for _ in range(n):
        x = x * 3
    return x

def spin(x):
    while x:
        x = x | 1
    return x

LIST = [1, 2, 3]
SIGNED = (1, -2, 3)

def uses_signed(x):
    return SIGNED[x % 3]

FLAG = True
NEG = -1

def uses_list(x):
    return LIST[x % 3]

MIXED = [1, "a"]

def uses_mixed(x):
    return MIXED[0] + x

def uses_flag(x):
    return x if FLAG else 0

def uses_neg(x):
    return x + NEG

def gives_bool(x):
    return x > 3

WHITE = True
BLACK = False

def attacked(sq, occ, pawns):
    a = chess.pawn_attacks(sq, WHITE) & pawns
    white = (occ >> sq) & 1 == 1
    b = chess.pawn_attacks(sq, white) & occ
    if white == BLACK:
        return bool(a and b)
    return bool(a or b) == WHITE

def any_set(x, y):
    return bool(x or y)

def attacked_by(sq, turn, occ, pawns):
    white = turn == WHITE
    a = chess.pawn_attacks(sq, white) & pawns
    b = (occ >> sq) & 1
    return bool(a or b)

def pick(b, x):
    return b if x else not b

def side(turn, n):
    if turn:
        return n
    return chess.pawn_attacks(n, turn)

def adds_bool(b, x):
    return x + b

# No parameters: a loop over a global constant.
STEPS = 40

def no_params():
    s = 0
    for i in range(STEPS):
        s += i * 3
    return s

def mixed(x):
    if x:
        return x
    return False

def prints(x):
    print("%5d" % x)
    return x

def defaulted(x, y = 1):
    return x + y

def outer(x):
    def inner(y):
        return x + y
    return inner
closure = outer(3)
`

// nativeFixture runs nativeScript plainly (no machine code) and returns its
// globals and a thread whose Sources hold its text.
func nativeFixture(t testing.TB) (starlark.StringDict, *starlark.Thread) {
	t.Helper()
	thread := &starlark.Thread{Name: "native", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"native.star": nativeScript}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "native.star", nativeScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	return g, thread
}

func ints(xs ...any) starlark.Tuple {
	out := make(starlark.Tuple, len(xs))
	for i, x := range xs {
		switch x := x.(type) {
		case int:
			out[i] = starlark.MakeInt(x)
		case uint64:
			out[i] = starlark.MakeUint64(x)
		case string:
			b, _ := new(big.Int).SetString(x, 0)
			out[i] = starlark.MakeBigInt(b)
		}
	}
	return out
}

// TestNativeCallsAgree: plain functions compiled exactly give the
// interpreter's result wherever they give one, and give the call back to
// the interpreter where the ints leave the words or the arguments are not
// words.
func TestNativeCallsAgree(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine:", native.Ready(native.AMD64))
	}
	g, thread := nativeFixture(t)
	cases := []struct {
		fn    string
		args  starlark.Tuple
		coded bool // the code gives the result
	}{
		{"fib", ints(0), true},
		{"fib", ints(20), true},
		{"pow3", ints(40), true},
		{"pow3", ints(41), false}, // 3^41 > 2^64
		{"fib", ints(-3), false},  // negative argument: the interpreter
		{"find", ints(0, 58, 0, 6, 1<<32, 139, 12), true},
		{"find", ints(0, 20, 0, 6, 1<<32, 0, 0), true},
		{"queens", ints(uint64(0x3f)<<40, 0, 0, 0), true},
		{"queens", ints(uint64(0xff)<<56, 0, 0, 0), true}, // (d1 | bit) << 1 leaves the words; & full reads its low word
		{"loop", ints(1, 3, 0x55, 1000), true},
		{"loop", ints(uint64(1<<40)+12345, uint64(1<<41)+1, 0x5555555555555, 1000), true},
		{"loop", ints(uint64(1<<63), uint64(1<<63), 0, 3), false}, // x + a leaves the words
		{"total", ints(100), true},
		{"gives_bool", ints(5), true},
		{"gives_bool", ints(2), true},
		{"uses_flag", ints(7), true},
		{"any_set", ints(0, 0), true},
		{"any_set", ints(0, 4), true},
		{"attacked", ints(20, 0, 0), true},
		{"attacked", ints(20, 1<<20, 1<<27|1<<29), true},
		{"attacked", ints(20, 1<<20|1<<11, 0), true},
		{"attacked", ints(20, 1<<11, 1<<13), true},
		{"attacked", ints(70, 0, 0), false}, // not a square: the interpreter's error
		{"weigh", ints(1 << 62), false},     // 2^62 * 5 leaves the words
		{"no_params", ints(), true},
		{"uses_signed", ints(0), true},  // SIGNED, holding -2, is a table biased by 2
		{"uses_signed", ints(1), false}, // -2, no word: the interpreter
	}
	for _, c := range cases {
		fn := g[c.fn].(*starlark.Function)
		want, err := starlark.Call(thread, fn, c.args, nil)
		nf, cerr := compileWait(thread, fn)
		if cerr != nil {
			t.Fatalf("%s does not compile: %v", c.fn, cerr)
		}
		got, ok := nf.call(thread, c.args)
		if !ok {
			if c.coded {
				t.Errorf("%s%v: the code gave the call back; want %v", c.fn, c.args, want)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s%v = %v as code; the interpreter fails: %v", c.fn, c.args, got, err)
		}
		if eq, _ := starlark.Equal(got, want); !eq {
			t.Errorf("%s%v = %v as code, %v interpreted", c.fn, c.args, got, want)
		}
		if want.Type() != got.Type() {
			t.Errorf("%s%v: the interpreter gives a %s, the code a %s", c.fn, c.args, want.Type(), got.Type())
		}
		if !c.coded {
			t.Errorf("%s%v = %v as code; want the interpreter", c.fn, c.args, got)
		}
	}
	// Not words: a bool, a big int, a string; too few or too many.
	fn := g["loop"].(*starlark.Function)
	nf, _ := compileWait(thread, fn)
	for _, args := range []starlark.Tuple{
		{starlark.True, starlark.MakeInt(1), starlark.MakeInt(1), starlark.MakeInt(1)},
		ints("0x10000000000000000", 1, 1, 1),
		{starlark.String("x"), starlark.MakeInt(1), starlark.MakeInt(1), starlark.MakeInt(1)},
		ints(1, 2, 3),
		ints(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20),
	} {
		if v, ok := nf.call(thread, args); ok {
			t.Errorf("loop%v = %v as code; want the interpreter", args, v)
		}
	}
}

// TestNativeBoolParams: a function compiled at a call passing bools takes
// them as words 1 and 0, and gives the interpreter's result, of its type,
// or gives the call back to it (an int where it took a bool, a bool where
// it took an int, the interpreter's error); one that adds a bool to an int
// is not compiled.
func TestNativeBoolParams(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine:", native.Ready(native.AMD64))
	}
	g, thread := nativeFixture(t)
	T, F := starlark.True, starlark.False
	i := func(x int) starlark.Value { return starlark.MakeInt(x) }
	for _, c := range []struct {
		fn    string
		first starlark.Tuple   // the call that compiles it
		calls []starlark.Tuple // then these, the first among them
		coded []bool
	}{
		{"attacked_by", starlark.Tuple{i(20), T, i(0), i(0)},
			[]starlark.Tuple{{i(20), T, i(0), i(0)}, {i(20), T, i(0), i(1 << 27)}, {i(20), F, i(0), i(1 << 11)}, {i(20), F, i(1 << 20), i(0)},
				{i(20), i(1), i(0), i(0)}, {i(70), T, i(0), i(0)}},
			[]bool{true, true, true, true, false, false}},
		{"pick", starlark.Tuple{T, i(1)},
			[]starlark.Tuple{{T, i(1)}, {F, i(1)}, {T, i(0)}, {F, i(0)}, {i(1), i(0)}},
			[]bool{true, true, true, true, false}},
		{"side", starlark.Tuple{F, i(9)},
			[]starlark.Tuple{{T, i(9)}, {F, i(9)}, {F, i(64)}, {i(0), i(9)}},
			[]bool{true, true, false, false}},
		{"uses_flag", starlark.Tuple{i(3)},
			[]starlark.Tuple{{i(3)}, {T}},
			[]bool{true, false}},
	} {
		fn := g[c.fn].(*starlark.Function)
		nf, _, err := compileNative(thread, fn, c.first, nil, nil, false)
		if err != nil {
			t.Fatalf("%s does not compile: %v", c.fn, err)
		}
		if <-nf.pc.Ready(); nf.pc.Err() != nil {
			t.Fatal(nf.pc.Err())
		}
		for k, args := range c.calls {
			want, werr := starlark.Call(thread, fn, args, nil)
			got, ok := nf.call(thread, args)
			if ok != c.coded[k] {
				t.Errorf("%s%v: run as code %v, want %v (the interpreter: %v, %v)", c.fn, args, ok, c.coded[k], want, werr)
				continue
			}
			if !ok {
				continue
			}
			if werr != nil {
				t.Fatalf("%s%v = %v as code; the interpreter fails: %v", c.fn, args, got, werr)
			}
			if eq, _ := starlark.Equal(got, want); !eq || got.Type() != want.Type() {
				t.Errorf("%s%v = %v (%s) as code, %v (%s) interpreted", c.fn, args, got, got.Type(), want, want.Type())
			}
		}
	}
	if _, _, err := compileNative(thread, g["adds_bool"].(*starlark.Function), starlark.Tuple{T, i(1)}, nil, nil, false); err == nil || !strings.Contains(err.Error(), "bool") {
		t.Errorf("adds_bool(True, 1): got %v, want a refusal saying it uses a bool as an int", err)
	}
}

// TestNativeRefused: functions whose meaning as words is not Starlark's, or
// whose free values may change, are not compiled.
func TestNativeRefused(t *testing.T) {
	g, thread := nativeFixture(t)
	for name, why := range map[string]string{
		"uses_mixed": "MIXED is a list of other values",
		"uses_neg":   "NEG is a negative int",
		"mixed":      "a bool on some paths and an int on others",
		"prints":     "the conversion %5 is not run as machine code",
		"defaulted":  "its parameter y has a default value",
		"closure":    "it reads x, a variable of the function that defines it",
	} {
		fn := g[name].(*starlark.Function)
		if _, err := compileWait(thread, fn); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: got %v, want a refusal saying %q", name, err, why)
		}
		if call := nativeHook(thread, fn, nil); call != nil {
			t.Errorf("the hook gives %s code", name)
		}
	}
}

// TestNativeCallCancel: a call looping forever as code stops when the run
// is cancelled, and gives the call back to the interpreter.
func TestNativeCallCancel(t *testing.T) {
	needAMD64(t)
	g, _ := nativeFixture(t)
	ctx, cancel := context.WithCancel(context.Background())
	thread := &starlark.Thread{Name: "spin"}
	SetEnv(thread, Env{Sources: testSources{"native.star": nativeScript}, Context: ctx})
	nf, err := compileWait(thread, g["spin"].(*starlark.Function))
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	if v, ok := nf.call(thread, ints(2)); ok {
		t.Fatalf("spin(2) = %v", v)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled call took %v", d)
	}
}

// TestNativeOff: a function whose calls mostly fail as code is given to the
// interpreter without trying.
func TestNativeOff(t *testing.T) {
	needAMD64(t)
	g, thread := nativeFixture(t)
	nf, err := compileWait(thread, g["weigh"].(*starlark.Function))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		nf.call(thread, ints(uint64(1<<62)+uint64(i)))
	}
	if !nf.off.Load() {
		t.Fatalf("after %d failures and %d runs the code is still tried", nf.fails.Load(), nf.runs.Load())
	}
	if _, ok := nf.call(thread, ints(1)); ok {
		t.Errorf("weigh(1) ran as code after the code was turned off")
	}
}

// TestNativeHookInstalled: SetEnv installs the hook unless Interpreted.
func TestNativeHookInstalled(t *testing.T) {
	needAMD64(t)
	thread := &starlark.Thread{}
	SetEnv(thread, Env{Sources: testSources{}})
	if thread.Local(nativeKey) == nil {
		t.Errorf("no hook")
	}
	SetEnv(thread, Env{Sources: testSources{}, Interpreted: true})
	if thread.Local(nativeKey) != nil {
		t.Errorf("a hook with Interpreted")
	}
}

// TestNativePerft: the word-style perft of examples/lib/perft_words.star
// (chess attack functions, a scratch move list passed to a helper,
// recursion) compiles exactly and counts Kiwipete's nodes as the
// interpreter does.
func TestNativePerft(t *testing.T) {
	needAMD64(t)
	b, err := os.ReadFile("../examples/lib/perft_words.star")
	if err != nil {
		t.Fatal(err)
	}
	src := string(b) + "\nkiwi = parse_fen(\"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\")\n"
	thread := &starlark.Thread{Name: "perft"}
	SetEnv(thread, Env{Sources: testSources{"perft.star": src}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "perft.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	fn := g["perft"].(*starlark.Function)
	nf, err := compileWait(thread, fn)
	if err != nil {
		t.Fatalf("perft does not compile: %v", err)
	}
	for depth := 1; depth <= 2; depth++ {
		var pos starlark.Tuple
		it := g["kiwi"].(*starlark.List)
		for i := 0; i < it.Len(); i++ {
			pos = append(pos, it.Index(i))
		}
		pos = append(pos, starlark.MakeInt(depth))
		want, err := starlark.Call(thread, fn, pos, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := nf.call(thread, pos)
		if !ok {
			t.Fatalf("perft(kiwipete, %d) was given back to the interpreter", depth)
		}
		if eq, _ := starlark.Equal(got, want); !eq {
			t.Errorf("perft(kiwipete, %d) = %v as code, %v interpreted", depth, got, want)
		}
	}
}

// BenchmarkNativeCall: one call of a small function as code (weigh: a
// table read, a multiply, an add), against the same call interpreted.
func BenchmarkNativeCall(b *testing.B) {
	if native.Ready(native.AMD64) != nil {
		b.Skip("no x86-64 code on this machine")
	}
	g, thread := nativeFixture(b)
	fn := g["weigh"].(*starlark.Function)
	args := ints(12345)
	b.Run("code", func(b *testing.B) {
		nf, err := compileWait(thread, fn)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, ok := nf.call(thread, args); !ok {
				b.Fatal("given back")
			}
		}
	})
	b.Run("interpreted", func(b *testing.B) {
		for b.Loop() {
			if _, err := starlark.Call(thread, fn, args, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNativeThroughTheFork: with SetEnv's hook, the fork runs a hot plain
// function as code (its calls take no steps), gives the interpreter's
// answers, and a run cancelled inside code stops.
func TestNativeThroughTheFork(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = nativeScript + `
r1 = fib(25)
r2 = queens(0x3f << 40, 0, 0, 0)
r3 = loop(1, 3, 0x55, 1000)
r4 = [pow3(n) for n in range(45)]
`
	run := func(interpreted bool) (starlark.StringDict, uint64) {
		thread := &starlark.Thread{Name: "fork"}
		SetEnv(thread, Env{Sources: testSources{"fork.star": src}, Context: context.Background(), Interpreted: interpreted, waitForCode: true})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "fork.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g, thread.ExecutionSteps()
	}
	code, codeSteps := run(false)
	plain, plainSteps := run(true)
	for _, name := range []string{"r1", "r2", "r3", "r4"} {
		if eq, err := starlark.Equal(code[name], plain[name]); err != nil || !eq {
			t.Errorf("%s = %v with code, %v interpreted", name, code[name], plain[name])
		}
	}
	// fib(25)'s 242785 calls are most of the interpreted steps; as code
	// (waited for: waitForCode) they take none.
	if codeSteps*4 > plainSteps {
		t.Errorf("%d steps with code, %d interpreted: the code did not run", codeSteps, plainSteps)
	}

	// A call with too many arguments is the interpreter's error.
	thread0 := &starlark.Thread{Name: "args"}
	SetEnv(thread0, Env{Sources: testSources{"args.star": nativeScript}, Context: context.Background()})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread0, "args.star", nativeScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := starlark.Call(thread0, g["loop"], ints(1, 3, 5, 10), nil); err != nil {
		t.Fatal(err)
	}
	_, err = starlark.Call(thread0, g["loop"], ints(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20), nil)
	if err == nil || !strings.Contains(err.Error(), "20 given") {
		t.Errorf("loop with 20 arguments: got %v, want the interpreter's error", err)
	}

	// spin(2) loops forever as code; cancelling the run stops it there, and
	// the interpreter, which runs the call again, stops at its next step.
	ctx, cancel := context.WithCancel(context.Background())
	thread := &starlark.Thread{Name: "spin"}
	SetEnv(thread, Env{Sources: testSources{"spin.star": nativeScript + "spin(2)\n"}, Context: ctx})
	time.AfterFunc(100*time.Millisecond, func() {
		cancel()
		thread.Cancel("cancelled")
	})
	_, err = starlark.ExecFileOptions(dialect.FileOptions(), thread, "spin.star", nativeScript+"spin(2)\n", Predeclared())
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("spin(2): got %v, want cancelled", err)
	}
}

// TestNativeParallel: one function's code called from several goroutines
// at once (go test -race).
func TestNativeParallel(t *testing.T) {
	needAMD64(t)
	g, thread := nativeFixture(t)
	nf, err := compileWait(thread, g["fib"].(*starlark.Function))
	if err != nil {
		t.Fatal(err)
	}
	want := make([]starlark.Value, 25)
	for n := range want {
		want[n], _ = starlark.Call(thread, g["fib"], ints(n), nil)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			th := &starlark.Thread{}
			for n := 0; n < 200; n++ {
				v, ok := nf.call(th, ints(n%25))
				if !ok {
					t.Errorf("fib(%d) given back", n%25)
					return
				}
				if eq, _ := starlark.Equal(v, want[n%25]); !eq {
					t.Errorf("fib(%d) = %v, want %v", n%25, v, want[n%25])
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkNativeCompile: compiling a plain function to code (what its
// first call, or its 1000th, pays once).
func BenchmarkNativeCompile(b *testing.B) {
	if native.Ready(native.AMD64) != nil {
		b.Skip("no x86-64 code on this machine")
	}
	g, thread := nativeFixture(b)
	for _, name := range []string{"fib", "find", "queens", "loop"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_, err := compileWait(thread, g[name].(*starlark.Function))
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// forkOffers reports whether the go.starlark.net built in has the native
// hook of bitsh's fork (third_party/starlark/README.bitsh.md, change 15):
// a function with a loop is offered to it at its first call.
func forkOffers() bool {
	offered := false
	thread := &starlark.Thread{}
	thread.SetLocal(nativeKey, func(*starlark.Thread, *starlark.Function, starlark.Tuple) func(*starlark.Thread, starlark.Tuple) (starlark.Value, bool) {
		offered = true
		return nil
	})
	const src = "def f(x):\n    for i in range(1):\n        x += i\n    return x\nf(1)\n"
	if _, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "probe.star", src, nil); err != nil {
		return false
	}
	return offered
}

// TestNativeMagic: the magic check of docs/fuse.md as a plain function
// (word arrays as tables, a scratch list, helpers, bools returned) runs as
// code and answers as the interpreter does.
func TestNativeMagic(t *testing.T) {
	needAMD64(t)
	const src = `
mask = chess.rook_mask(27)
occ = words(subsets(mask))
att = chess.rook_attacks(27, occ)
bits = popcount(mask)

def mix(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & U64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & U64
    return x ^ (x >> 31)

def candidate(i):
    return mix(3 * i) & mix(3 * i + 1) & mix(3 * i + 2)

def is_magic(i):
    m = candidate(i)
    if popcount(((mask * m) & U64) >> 56) < 6:
        return False
    seen = [0] * 4096
    for j in range(len(occ)):
        k = ((occ[j] * m) & U64) >> (64 - bits)
        if seen[k] == 0:
            seen[k] = att[j]
        elif seen[k] != att[j]:
            return False
    return True
`
	thread := &starlark.Thread{Name: "magic"}
	SetEnv(thread, Env{Sources: testSources{"magic.star": src}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "magic.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	fn := g["is_magic"].(*starlark.Function)
	nf, err := compileWait(thread, fn)
	if err != nil {
		t.Fatalf("is_magic does not compile: %v", err)
	}
	magics := 0
	for i := 0; i < 400; i++ {
		want, err := starlark.Call(thread, fn, ints(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := nf.call(thread, ints(i))
		if !ok {
			t.Fatalf("is_magic(%d) given back to the interpreter", i)
		}
		if got != want {
			t.Fatalf("is_magic(%d) = %v as code, %v interpreted", i, got, want)
		}
		if want == starlark.True {
			magics++
		}
	}
	// The first magic, found as code (about 10^6 candidates in), and the
	// candidate before it, checked by the interpreter.
	first := -1
	for i := 400; i < 1<<24 && first < 0; i++ {
		if v, ok := nf.call(thread, ints(i)); !ok {
			t.Fatalf("is_magic(%d) given back to the interpreter", i)
		} else if v == starlark.True {
			first = i
		}
	}
	if first < 0 {
		t.Fatalf("no magic among 2^24 candidates")
	}
	for _, i := range []int{first - 1, first} {
		want, err := starlark.Call(thread, fn, ints(i), nil)
		if err != nil {
			t.Fatal(err)
		}
		if want != starlark.Bool(i == first) {
			t.Errorf("is_magic(%d) interpreted = %v; as code the first magic is %d", i, want, first)
		}
	}
	t.Logf("%d magics among the first 400 candidates; the first magic is candidate %d", magics, first)
}

// compileWait compiles fn as the hook does and waits for its machine code.
func compileWait(thread *starlark.Thread, fn *starlark.Function) (*nativeFunc, error) {
	nf, _, err := compileNative(thread, fn, nil, nil, nil, false)
	if err != nil {
		return nil, err
	}
	<-nf.pc.Ready()
	if nf.pc.Err() != nil {
		return nil, nf.pc.Err()
	}
	return nf, nil
}

// listsScript holds plain functions that take lists, write them, return
// None or tuples, and read global lists.
const listsScript = `
pow2 = [1 << i for i in range(64)]

def isenberg(st, seq, depth, vtx, nz):
    if st[1] >= st[2]:
        return
    if (st[0] & pow2[vtx]) == 0 and nz <= 32:
        if depth == 0:
            st[1] += 1
        else:
            st[0] ^= pow2[vtx]
            if vtx == 31 and depth > 2:
                isenberg(st, seq | pow2[depth - 1], depth - 2, 62, nz + 1)
            else:
                isenberg(st, seq, depth - 1, (2 * vtx) & 63, nz + 1)
                isenberg(st, seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz)
            st[0] ^= pow2[vtx]

ROWS = [[1, 2], (3, 4, 5)]

def pick(i, j):
    return ROWS[i % 2][j % 2] + pow2[i % 64], i

def add_into(a, b):
    for i in range(len(a)):
        a[i] += b[i]

GRID = [[1, 2], [3, 4]]

def write_row(r):
    r[0] = 5
    return GRID[0][0] + GRID[1][1]

def upto(x):
    out = []
    for i in range(x % 7):
        out.append(i * i)
    for v in (x, 1):
        out.append(v)
    return out

def fill(out, n):
    for i in range(len(out)):
        out[i] = n + i
    return out

def churn(a):
    n = 0
    for x in range(len(a)):
        for k in range(16):
            n += a[x] ^ k
    return n

def nth(a, i):
    for _ in range(1):
        i += 1
    return a[i]

def touched(p, i):
    q = list(p)
    q[i] ^= q[i + 1]
    if q[10] == -1:
        q[10] = i
    return q

def en_passant(p, sq):
    if p[2] == -1:
        p[2] = sq
        return p[0] + p[1]
    if p[2] >= 0 and sq == 0:
        p[2] = -1
    return p[0] * p[1]

def sum_list(a):
    n = 0
    for x in range(len(a)):
        n += a[x]
    return n
`

// TestNativeLists: lists passed to a function run as code are read, and
// written back, as the interpreter does; global lists are read as tables
// while they hold what the code holds; None and tuples come back as such.
// Where the code cannot give the interpreter's answer (a frozen list it
// would write, one list passed twice, a changed global list, a list the
// code reads as a table passed to be written), the interpreter runs.
func TestNativeLists(t *testing.T) {
	needAMD64(t)
	thread := &starlark.Thread{Name: "lists", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"lists.star": listsScript}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "lists.star", listsScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	list := func(xs ...uint64) *starlark.List {
		var vs []starlark.Value
		for _, x := range xs {
			vs = append(vs, starlark.MakeUint64(x))
		}
		return starlark.NewList(vs)
	}
	// compiled returns fn's code, compiled for args as the hook compiles it.
	compiled := func(name string, args starlark.Tuple) *nativeFunc {
		nf, _, err := compileNative(thread, g[name].(*starlark.Function), args, nil, nil, false)
		if err != nil {
			t.Fatalf("%s does not compile: %v", name, err)
		}
		<-nf.pc.Ready()
		if nf.pc.Err() != nil {
			t.Fatal(nf.pc.Err())
		}
		return nf
	}
	// agree runs fn as code on args and interpreted on a copy of them, and
	// compares results and lists.
	agree := func(name string, nf *nativeFunc, args func() starlark.Tuple) {
		t.Helper()
		codeArgs, plainArgs := args(), args()
		got, ok := nf.call(thread, codeArgs)
		if !ok {
			t.Fatalf("%s%v: the code gave the call back", name, plainArgs)
		}
		want, err := starlark.Call(thread, g[name], plainArgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() || got.Type() != want.Type() {
			t.Errorf("%s = %v (%s) as code, %v (%s) interpreted", name, got, got.Type(), want, want.Type())
		}
		if codeArgs.String() != plainArgs.String() {
			t.Errorf("%s leaves %v as code, %v interpreted", name, codeArgs, plainArgs)
		}
	}

	st := func() starlark.Tuple {
		return starlark.Tuple{list(1<<32, 0, 2000), ints(0)[0], ints(58)[0], ints(0)[0], ints(6)[0]}
	}
	isenberg := compiled("isenberg", st())
	agree("isenberg", isenberg, st)
	if isenberg.pc.Written == nil || !isenberg.pc.Written[0] {
		t.Errorf("isenberg's list is not known as written: %v", isenberg.pc.Written)
	}
	pick := compiled("pick", ints(3, 1))
	agree("pick", pick, func() starlark.Tuple { return ints(3, 1) })
	add := func() starlark.Tuple { return starlark.Tuple{list(1, 2, 1<<63), list(5, 6, 7)} }
	addInto := compiled("add_into", add())
	agree("add_into", addInto, add)
	// A list holding a sentinel (-1), as a position's en-passant square:
	// read where it is a word, written, compared.
	neg := func(xs ...int64) *starlark.List {
		var vs []starlark.Value
		for _, x := range xs {
			vs = append(vs, starlark.MakeInt64(x))
		}
		return starlark.NewList(vs)
	}
	pos := func() starlark.Tuple { return starlark.Tuple{neg(5, 9, -1), ints(1)[0]} }
	ep := compiled("en_passant", pos())
	agree("en_passant", ep, pos)
	agree("en_passant", ep, func() starlark.Tuple { return starlark.Tuple{neg(5, 9, 12), ints(3)[0]} })
	agree("en_passant", ep, func() starlark.Tuple { return starlark.Tuple{neg(5, 9, -1), ints(0)[0]} })
	// A negative element added to (-1 + 9) runs as code: the sum is a word.
	agree("en_passant", ep, func() starlark.Tuple { return starlark.Tuple{neg(-1, 9, -1), ints(1)[0]} })
	// A function that returns the list it was given returns that list.
	fill := compiled("fill", starlark.Tuple{list(0, 0, 0), ints(5)[0]})
	agree("fill", fill, func() starlark.Tuple { return starlark.Tuple{list(0, 0, 0), ints(5)[0]} })
	given := starlark.Tuple{list(1, 2, 3), ints(7)[0]}
	if got, ok := fill.call(thread, given); !ok || got != given[0] {
		t.Errorf("fill returned %v (as code %v), not the list it was given", got, ok)
	}
	upto := compiled("upto", ints(5))
	for _, x := range []int{0, 5, 6, 13} {
		agree("upto", upto, func() starlark.Tuple { return ints(x) })
	}
	sum := compiled("sum_list", starlark.Tuple{list(1, 2, 3)})
	agree("sum_list", sum, func() starlark.Tuple { return starlark.Tuple{list(1, 2, 3)} })

	gaveBack := func(what string, nf *nativeFunc, args starlark.Tuple) {
		t.Helper()
		before := args.String()
		if v, ok := nf.call(thread, args); ok {
			t.Errorf("%s: %v as code; want the interpreter", what, v)
		}
		if args.String() != before {
			t.Errorf("%s: the code changed its arguments to %v", what, args)
		}
	}
	gaveBack("a sum leaving the words", addInto, starlark.Tuple{list(1<<63, 2, 3), list(1<<63, 6, 7)})
	frozen := list(1, 2, 3)
	frozen.Freeze()
	gaveBack("a frozen list to write", addInto, starlark.Tuple{frozen, list(1, 1, 1)})
	if _, ok := sum.call(thread, starlark.Tuple{frozen}); !ok {
		t.Errorf("sum_list of a frozen list, which it only reads, gave the call back")
	}
	same := list(1, 2, 3)
	gaveBack("one list passed twice", addInto, starlark.Tuple{same, same})
	gaveBack("a list of another length", addInto, starlark.Tuple{list(1, 2), list(1, 2)})
	gaveBack("a list holding an int below its bias", ep, starlark.Tuple{neg(5, 9, -2), ints(1)[0]})
	gaveBack("a negative element read", ep, starlark.Tuple{neg(-1, 9, 5), ints(1)[0]})
	gaveBack("a negative sum", ep, starlark.Tuple{neg(-1, 0, -1), ints(1)[0]})
	gaveBack("a list holding a negative int", sum, starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.MakeInt(-2), starlark.MakeInt(3)})})
	gaveBack("a table passed as a list to write", isenberg, starlark.Tuple{g["pow2"], ints(0)[0], ints(5)[0], ints(0)[0], ints(6)[0]})
	inner := compiled("write_row", starlark.Tuple{list(0, 0)})
	agree("write_row", inner, func() starlark.Tuple { return starlark.Tuple{list(0, 0)} })

}

// TestNativeListsThroughTheFork: Isenberg's generator, whose count lives in
// a list, counts the same with code as interpreted, with most of its calls
// run as code; a function reading a global list reads it as it is when
// the list changes (the module's globals are frozen only at its end).
func TestNativeListsThroughTheFork(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	const src = listsScript + `
st = [1 << 32, 0, 20000]
isenberg(st, 0, 58, 0, 6)
s2 = [1 << 32, 0, 20000]
isenberg(s2, 1, 30, 0, 6)
T = [1, 2, 3]
def get(i):
    return T[i % 3] + ROWS[1][i % 3]
a = [get(i) for i in range(3000)]
T[0] = 10
ROWS[1] = [7, 8, 9]
b = [get(i) for i in range(3000)]
def write_row2(r, n):
    s = 0
    for i in range(n):
        r[0] = 5 + i
        s += GRID[0][0]
    r[0] = 1
    return s
c = [write_row2(GRID[0], 3) for _ in range(2000)]
`
	run := func(interpreted bool) (starlark.StringDict, uint64) {
		thread := &starlark.Thread{Name: "fork"}
		SetEnv(thread, Env{Sources: testSources{"fork.star": src}, Context: context.Background(), Interpreted: interpreted, waitForCode: true})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "fork.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g, thread.ExecutionSteps()
	}
	code, codeSteps := run(false)
	plain, plainSteps := run(true)
	for _, name := range []string{"st", "s2", "a", "b", "c"} {
		if eq, err := starlark.Equal(code[name], plain[name]); err != nil || !eq {
			t.Errorf("%s = %v with code, %v interpreted", name, code[name], plain[name])
		}
	}
	if codeSteps*4 > plainSteps {
		t.Errorf("%d steps with code, %d interpreted: the code did not run", codeSteps, plainSteps)
	}
}

// TestNativeSentinel: bench/magic_check.star's search, whose stamps start
// at the sentinel -1 ([-1] * 4096), runs as code and answers as the
// interpreter does (its tables passed as tuples, its two results as one
// int); a function that returns a sentinel, an int that is no word, gives
// the call back to the interpreter.
func TestNativeSentinel(t *testing.T) {
	needAMD64(t)
	const src = `
M = (1 << 64) - 1
SQ = 0
BITS = 12
SHIFT = 64 - BITS

mask = chess.rook_mask(SQ)
occs = []
occ = 0
for _ in range(1 << BITS):
    occs.append(occ)
    occ = (occ - mask) & mask
occs = tuple(occs)
atts = tuple([chess.rook_attacks(SQ, o) for o in occs])

def search(n, seed):
    s = seed
    stamp = [-1] * (1 << BITS)
    val = [0] * (1 << BITS)
    steps = 0
    found = 0
    for t in range(n):
        m = M
        for _ in range(3):
            s ^= (s << 13) & M
            s ^= s >> 7
            s ^= (s << 17) & M
            m &= s
        ok = True
        for i in range(len(occs)):
            idx = ((occs[i] * m) & M) >> SHIFT
            if stamp[idx] != t:
                stamp[idx] = t
                val[idx] = atts[i]
            elif val[idx] != atts[i]:
                ok = False
                steps += i + 1
                break
        if ok:
            steps += len(occs)
            found += 1
    return steps * 1000000 + found

def last_seen(n, k):
    seen = [-1] * 64
    for t in range(n):
        seen[(t * 7) & 63] = t
    return seen[k & 63]
`
	thread := &starlark.Thread{Name: "sentinel"}
	SetEnv(thread, Env{Sources: testSources{"sentinel.star": src}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "sentinel.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		fn    string
		args  starlark.Tuple
		coded bool
	}{
		{"search", ints(40, uint64(0x9E3779B97F4A7C15)), true},
		{"search", ints(25, 12345), true},
		{"last_seen", ints(100, 7), true},
		{"last_seen", ints(3, 5), false}, // seen[5] is -1
	} {
		fn := g[c.fn].(*starlark.Function)
		nf, err := compileWait(thread, fn)
		if err != nil {
			t.Fatalf("%s does not compile: %v", c.fn, err)
		}
		want, err := starlark.Call(thread, fn, c.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := nf.call(thread, c.args)
		t.Logf("%s%v = %v (as code: %v)", c.fn, c.args, want, ok)
		switch {
		case ok != c.coded:
			t.Errorf("%s%v: ran as code %v, want %v (the interpreter gives %v)", c.fn, c.args, ok, c.coded, want)
		case ok:
			if eq, _ := starlark.Equal(got, want); !eq {
				t.Errorf("%s%v = %v as code, %v interpreted", c.fn, c.args, got, want)
			}
		}
	}
}

// TestNativeListPerft: the list-style perft of bench/perft.star (a
// position in a list holding -1 for no en-passant square, copied with
// list(p) and returned by make, read by attacked; moves in a list built
// by append, pawns stepping by 8 or -8) counts the same nodes with perft
// run as code as interpreted, from positions with and without an
// en-passant square.
func TestNativeListPerft(t *testing.T) {
	needAMD64(t)
	starlarkfork.Require(t, "the native hook", forkOffers())
	b, err := os.ReadFile("../bench/perft.star")
	if err != nil {
		t.Fatal(err)
	}
	defs, _, ok := strings.Cut(string(b), "\nSTART = ")
	if !ok {
		t.Fatal("bench/perft.star has no START")
	}
	src := defs + `
kiwi = perft(parse_fen("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"), 2)
start = perft(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"), 3)
ep = perft(parse_fen("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"), 3)
`
	var mu sync.Mutex
	coded := map[string]bool{}
	run := func(interpreted bool) starlark.StringDict {
		thread := &starlark.Thread{Name: "perft"}
		SetEnv(thread, Env{Sources: testSources{"perft.star": src}, Context: context.Background(), Interpreted: interpreted,
			NativeReport: func(fn *starlark.Function, err error) {
				mu.Lock()
				defer mu.Unlock()
				coded[fn.Name()] = err == nil
			}})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "perft.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	code := run(false)
	plain := run(true)
	for _, name := range []string{"kiwi", "start", "ep"} {
		if eq, err := starlark.Equal(code[name], plain[name]); err != nil || !eq {
			t.Errorf("%s = %v with code, %v interpreted", name, code[name], plain[name])
		}
	}
	if s := plain["start"].String(); s != "8902" {
		t.Errorf("perft(start, 3) = %s, want 8902", s)
	}
	// The report of a function whose code was not ready at once comes
	// from the goroutine that generates it.
	for _, name := range []string{"perft"} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			mu.Lock()
			ok, said := coded[name]
			mu.Unlock()
			if said || time.Now().After(deadline) {
				if !ok {
					t.Errorf("%s does not run as code", name)
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// BenchmarkNativeListCall: a call with a list of 11 words (a position, as
// bench/perft.star passes it) and a new list returned, as code and
// interpreted.
func BenchmarkNativeListCall(b *testing.B) {
	if native.Ready(native.AMD64) != nil {
		b.Skip("no x86-64 code on this machine")
	}
	thread := &starlark.Thread{Name: "lists", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"lists.star": listsScript}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "lists.star", listsScript, Predeclared())
	if err != nil {
		b.Fatal(err)
	}
	var elems []starlark.Value
	for i := range 10 {
		elems = append(elems, starlark.MakeUint64(uint64(0x8100000000000000)>>i))
	}
	args := starlark.Tuple{starlark.NewList(append(elems, starlark.MakeInt(-1))), starlark.MakeInt(3)}
	fn := g["touched"].(*starlark.Function)
	b.Run("code", func(b *testing.B) {
		nf, _, err := compileNative(thread, fn, args, nil, nil, false)
		if err != nil {
			b.Fatal(err)
		}
		<-nf.pc.Ready()
		for b.Loop() {
			if _, ok := nf.call(thread, args); !ok {
				b.Fatal("given back")
			}
		}
	})
	b.Run("interpreted", func(b *testing.B) {
		for b.Loop() {
			if _, err := starlark.Call(thread, fn, args, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestNativeListWaste: a function that reads one element of a long list
// is left to the interpreter after a few calls, where converting the list
// costs far more than its code; one that works on every element is not
// (with a margin for -race, whose Go code is slower and machine code not).
func TestNativeListWaste(t *testing.T) {
	needAMD64(t)
	thread := &starlark.Thread{Name: "waste", Print: func(*starlark.Thread, string) {}}
	SetEnv(thread, Env{Sources: testSources{"lists.star": listsScript}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "lists.star", listsScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	var elems []starlark.Value
	for i := range 20000 {
		elems = append(elems, starlark.MakeInt(i))
	}
	args := func(fn string) starlark.Tuple {
		if fn == "churn" {
			return starlark.Tuple{starlark.NewList(elems)}
		}
		return starlark.Tuple{starlark.NewList(elems), starlark.MakeInt(7)}
	}
	for fn, off := range map[string]bool{"nth": true, "churn": false} {
		a := args(fn)
		nf, _, err := compileNative(thread, g[fn].(*starlark.Function), a, nil, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		<-nf.pc.Ready()
		want, err := starlark.Call(thread, g[fn], a, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 20 {
			if got, ok := nf.call(thread, a); ok && got.String() != want.String() {
				t.Fatalf("%s = %v as code, %v interpreted", fn, got, want)
			}
		}
		if nf.off.Load() != off {
			t.Errorf("%s: off = %v after %d wasted and %d paid calls; want %v", fn, nf.off.Load(), nf.wasted.Load(), nf.paid.Load(), off)
		}
	}
}

// TestNativeMemoryBudget: a function whose worker memory (outside Go's
// heap) the memory budget has no room for stays interpreted, with the
// interpreter's answer; with room, it runs as code.
func TestNativeMemoryBudget(t *testing.T) {
	needAMD64(t)
	// Each call of big holds a list of 4096 ints; its code reserves frames
	// for calls 10000 deep at most (tens of MiB), where the interpreter
	// runs 3.
	const src = `
def big(x, d):
    a = [0] * 4096
    for i in range(100):
        a[(x * i) % len(a)] += i
    if d == 0:
        return a[x % len(a)]
    return big(x + 1, d - 1) + a[x % len(a)]
`
	for _, c := range []struct {
		room  int64
		coded bool
	}{{8 << 20, false}, {1 << 30, true}} {
		thread := &starlark.Thread{Name: "budget"}
		SetEnv(thread, Env{Sources: testSources{"budget.star": src}, Context: context.Background(), Interpreted: true,
			MaxMemory: memory.HeapBytes() + c.room})
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "budget.star", src, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		nf, err := compileWait(thread, g["big"].(*starlark.Function))
		if err != nil {
			t.Fatal(err)
		}
		want, err := starlark.Call(thread, g["big"], ints(3, 3), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := nf.call(thread, ints(3, 3))
		if ok != c.coded {
			t.Errorf("room %d: ran as code %v, want %v", c.room, ok, c.coded)
		}
		if ok && got.String() != want.String() {
			t.Errorf("big(3, 3) = %v as code, %v interpreted", got, want)
		}
	}
}

// tableScript reads a global list of 2^20 words as a table in a loop.
const tableScript = `
T = list(range(1 << 20))

def look(x):
    s = 0
    for i in range(x):
        s += T[(i * 7919) % len(T)]
    return s
`

// TestNativeTableBudget: a global list read as a table is copied (by the
// binding, then by the compiler) only where the memory budget has room for
// the copies, checked before copying; otherwise the function stays
// interpreted, with the interpreter's answer. fuse refuses it with the
// budget's error. A cancelled run stops the copy.
func TestNativeTableBudget(t *testing.T) {
	needAMD64(t)
	for _, c := range []struct {
		room  int64
		coded bool
	}{{4 << 20, false}, {1 << 30, true}} {
		thread := &starlark.Thread{Name: "table"}
		env := Env{Sources: testSources{"table.star": tableScript}, Context: context.Background(), Interpreted: true}
		SetEnv(thread, env)
		g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "table.star", tableScript, Predeclared())
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC() // the live heap, which the check reads, holds the list
		env.MaxMemory = memory.InUse() + c.room
		SetEnv(thread, env)
		look := g["look"].(*starlark.Function)
		nf, err := compileWait(thread, look)
		if (err == nil) != c.coded {
			t.Fatalf("room %d: compiled: %v; want coded %v", c.room, err, c.coded)
		}
		if err != nil && !strings.Contains(err.Error(), "memory budget has no room") {
			t.Errorf("room %d: %v; want the budget's refusal", c.room, err)
		}
		want, err := starlark.Call(thread, look, ints(1000), nil)
		if err != nil {
			t.Fatal(err)
		}
		if nf != nil {
			got, ok := nf.call(thread, ints(1000))
			if !ok || got.String() != want.String() {
				t.Errorf("look(1000) = %v, %v as code; %v interpreted", got, ok, want)
			}
		}
		_, err = starlark.Call(thread, Predeclared()["fuse"], starlark.Tuple{look}, nil)
		if c.coded != (err == nil) || err != nil && !strings.Contains(err.Error(), "a table copied from a list: memory limit") {
			t.Errorf("room %d: fuse(look): %v; want coded %v", c.room, err, c.coded)
		}
	}

	thread := &starlark.Thread{Name: "table"}
	env := Env{Sources: testSources{"table.star": tableScript}, Context: context.Background(), Interpreted: true}
	SetEnv(thread, env)
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "table.star", tableScript, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	env.Context = ctx
	SetEnv(thread, env)
	if _, err := compileWait(thread, g["look"].(*starlark.Function)); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("compiling in a cancelled run: %v; want the copy stopped", err)
	}
}

// TestNativeMappingsLimited: past the limit of memory mappings held for
// machine code (lowered here rather than making the kernel's 65,530), a
// plain function stays interpreted and a fused value runs on the
// evaluator, both with the interpreter's answers.
func TestNativeMappingsLimited(t *testing.T) {
	needAMD64(t)
	const src = `
def f0(x):
    t = 0
    for i in range(x):
        t += i ^ 5
    return t

def f1(x):
    t = 0
    for i in range(x):
        t += i ^ 9
    return t
`
	thread := &starlark.Thread{Name: "maps"}
	SetEnv(thread, Env{Sources: testSources{"maps.star": src}, Context: context.Background(), Interpreted: true})
	g, err := starlark.ExecFileOptions(dialect.FileOptions(), thread, "maps.star", src, Predeclared())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		runtime.GC() // earlier tests' code given back
		time.Sleep(5 * time.Millisecond)
	}
	defer native.LimitMappings(native.Mappings() + 1)()
	var nfs []*nativeFunc
	for i, name := range []string{"f0", "f1"} {
		fn := g[name].(*starlark.Function)
		nf, err := compileWait(thread, fn)
		if (err == nil) != (i == 0) {
			t.Fatalf("%s with %d mappings held: %v; want code for f0 only (the limit is one more than held before)", name, native.Mappings(), err)
		}
		want, err := starlark.Call(thread, fn, ints(100), nil)
		if err != nil {
			t.Fatal(err)
		}
		if nf != nil {
			nfs = append(nfs, nf)
			got, ok := nf.call(thread, ints(100)) // its worker past the limit: on the heap
			if !ok || got.String() != want.String() {
				t.Errorf("%s(100) = %v, %v as code; %v interpreted", name, got, ok, want)
			}
		}
		v, err := starlark.Call(thread, Predeclared()["fuse"], starlark.Tuple{fn}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := starlark.Call(thread, v, ints(100), nil)
		if err != nil || got.String() != want.String() {
			t.Errorf("fuse(%s)(100) = %v, %v; want %v", name, got, err, want)
		}
	}
	runtime.KeepAlive(nfs)
}
