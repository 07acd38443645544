// bitsh fork: tests of the native loop hook (native_loop.go; README.bitsh.md).

package starlark

import (
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// loopOptions allow while loops and for loops at top level.
var loopOptions = &syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true}

// TestNativeLoop: a hot while loop and a hot for loop over a range of
// top-level code are offered once each, at a back edge, with the module's
// globals and the rest of the range; a form that finishes the loop
// (writing the globals as the loop would) has the interpreter go on after
// it, one that declines leaves the loop to the interpreter, with the same
// results; cold loops, loops over lists and a function's loops are not
// offered.
func TestNativeLoop(t *testing.T) {
	const src = `
n = 0
i = 0
while i < 5000:
    n += i
    i += 1
m = 0
for j in range(10, 40010, 4):
    m += j
cold = 0
for k in range(100):
    cold += k
s = 0
for v in [1] * 3000:
    s += v
after = n + m + s
def f():
    t = 0
    for q in range(3000):
        t += q
    return t
z = f()
`
	for _, finish := range []bool{false, true} {
		type offer struct {
			pos   syntax.Position
			rests []string
		}
		var offers []*offer
		thread := new(Thread)
		thread.SetLocal(nativeKey, func(*Thread, *Function, Tuple) func(*Thread, Tuple) (Value, bool) { return nil })
		thread.SetLocal(nativeLoopKey, func(_ *Thread, fn *Function, pos syntax.Position, names []string) func(*Thread, []Value, Tuple) (bool, int) {
			o := &offer{pos: pos}
			offers = append(offers, o)
			index := map[string]int{}
			for i, n := range names {
				index[n] = i
			}
			return func(_ *Thread, globals []Value, rest Tuple) (bool, int) {
				if rest == nil {
					o.rests = append(o.rests, "nil")
				} else {
					o.rests = append(o.rests, rest.String())
				}
				if !finish {
					return false, 500 // again 500 back edges later
				}
				if rest == nil { // the while loop
					n, _ := AsInt32(globals[index["n"]])
					for i, _ := AsInt32(globals[index["i"]]); i < 5000; i++ {
						n += i
					}
					globals[index["n"]], globals[index["i"]] = MakeInt(n), MakeInt(5000)
					return true, 0
				}
				start, _ := AsInt32(rest[0])
				stop, _ := AsInt32(rest[1])
				m, _ := AsInt32(globals[index["m"]])
				j := 0
				for j = start; j < stop; j += 4 {
					m += j
				}
				globals[index["m"]], globals[index["j"]] = MakeInt(m), MakeInt(j-4)
				return true, 0
			}
		})
		g, err := ExecFileOptions(loopOptions, thread, "loop.star", src, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := StringDict{"n": MakeInt(12497500), "i": MakeInt(5000), "m": MakeInt(200080000), "j": MakeInt(40006),
			"cold": MakeInt(4950), "k": MakeInt(99), "s": MakeInt(3000), "v": MakeInt(1), "z": MakeInt(4498500), "after": MakeInt(12497500 + 200080000 + 3000)}
		for name, v := range want {
			if eq, _ := Equal(g[name], v); !eq {
				t.Errorf("finish %v: %s = %v, want %v", finish, name, g[name], v)
			}
		}
		if len(offers) != 2 || offers[0].pos.Line != 4 || offers[1].pos.Line != 8 {
			t.Fatalf("finish %v: offers %+v, want the loops of lines 4 and 8", finish, offers)
		}
		// The 1000th back edge of the for loop leaves j = 3006 taken:
		// the rest starts at 4010 (the 1002nd element).
		// Declining, the form is called again every 500 back edges, up
		// to the last (the while loop's 5000th, whose condition is false).
		wantRests := [][]string{{"nil"}, {"(4010, 40010, 4)"}}
		if !finish {
			wantRests = [][]string{{"nil", "nil", "nil", "nil", "nil", "nil", "nil", "nil", "nil"},
				{"(4010, 40010, 4)", "(6010, 40010, 4)", "(8010, 40010, 4)"}}
		}
		for k, o := range offers {
			got := strings.Join(o.rests, " ")
			if want := strings.Join(wantRests[k], " "); !strings.HasPrefix(got, want) || k == 0 && got != want {
				t.Errorf("finish %v: loop %d tried with %s, want %s", finish, k, got, want)
			}
		}
	}
}

// TestNativeLoopOff: a form that says never again is not called again,
// and a thread with a step limit offers no loop.
func TestNativeLoopOff(t *testing.T) {
	const src = "i = 0\nwhile i < 5000:\n    i += 1\n"
	calls := 0
	hook := func(*Thread, *Function, syntax.Position, []string) func(*Thread, []Value, Tuple) (bool, int) {
		return func(*Thread, []Value, Tuple) (bool, int) { calls++; return false, -1 }
	}
	thread := new(Thread)
	thread.SetLocal(nativeKey, func(*Thread, *Function, Tuple) func(*Thread, Tuple) (Value, bool) { return nil })
	thread.SetLocal(nativeLoopKey, hook)
	if _, err := ExecFileOptions(loopOptions, thread, "off.star", src, nil); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("the form was called %d times, want 1", calls)
	}
	calls = 0
	thread = new(Thread)
	thread.SetLocal(nativeKey, func(*Thread, *Function, Tuple) func(*Thread, Tuple) (Value, bool) { return nil })
	thread.SetLocal(nativeLoopKey, hook)
	thread.SetMaxExecutionSteps(1 << 30)
	if _, err := ExecFileOptions(loopOptions, thread, "off.star", src, nil); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Errorf("with a step limit, the form was called %d times, want 0", calls)
	}
}
