// bitsh fork: this file is bitsh's addition to go.starlark.net (see
// ../README.bitsh.md): an optional check, before they allocate, of the operations that can double
// what a program holds in one step (s + s, l + l, l += l, l.extend(l),
// l * n), so that an application can refuse one that would not fit in its
// memory budget instead of running out of memory.

package starlark

import (
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/syntax"
)

// allocCheckKey is the thread-local key (Thread.SetLocal) of the
// allocation check: a value of type
//
//	func(thread *Thread, what string, bytes int64) error
//
// called before an operation allocates a result of about bytes bytes,
// where what names the operation ("list + list", "list.extend"). A non-nil
// error fails the operation with that error, before it allocates. Only
// results larger than allocCheckMin are checked. Without a check, or with
// a value of another type under the key, nothing changes.
const allocCheckKey = string(threadkey.AllocCheck)

// allocCheckMin is the least result size, in bytes, that is checked:
// smaller operations pay for a size computation only.
const allocCheckMin = 1 << 20

// valueBytes is the size of one element of a list or tuple.
const valueBytes = int64(unsafe.Sizeof(Value(nil)))

// checkAlloc calls the thread's allocation check, if any, for a result of
// n bytes (at least allocCheckMin); what names the operation, and is
// called only when there is a check.
func (thread *Thread) checkAlloc(n int64, what func() string) error {
	if thread == nil {
		return nil
	}
	check, ok := thread.Local(allocCheckKey).(func(*Thread, string, int64) error)
	if !ok {
		return nil
	}
	return check(thread, what(), n)
}

// bothInts reports whether x and y are both ints, whose sum or product
// needs no check: the interpreter's loop calls it first, inlined, so that
// integer arithmetic pays two type comparisons and no call.
func bothInts(x, y Value) bool {
	_, xi := x.(Int)
	_, yi := y.(Int)
	return xi && yi
}

// checkBinaryAlloc checks x op y, for op + or *, before Binary computes it.
func (thread *Thread) checkBinaryAlloc(op syntax.Token, x, y Value) error {
	n := binaryBytes(op, x, y)
	if n <= allocCheckMin {
		return nil
	}
	return thread.checkAlloc(n, func() string { return fmt.Sprintf("%s %s %s", x.Type(), op, y.Type()) })
}

// binaryBytes returns the size of the result of x + y, or of x * y, when
// it is a string, bytes, a list or a tuple (math.MaxInt64 for a repetition
// whose size overflows), else 0. One type switch decides for most
// operands.
func binaryBytes(op syntax.Token, x, y Value) int64 {
	switch x := x.(type) {
	case String:
		if op == syntax.STAR {
			return repeatBytes(int64(len(x)), 1, y)
		}
		if y, ok := y.(String); ok {
			return int64(len(x)) + int64(len(y))
		}
	case *List:
		if op == syntax.STAR {
			return repeatBytes(int64(x.Len()), valueBytes, y)
		}
		if y, ok := y.(*List); ok {
			return (int64(x.Len()) + int64(y.Len())) * valueBytes
		}
	case Tuple:
		if op == syntax.STAR {
			return repeatBytes(int64(len(x)), valueBytes, y)
		}
		if y, ok := y.(Tuple); ok {
			return (int64(len(x)) + int64(len(y))) * valueBytes
		}
	case Bytes:
		if op == syntax.STAR {
			return repeatBytes(int64(len(x)), 1, y)
		}
		if y, ok := y.(Bytes); ok {
			return int64(len(x)) + int64(len(y))
		}
	case Int:
		if op != syntax.STAR {
			return 0
		}
		switch y := y.(type) { // n * sequence
		case String:
			return repeatBytes(int64(len(y)), 1, x)
		case *List:
			return repeatBytes(int64(y.Len()), valueBytes, x)
		case Tuple:
			return repeatBytes(int64(len(y)), valueBytes, x)
		case Bytes:
			return repeatBytes(int64(len(y)), 1, x)
		}
	}
	return 0
}

// repeatBytes returns the size of size elements of unit bytes repeated n
// times when n is an int (math.MaxInt64 when it overflows), else 0.
func repeatBytes(size, unit int64, n Value) int64 {
	i, ok := n.(Int)
	if !ok || size == 0 || i.Sign() <= 0 {
		return 0
	}
	k, ok := i.Int64()
	if !ok || k > math.MaxInt64/unit/size {
		return math.MaxInt64
	}
	return k * size * unit
}

