package starlark

// bitsh fork: the interpreter's cases of the fused instructions of
// internal/compile/fuse_lists.go (list stores, global lists, range loops),
// out of the loop so that it stays under Go's limit for inlining into a
// big function (README.bitsh.md, changes 22 and 26).

import "go.starlark.net/internal/compile"

// listFused runs FusedStoreIndex or FusedGlobalIndex where they apply,
// and reports whether it did; otherwise nothing is changed and the
// interpreter runs the sequence as written (firstOfListFused). The store
// x[y] = v (v on the stack) applies where x is a list neither frozen nor
// iterated and y an int32 index in range; the load g[y] (pushed at sp)
// where the global g is a list or a tuple and y an int32 index in range.
func listFused(m *Module, space []Value, w uint64, sp int) bool {
	x := uint32(w>>16) & 0x3ff
	var a, b Value
	if x&0x100 != 0 || compile.Opcode(w) == compile.FusedGlobalIndex {
		a = m.globals[x&0x7f]
	} else {
		a = space[x&0x7f]
	}
	if x&0x200 != 0 {
		b = m.constants[uint32(w>>32)]
	} else {
		b = space[uint32(w>>32)]
	}
	switch a := a.(type) {
	case *List:
		i, ok := smallIndex(b, len(a.elems))
		if !ok {
			return false
		}
		if compile.Opcode(w) == compile.FusedGlobalIndex {
			space[sp] = a.elems[i]
			return true
		}
		if a.frozen || a.itercount != 0 {
			return false
		}
		a.elems[i] = space[sp-1]
		return true
	case Tuple:
		if i, ok := smallIndex(b, len(a)); ok && compile.Opcode(w) == compile.FusedGlobalIndex {
			space[sp] = a[i]
			return true
		}
	}
	return false
}

// firstOfListFused returns the decoded entry of the first instruction of
// the sequence of a FusedStoreIndex or FusedGlobalIndex: a LOCAL or a
// GLOBAL of one operand byte.
func firstOfListFused(w uint64) uint64 {
	if w>>16&0x100 != 0 || compile.Opcode(w) == compile.FusedGlobalIndex {
		return uint64(compile.GLOBAL) | 2<<8 | (w>>16&0x7f)<<32
	}
	return uint64(compile.LOCAL) | 2<<8 | (w>>16&0x7f)<<32
}

// iterSetLocal returns, for FusedIterSetlocal (ITERJMP and the SETLOCAL
// after it, decoded as w at pc0, pc after both), where the element goes
// and the pc after it: a range's or a list's element into the local, the
// SETLOCAL stepped over; any other iterator's onto the stack at sp, the
// SETLOCAL run as written.
func iterSetLocal(iter Iterator, w uint64, pc0, pc uint32, sp int) (int, uint32) {
	switch iter.(type) {
	case *rangeIterator, *listIterator:
		return int(w >> 16 & 0xff), pc
	}
	return sp, pc0 + uint32(w>>24)&0xff
}

// sliceOp runs SLICE on its operands x, lo, hi, step and leaves the result
// in ops[0] (the interpreter's case, out of its loop).
func sliceOp(ops []Value) error {
	res, err := slice(ops[0], ops[1], ops[2], ops[3])
	if err != nil {
		return err
	}
	ops[0] = res
	return nil
}
