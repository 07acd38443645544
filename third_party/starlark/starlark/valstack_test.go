// bitsh fork: tests of valstack.go (README.bitsh.md).

package starlark

import (
	"strings"
	"testing"

	"go.starlark.net/syntax"
)

// TestValueStackReuse checks that a call's space is cleared for the next
// call (a local read before assignment fails in every call), that deep
// recursion crosses chunks and comes back, and that the thread's stack is
// empty afterwards.
func TestValueStackReuse(t *testing.T) {
	const src = `
def f(n, first):
    if not first:
        return x  # assigned only in the first call's frame
    x = n
    return x

def deep(n):
    a, b, c, d, e = n, n + 1, n + 2, n + 3, n + 4
    if n == 0:
        return 0
    r = deep(n - 1)
    return r + (a + b + c + d + e) - 5 * n - 10 + 1

first = f(7, True)
`
	opts := &syntax.FileOptions{Recursion: true}
	thread := new(Thread)
	globals, err := ExecFileOptions(opts, thread, "vs.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := globals["first"].String(); got != "7" {
		t.Fatalf("f(7, True) = %s, want 7", got)
	}
	_, err = Call(thread, globals["f"], Tuple{MakeInt(1), False}, nil)
	if err == nil || !strings.Contains(err.Error(), "local variable x referenced before assignment") {
		t.Fatalf("f(1, False): got error %v, want x referenced before assignment", err)
	}
	for _, n := range []int{10, 3000, 20000, 5} {
		v, err := Call(thread, globals["deep"], Tuple{MakeInt(n)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.String(); got != MakeInt(n).String() {
			t.Fatalf("deep(%d) = %s", n, got)
		}
		if thread.values.cur != 0 || thread.values.sp != 0 {
			t.Fatalf("after deep(%d): value stack at chunk %d, %d values", n, thread.values.cur, thread.values.sp)
		}
		if len(thread.values.chunks) > 2 {
			t.Fatalf("after deep(%d): %d chunks kept, want at most 2", n, len(thread.values.chunks))
		}
		for _, c := range thread.values.chunks {
			for i, v := range c {
				if v != nil {
					t.Fatalf("after deep(%d): value %d of a chunk not cleared: %v", n, i, v)
				}
			}
		}
	}
}

// TestValueStackPanic checks that a panic in a builtin, recovered by the
// application, leaves the thread usable and its value stack empty.
func TestValueStackPanic(t *testing.T) {
	boom := NewBuiltin("boom", func(*Thread, *Builtin, Tuple, []Tuple) (Value, error) { panic("boom") })
	const src = `
def g(n):
    if n == 0:
        return boom()
    return g(n - 1)
def h(n):
    return n + 1
`
	opts := &syntax.FileOptions{Recursion: true}
	thread := new(Thread)
	globals, err := ExecFileOptions(opts, thread, "vs.star", src, StringDict{"boom": boom})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want boom", r)
			}
		}()
		Call(thread, globals["g"], Tuple{MakeInt(5000)}, nil)
	}()
	if thread.values.cur != 0 || thread.values.sp != 0 || len(thread.stack) != 0 || len(thread.inl) != 0 {
		t.Fatalf("after a panic: value stack at chunk %d, %d values, %d frames", thread.values.cur, thread.values.sp, len(thread.stack))
	}
	v, err := Call(thread, globals["h"], Tuple{MakeInt(1)}, nil)
	if err != nil || v.String() != "2" {
		t.Fatalf("h(1) after a panic = %v, %v", v, err)
	}
}

// TestInlineCallsPanic checks that a panic in a builtin called from calls
// the interpreter runs in its own loop ends their iterations (the lists
// they iterate accept appends again) and leaves no saved state, and that
// the room of a deep recursion is let go once the outermost call returns.
func TestInlineCallsPanic(t *testing.T) {
	boom := NewBuiltin("boom", func(*Thread, *Builtin, Tuple, []Tuple) (Value, error) { panic("boom") })
	const src = `
def g(xs, n):
    for x in xs:
        if n == 0:
            return boom()
        return g(xs, n - 1)
def deep(n):
    if n == 0:
        return 0
    return deep(n - 1) + 1
`
	opts := &syntax.FileOptions{Recursion: true}
	thread := new(Thread)
	xs := NewList([]Value{MakeInt(1), MakeInt(2), MakeInt(3)})
	globals, err := ExecFileOptions(opts, thread, "inl.star", src, StringDict{"boom": boom})
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want boom", r)
			}
		}()
		Call(thread, globals["g"], Tuple{xs, MakeInt(50)}, nil)
	}()
	if len(thread.inl) != 0 || len(thread.stack) != 0 {
		t.Fatalf("after a panic: %d saved states, %d frames", len(thread.inl), len(thread.stack))
	}
	if err := xs.Append(MakeInt(4)); err != nil {
		t.Fatalf("append after a panic: %v (the iterations of g not ended?)", err)
	}
	if v, err := Call(thread, globals["deep"], Tuple{MakeInt(5000)}, nil); err != nil || v.String() != "5000" {
		t.Fatalf("deep(5000) = %v, %v", v, err)
	}
	if cap(thread.inl) > maxKeptInline {
		t.Errorf("after deep(5000): room for %d saved states kept", cap(thread.inl))
	}
}

// TestAllocOver checks that a callee's space begins at its arguments when
// they end the operand stack on top of the value stack, and that allocOver
// declines when they do not, when there are none, and when the space would
// not fit in the chunk.
func TestAllocOver(t *testing.T) {
	var vs valueStack
	caller, m0 := vs.alloc(6)
	for i := range caller {
		caller[i] = MakeInt(i)
	}
	args := caller[3:5] // the operand stack's top, below the caller's end
	space, m, ok := vs.allocOver(args, 8)
	if !ok || &space[0] != &caller[3] || len(space) != 8 || space[1] != MakeInt(4) {
		t.Fatalf("allocOver(caller[3:5], 8) = %v, %v", space, ok)
	}
	if m != (valueMark{0, 6}) || vs.sp != 11 {
		t.Fatalf("mark %v, top %d; want {0 6}, 11", m, vs.sp)
	}
	// A call from the callee: the caller's arguments are no longer on top.
	if _, _, ok := vs.allocOver(args, 2); ok {
		t.Errorf("allocOver of arguments below the top succeeded")
	}
	if _, _, ok := vs.allocOver(space[8:], 2); ok {
		t.Errorf("allocOver of no arguments succeeded")
	}
	if _, _, ok := vs.allocOver(space[7:], valueChunk); ok {
		t.Errorf("allocOver past the chunk's end succeeded")
	}
	vs.release(space, m)
	if vs.sp != 6 || caller[3] != nil || caller[2] != MakeInt(2) {
		t.Fatalf("after release: top %d, caller %v", vs.sp, caller)
	}
	vs.release(caller, m0)
	if vs.sp != 0 || vs.cur != 0 {
		t.Fatalf("after releasing the caller: chunk %d, top %d", vs.cur, vs.sp)
	}
}
