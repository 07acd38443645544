// bitsh fork: methods called from the interpreter's loop without their
// bound method (README.bitsh.md, changes 23 and 29).

package starlark

// The methods of compile.LinkedMethods, by their number there.
const (
	linkedAppend = iota
	linkedAdd
	linkedRemove
	linkedDiscard
	linkedGet
)

// linkedBuiltins are the methods of compile.LinkedMethods, by number.
var linkedBuiltins = [...]*Builtin{
	linkedAppend:  listMethods["append"],
	linkedAdd:     setMethods["add"],
	linkedRemove:  setMethods["remove"],
	linkedDiscard: setMethods["discard"],
	linkedGet:     dictMethods["get"],
}

// linkedReceiver reports whether v is a receiver of the method that the
// LinkedAttr entry w names: a list for append, a set for add, remove and
// discard, a dict for get. The interpreter then leaves v on the stack for
// the linked CALL.
func linkedReceiver(v Value, w uint64) bool {
	switch w >> 16 & 7 {
	case linkedAppend:
		return isList(v)
	case linkedGet:
		_, ok := v.(*Dict)
		return ok
	}
	_, ok := v.(*Set)
	return ok
}

// callLinked runs a CALL linked to an ATTR (compile.LinkedCall; w the
// CALL's entry), whose function and arguments are fa[0] and fa[1:]. Where
// fa[0] is the receiver that the ATTR left there, it runs the method and
// sets fa[0] to the call's result, unless the method would fail (a frozen
// or iterated receiver, an unhashable key, a missing element to remove),
// need the allocation check or a profile is taken: then it puts the bound
// method there, as the ATTR would have, and reports false, and the CALL
// calls it as written, with its errors. Where the method would fail, it
// has changed nothing. For any other value it reports false.
func callLinked(fa []Value, w uint64) bool {
	method := w >> 17 & 7
	if method == linkedAppend {
		// The list's append (change 23), here rather than in a call of
		// its own.
		l, ok := fa[0].(*List)
		if !ok {
			return false
		}
		if l.frozen || l.itercount > 0 || len(l.elems) == cap(l.elems) && cap(l.elems) >= appendCheckCap || profiler.events != nil {
			fa[0] = listAppend.BindReceiver(l)
			return false
		}
		l.elems = append(l.elems, fa[1])
		fa[0] = None
		return true
	}
	if method == linkedGet {
		d, ok := fa[0].(*Dict)
		if !ok {
			return false
		}
		if profiler.events != nil {
			fa[0] = linkedBuiltins[method].BindReceiver(d)
			return false
		}
		v, found, err := d.ht.lookup(fa[1])
		switch {
		case err != nil:
			fa[0] = linkedBuiltins[method].BindReceiver(d)
			return false
		case found:
			fa[0] = v
		case len(fa) == 3:
			fa[0] = fa[2]
		default:
			fa[0] = None
		}
		return true
	}
	s, ok := fa[0].(*Set)
	if !ok {
		return false
	}
	if profiler.events == nil {
		switch method {
		case linkedAdd:
			if s.ht.insert(fa[1], None) == nil {
				fa[0] = None
				return true
			}
		case linkedRemove:
			if _, found, err := s.ht.delete(fa[1]); found && err == nil {
				fa[0] = None
				return true
			}
		case linkedDiscard:
			// An empty table that was never initialized does not hash
			// the key in delete, which discard's lookup would.
			if s.ht.ents != nil {
				if _, _, err := s.ht.delete(fa[1]); err == nil {
					fa[0] = None
					return true
				}
			}
		}
	}
	fa[0] = linkedBuiltins[method].BindReceiver(s)
	return false
}

// boundLinked returns the function a CALL linked to an ATTR (w the CALL's
// entry) calls on its general path: the bound method where the ATTR left
// its receiver (a profile started between them), else f.
func boundLinked(f Value, w uint64) Value {
	method := w >> 17 & 7
	if linkedReceiver(f, method<<16) {
		return linkedBuiltins[method].BindReceiver(f)
	}
	return f
}