// grownCap returns the capacity append gives a slice of capacity old that
// must hold need elements (as Go's runtime.nextslicecap computes it, up to
// the rounding to a size class): need when it is more than twice old,
// else old doubled while small, else old grown by a quarter until it holds
// need. l.extend(l) of a long list allocates about 2.4 times the list,
// not 2.
func grownCap(old, need int) int {
	if need > 2*old {
		return need
	}
	if old < 256 {
		return 2 * old
	}
	c := old
	for c < need {
		c += (c + 3*256) >> 2
	}
	return c
}

// checkExtendAlloc checks x.extend(y), or x += y when inplace, before it
// grows x: when x must grow its array to hold y (else nothing is
// allocated), by the size of the array append makes.
func (thread *Thread) checkExtendAlloc(x *List, y Value, inplace bool) error {
	m := Len(y)
	if m <= 0 || x.Len()+m <= cap(x.elems) {
		return nil
	}
	n := int64(grownCap(cap(x.elems), x.Len()+m)) * valueBytes
	if n <= allocCheckMin {
		return nil
	}
	return thread.checkAlloc(n, func() string {
		if inplace {
			return "list += " + y.Type()
		}
		return "list.extend"
	})
}

// appendCheckCap is the capacity from which a list's growth by one
// element (a comprehension's APPEND, list.append) is checked: below it the
// array append makes is under allocCheckMin.
const appendCheckCap = int(allocCheckMin / valueBytes / 2)

// checkAppendAlloc checks, for the operation what, the array append makes
// when x, full, grows by one element (Go's growth: twice the capacity while
// small, then a quarter more at a time). A list built one element at a
// time grows by large steps, each allocating more than the program held a
// moment before.
func (thread *Thread) checkAppendAlloc(x *List, what string) error {
	n := int64(grownCap(cap(x.elems), x.Len()+1)) * valueBytes
	if n <= allocCheckMin {
		return nil
	}
	return thread.checkAlloc(n, func() string { return what })
}

// checkGrow checks, for the operation what, the array buf must allocate
// to hold n more bytes (strings.Builder.Grow doubles the capacity and
// adds n), and grows it: print, str.join and repr build their results
// this way, a piece at a time.
func (thread *Thread) checkGrow(buf *strings.Builder, n int, what string) error {
	if buf.Len()+n <= buf.Cap() {
		return nil
	}
	if c := 2*int64(buf.Cap()) + int64(n); c > allocCheckMin {
		if err := thread.checkAlloc(c, func() string { return what }); err != nil {
			return err
		}
	}
	buf.Grow(n)
	return nil
}

// Limits of reprBytes's walk: deeper values and values past the visit
// count add nothing, so that a value made of shared parts (l = [l, l]
// twenty times) costs at most maxReprVisits steps.
const (
	maxReprDepth  = 64
	maxReprVisits = 1 << 22
)

// checkRepr checks, for the operation what, the allocation of x.String()
// when a check is installed: reprBytes estimates its size first.
func (thread *Thread) checkRepr(x Value, what string) error {
	if thread == nil {
		return nil
	}
	if _, ok := thread.Local(allocCheckKey).(func(*Thread, string, int64) error); !ok {
		return nil
	}
	if n := reprBytes(x); n > allocCheckMin {
		return thread.checkAlloc(n, func() string { return what })
	}
	return nil
}

// reprBytes returns a lower bound on the size of x.String(): strings and
// bytes by their length, ints by their digits, lists, tuples, dicts and
// sets by their elements, other values as one byte.
func reprBytes(x Value) int64 {
	visits := 0
	var walk func(x Value, depth int) int64
	walk = func(x Value, depth int) int64 {
		visits++
		if depth > maxReprDepth || visits > maxReprVisits {
			return 0
		}
		n := int64(2) // quotes or brackets
		switch x := x.(type) {
		case String:
			return n + int64(len(x))
		case Bytes:
			return n + 1 + int64(len(x))
		case Int:
			if n, ok := x.bigBitLen(); ok { // bitsh fork: words (README.bitsh.md, 13)
				return int64(float64(n) * math.Log10(2))
			}
			return 1
		case *List:
			for _, e := range x.elems {
				n += walk(e, depth+1) + 2
			}
		case Tuple:
			for _, e := range x {
				n += walk(e, depth+1) + 2
			}
		case *Dict:
			for e := range x.ht.all { // bitsh fork: hashtable.go
				n += walk(e.key, depth+1) + walk(e.value, depth+1) + 4
			}
		case *Set:
			for e := range x.ht.all { // bitsh fork: hashtable.go
				n += walk(e.key, depth+1) + 2
			}
		default:
			return 1
		}
		return n
	}
	return walk(x, 0)
}
