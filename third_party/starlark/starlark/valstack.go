// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

// A valueStack hands out the locals and operand stack of each Starlark
// call from chunks owned by the thread, last in first out, instead of one
// heap allocation per call. A call's space is cleared when it is given
// back, so it keeps nothing alive and the next call finds its locals nil.
// A Starlark callee of the interpreter's loop may get a space that begins
// at its arguments on its caller's operand stack (allocOver), which the
// caller no longer reads: the arguments are bound without a copy.
//
// Nothing may keep a slice of a call's space after the call returns: the
// interpreter copies what it hands to other code (setArgs copies a Starlark
// callee's arguments into its locals; the arguments of other callables are
// cloned), and a frame's locals are cleared when it is popped.
type valueStack struct {
	chunks [][]Value // chunks[:cur+1] are in use, at most one more is kept
	cur    int       // index of the chunk in use (when chunks != nil)
	sp     int       // used length of chunks[cur]
}

// valueChunk is the size in Values of a chunk (64 KiB), unless a single
// call needs more.
const valueChunk = 4096

// A valueMark records a valueStack's top, to restore it with release.
type valueMark struct{ cur, sp int }

// alloc returns a cleared slice of n Values, and the mark to release it.
func (vs *valueStack) alloc(n int) ([]Value, valueMark) {
	m := valueMark{vs.cur, vs.sp}
	if vs.chunks != nil {
		if c := vs.chunks[vs.cur]; vs.sp+n <= len(c) {
			vs.sp += n
			return c[m.sp:vs.sp:vs.sp], m
		}
	}
	return vs.allocSlow(n, m)
}

// allocSlow is alloc's path to a new chunk, apart so that alloc inlines.
//
//go:noinline
func (vs *valueStack) allocSlow(n int, m valueMark) ([]Value, valueMark) {
	next := vs.cur + 1
	if vs.chunks == nil {
		next = 0
	}
	if next < len(vs.chunks) && len(vs.chunks[next]) < n {
		vs.chunks = vs.chunks[:next]
	}
	if next == len(vs.chunks) {
		vs.chunks = append(vs.chunks, make([]Value, max(n, valueChunk)))
	}
	vs.cur, vs.sp = next, n
	return vs.chunks[next][:n:n], m
}

// allocOver returns, for a call whose n positional arguments args lie at
// the end of the operand stack of the space on top of vs (the caller's,
// which the call no longer reads above args), a space of size values that
// begins at args[0], so that the arguments are its first locals without a
// copy; and the mark to release it, vs's top before, where the caller's
// space ends. The values after the arguments are not cleared: the caller
// clears those the callee reads as locals, and the callee writes its
// operand stack before it reads it. It reports false, and the caller uses
// alloc, when there is no argument, when args is not at the top of vs, or
// when the space would not fit in the top chunk.
func (vs *valueStack) allocOver(args []Value, size int) ([]Value, valueMark, bool) {
	c := vs.chunks[vs.cur]
	top := vs.sp
	start := top - cap(args) // args's capacity ends with the caller's space
	end := start + size
	if len(args) == 0 || uint(start) >= uint(end) || end > len(c) || &c[start] != &args[0] {
		return nil, valueMark{}, false
	}
	vs.sp = end
	return c[start:end:end], valueMark{vs.cur, top}, true
}

// release clears space, which alloc returned with mark m, and gives it back.
func (vs *valueStack) release(space []Value, m valueMark) {
	if len(space) <= 16 {
		// An element loop: clear calls memclrHasPointers, which costs
		// more for the few values of most calls.
		for i := 0; i < len(space); i++ {
			space[i] = nil
		}
	} else {
		clear(space)
	}
	if m.cur != vs.cur {
		vs.trim(m)
	}
	vs.cur, vs.sp = m.cur, m.sp
}

// trim keeps one spare chunk above m's when release goes back to an
// earlier chunk (apart so that release inlines).
//
//go:noinline
func (vs *valueStack) trim(m valueMark) {
	for i := m.cur + 2; i < len(vs.chunks); i++ {
		vs.chunks[i] = nil
	}
	if m.cur+2 < len(vs.chunks) {
		vs.chunks = vs.chunks[:m.cur+2]
	}
}

// top returns the mark of the valueStack's top: releasing nil there
// changes nothing.
func (vs *valueStack) top() valueMark { return valueMark{vs.cur, vs.sp} }
