// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark

// A valueStack hands out the locals and operand stack of each Starlark
// call from chunks owned by the thread, last in first out, instead of one
// heap allocation per call. A call's space is cleared when it is given
// back, so it keeps nothing alive and the next call finds its locals nil.
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
		// Back to an earlier chunk: keep one spare chunk above it.
		for i := m.cur + 2; i < len(vs.chunks); i++ {
			vs.chunks[i] = nil
		}
		if m.cur+2 < len(vs.chunks) {
			vs.chunks = vs.chunks[:m.cur+2]
		}
	}
	vs.cur, vs.sp = m.cur, m.sp
}

// top returns the mark of the valueStack's top: releasing nil there
// changes nothing.
func (vs *valueStack) top() valueMark { return valueMark{vs.cur, vs.sp} }
