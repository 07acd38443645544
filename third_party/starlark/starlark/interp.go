package starlark

// This file defines the bytecode interpreter.

import (
	"fmt"
	"os"

	"go.starlark.net/internal/compile"
	"go.starlark.net/syntax"
)

const vmdebug = false // TODO(adonovan): use a bitfield of specific kinds of error.

// TODO(adonovan):
// - optimize position table.
// - opt: record MaxIterStack during compilation and preallocate the stack.

func (fn *Function) CallInternal(thread *Thread, args Tuple, kwargs []Tuple) (Value, error) {
	// bitsh fork: the function's native form, if any (native.go), else
	// the bytecode loop (interpret), whose code and layout this leaves alone.
	if fn.native.state.Load() != nativeNever {
		if v, ok := fn.callNativeKw(thread, args, kwargs); ok {
			return v, nil
		}
	}
	return fn.interpret(thread, args, kwargs)
}

// interpret is CallInternal's bytecode loop (bitsh fork: CallInternal checks
// for a native form first).
func (fn *Function) interpret(thread *Thread, args Tuple, kwargs []Tuple) (Value, error) {
	// Postcondition: args is not mutated. This is stricter than required by Callable,
	// but allows CALL to avoid a copy.

	fr := thread.frameAt(0)

	// bitsh fork: the recursion check, the allocation of the stack and
	// locals and the binding of the arguments are in enter (interp_fast.go),
	// shared with the calls this loop runs itself.
	space, mark, err := fn.enter(thread, fr, args, kwargs)
	if err != nil {
		return nil, err
	}
	f := fn.funcode
	// bitsh fork: the locals (parameters first) are space[:nlocals], the
	// operand stack space[nlocals:]; sp indexes space.
	nlocals := len(f.Locals)

	if vmdebug {
		fmt.Printf("Entering %s @ %s\n", f.Name, f.Position(0))
		fmt.Printf("%d stack, %d locals\n", len(space)-nlocals, nlocals)
		defer fmt.Println("Leaving ", f.Name)
	}

	// TODO(adonovan): add static check that beneath this point
	// - there is exactly one return statement
	// - there is no redefinition of 'err'.

	var iterstack []Iterator // stack of active iterators

	// bitsh fork: a call of a Starlark function without keyword arguments
	// runs in this loop (interp_fast.go): the caller's state is saved in
	// thread.inl[base:] until the callee returns.
	base := len(thread.inl)

	// bitsh fork: code holds the instructions decoded (was f.Code).
	// The instructions of a straight run are counted as steps at once,
	// where it ends (a jump, a call, a load, a return, the loop's exit):
	// instructions code[counted:pc] are not counted yet. The count is the
	// same: one step per instruction executed.
	steptab, code := f.Tables()

	// Use defer so that application panics can pass through
	// interpreter without leaving thread in a bad state.
	defer func() {
		// ITERPOP the rest of the iterator stack.
		for _, iter := range iterstack {
			iter.Done()
		}

		fr.locals = nil
		thread.values.release(space, mark) // bitsh fork: valstack.go
		thread.unwindInline(base)          // bitsh fork: interp_fast.go
		keepInMemory(&fn, &f, &code, &steptab)
	}()

	sp := nlocals
	var pc, pc0 uint32
	var result Value
	var counted uint32
	// The step limit and cancellation are checked on entry, at the end
	// of each run and after each call, instead of before each instruction.
	if thread.stopping() {
		if err = thread.stepLimit(fr, pc0); err != nil {
			goto exit
		}
	}
loop:
	for {
		// bitsh fork: fr.pc is set from pc0 only where code outside the
		// loop can see it (calls, loads, callbacks, the loop's exit).
		pc0 = pc

		// bitsh fork: the instruction decoded once (compile.Funcode.Decoded).
		w := code[pc]
	dispatch: // bitsh fork: a fused instruction runs its first one instead
		op := compile.Opcode(w)
		pc = pc0 + uint32(w>>8)&0xff
		arg := uint32(w >> 32)
		if vmdebug {
			fmt.Fprintln(os.Stderr, space[nlocals:sp]) // very verbose!
			compile.PrintOp(f, pc0, op, arg)
		}

		switch op {
		case compile.NOP:
			// nop

		case compile.DUP:
			space[sp] = space[sp-1]
			sp++

		case compile.DUP2:
			space[sp] = space[sp-2]
			space[sp+1] = space[sp-1]
			sp += 2

		case compile.POP:
			sp--

		case compile.EXCH:
			space[sp-2], space[sp-1] = space[sp-1], space[sp-2]

		case compile.EQL, compile.NEQ, compile.GT, compile.LT, compile.LE, compile.GE:
			if a, b, ok := smallPair(space[sp-2], space[sp-1]); ok { // bitsh fork: interp_fast.go
				var r bool
				switch op {
				case compile.EQL:
					r = a == b
				case compile.NEQ:
					r = a != b
				case compile.GT:
					r = a > b
				case compile.LT:
					r = a < b
				case compile.LE:
					r = a <= b
				default:
					r = a >= b
				}
				sp--
				space[sp-1] = Bool(r)
				continue
			}
			if ok, isInt := intCompare(op, space[sp-2], space[sp-1]); isInt { // bitsh fork: interp_fast.go
				sp--
				space[sp-1] = Bool(ok)
				continue
			}
			op := syntax.Token(op-compile.EQL) + syntax.EQL
			y := space[sp-1]
			x := space[sp-2]
			sp -= 2
			ok, err2 := Compare(op, x, y)
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp] = Bool(ok)
			sp++

		case compile.IN: // bitsh fork: a set or dict looked up directly (hashtable_fast.go)
			if z, ok := inTable(space[sp-2], space[sp-1]); ok {
				sp--
				space[sp-1] = z
				continue
			}
			fallthrough

		case compile.PLUS,
			compile.MINUS,
			compile.STAR,
			compile.SLASH,
			compile.SLASHSLASH,
			compile.PERCENT,
			compile.AMP,
			compile.PIPE,
			compile.CIRCUMFLEX,
			compile.LTLT,
			compile.GTGT:
			if a, b, ok := smallPair(space[sp-2], space[sp-1]); ok { // bitsh fork: interp_fast.go
				if r, ok := smallBinary(op, a, b); ok {
					sp--
					space[sp-1] = makeSmallInt(r)
					continue
				}
			}
			binop := syntax.Token(op-compile.PLUS) + syntax.PLUS
			if op == compile.IN {
				binop = syntax.IN // IN token is out of order
			}
			y := space[sp-1]
			x := space[sp-2]
			sp -= 2
			if z, ok := intBinary(op, x, y); ok { // bitsh fork: interp_fast.go
				space[sp] = z
				sp++
				continue
			}
			if (op == compile.PLUS || op == compile.STAR) && !bothInts(x, y) { // bitsh fork: alloc.go
				fr.pc = pc0
				if err2 := thread.checkBinaryAlloc(binop, x, y); err2 != nil {
					err = err2
					break loop
				}
			}
			z, err2 := Binary(binop, x, y)
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp] = z
			sp++

		case compile.UPLUS, compile.UMINUS, compile.TILDE:
			// bitsh fork: the operator's token in unaryOp (lists_fast.go),
			// to keep this loop small.
			y, err2 := unaryOp(op, space[sp-1])
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp-1] = y

		case compile.INPLACE_ADD:
			if a, b, ok := smallPair(space[sp-2], space[sp-1]); ok { // bitsh fork: interp_fast.go
				if r := a + b; r == int64(int32(r)) {
					sp--
					space[sp-1] = makeSmallInt(r)
					continue
				}
			}
			y := space[sp-1]
			x := space[sp-2]
			sp -= 2
			if z, ok := intBinary(compile.PLUS, x, y); ok { // bitsh fork: interp_fast.go
				space[sp] = z
				sp++
				continue
			}

			// bitsh fork: the rest in inplaceAdd (loops.go), out of the
			// loop, so that Go still inlines the int fast paths here.
			z, err2 := thread.inplaceAdd(fr, pc0, x, y)
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp] = z
			sp++

		case compile.INPLACE_PIPE:
			if z, ok := intBinary(compile.PIPE, space[sp-2], space[sp-1]); ok { // bitsh fork: loops.go
				sp--
				space[sp-1] = z
				continue
			}
			// bitsh fork: the rest in inplacePipe (loops.go), out of the loop.
			z, err2 := inplacePipe(space[sp-2], space[sp-1])
			if err2 != nil {
				sp -= 2
				err = err2
				break loop
			}
			sp--
			space[sp-1] = z

		case compile.NONE:
			space[sp] = None
			sp++

		case compile.TRUE:
			space[sp] = True
			sp++

		case compile.FALSE:
			space[sp] = False
			sp++

		case compile.MANDATORY:
			space[sp] = mandatory{}
			sp++

		case compile.JMP:
			// bitsh fork: pc is past the padding NOPs that may follow a
			// jump (compile.Funcode.Decoded), which count as steps only
			// where they run: the jump's run ends inside its operand.
			thread.Steps += uint64(steptab[pc0+1] - steptab[counted])
			counted = pc0 + 1
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					pc = counted
					break loop
				}
			}
			if w&0xffff0000 != 0 {
				// bitsh fork: a back edge of a loop of top-level code
				// (compile.LoopJmp, native_loop.go; backEdge reads
				// Function.loopsOff, to keep this loop small enough for
				// Go to inline its int fast paths).
				arg = fn.backEdge(thread, fr, pc0, w, iterstack)
			}
			pc = arg
			counted = arg

		case compile.CALL, compile.CALL_VAR, compile.CALL_KW, compile.CALL_VAR_KW:
			thread.Steps += uint64(steptab[pc] - steptab[counted]) // bitsh fork
			counted = pc
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					break loop
				}
			}
			// bitsh fork: a Starlark function called with positional
			// arguments only runs in this loop (interp_fast.go), as below.
			var callee *Function
			var positional Tuple
			if op == compile.CALL && arg&0xff == 0 && profiler.events == nil {
				npos := int(arg >> 8)
				if c, ok := space[sp-npos-1].(*Function); ok {
					callee = c
					positional = space[sp-npos : sp]
					sp -= npos
					fr.pc = pc0
				} else if w&compile.LinkedCall != 0 { // bitsh fork: loops.go, linked.go
					if callLinked(space[sp-npos-1:sp], w) {
						sp -= npos
						continue
					}
				} else if z := callFast(thread, space[sp-npos-1], space[sp-npos:sp]); z != nil { // bitsh fork: builtins_fast.go
					sp -= npos
					space[sp-1] = z
					continue
				} else if npos <= 2 && compile.Opcode(code[pc]) == compile.ITERPUSH { // bitsh fork: loops.go
					if e := enumerateFor(thread, space[sp-npos-1], space[sp-npos:sp]); e != nil {
						sp -= npos
						space[sp-1] = e
						continue
					}
				}
			}
			if callee == nil {
				// bitsh fork: the arguments collected out of the loop
				// (callargs.go), to keep the loop small enough for Go to
				// inline its int fast paths.
				var kvpairs []Tuple
				var errArgs error
				if positional, kvpairs, sp, errArgs = callArgs(op, arg, space, sp); errArgs != nil {
					err = errArgs
					break loop
				}

				function := space[sp-1]
				if w&compile.LinkedCall != 0 { // bitsh fork: loops.go, linked.go (a profile started since the ATTR)
					function = boundLinked(function, w)
				}

				if vmdebug {
					fmt.Printf("VM call %s args=%s kwargs=%s @%s\n",
						function, positional, kvpairs, f.Position(pc0))
				}

				fr.pc = pc0 // bitsh fork
				var z Value
				var err2 error
				if c, ok := function.(*Function); ok && kvpairs == nil { // bitsh fork: interp_fast.go
					if profiler.events == nil {
						callee = c // run in this loop, below
					} else {
						z, err2 = callFunction(thread, c, positional)
					}
				} else if b, ok := function.(*Builtin); ok && profiler.events == nil { // bitsh fork: interp_fast.go
					z, err2 = callBuiltin(thread, b, positional, kvpairs)
				} else {
					thread.endProfSpan()
					z, err2 = Call(thread, function, positional, kvpairs)
					thread.beginProfSpan()
				}
				if callee == nil {
					if err2 == nil {
						if thread.stopping() { // bitsh fork: cancelled during the call?
							if err2 := thread.stepLimit(fr, pc0); err2 != nil {
								err = err2
								break loop
							}
						}
					}
					if err2 != nil {
						err = err2
						break loop
					}
					if vmdebug {
						fmt.Printf("Resuming %s @ %s\n", f.Name, f.Position(0))
					}
					space[sp-1] = z
					continue
				}
			}
			// bitsh fork: the callee's native form, if any (native.go).
			if callee.native.state.Load() != nativeNever {
				if z, ok := callee.callNative(thread, positional); ok {
					space[sp-1] = z
					continue
				}
			}
			// Run the callee in this loop.
			if n := len(thread.inl); n < cap(thread.inl) {
				thread.inl = thread.inl[:n+1]
			} else {
				thread.inl = append(thread.inl, inlineFrame{})
			}
			c := &thread.inl[len(thread.inl)-1] // fields set one by one: no copy
			c.fn, c.space, c.mark, c.iterstack, c.pc, c.sp = fn, space, mark, iterstack, pc, sp
			fr = thread.pushFrame(callee)
			fn = callee
			f = fn.funcode
			steptab, code = f.Tables()
			iterstack = nil
			nlocals = len(f.Locals)
			pc, pc0, counted, sp = 0, 0, 0, nlocals
			if shape := f.Frame(); int(shape>>32) == len(positional) && len(thread.stack) <= maxDepth {
				// As enter binds exact positional arguments, with no
				// cells and recursion allowed: the callee's space begins
				// at its arguments on this operand stack (valstack.go),
				// its other locals cleared; or, where it does not fit,
				// the arguments are copied to a new space.
				var ok bool
				if space, mark, ok = thread.values.allocOver(positional, int(uint32(shape))); ok {
					for i := len(positional); i < nlocals; i++ {
						space[i] = nil
					}
				} else {
					space, mark = thread.values.alloc(int(uint32(shape)))
					for i := 0; i < len(positional); i++ {
						space[i] = positional[i]
					}
				}
				fr.locals = space[:nlocals:nlocals]
			} else {
				var err2 error
				space, mark, err2 = fn.enter(thread, fr, positional, nil)
				if err2 != nil {
					err = err2
					break loop
				}
			}
			// The step limit and cancellation were checked at the CALL,
			// with no step since: the callee's entry does not check again.
			continue

		case compile.ITERPUSH:
			x := space[sp-1]
			sp--
			iter := thread.iterate(x) // bitsh fork: iterpool.go
			if iter == nil {
				err = fmt.Errorf("%s value is not iterable", x.Type())
				break loop
			}
			iterstack = append(iterstack, iter)

		case compile.ITERJMP, compile.FusedIterSetlocal, compile.FusedRangeStore:
			// bitsh fork: pc is past the padding NOPs that may follow a
			// jump (compile.Funcode.Decoded), which count as steps only
			// where they run: the jump's run ends inside its operand.
			thread.Steps += uint64(steptab[pc0+1] - steptab[counted])
			counted = pc0 + 1
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					pc = counted
					break loop
				}
			}
			iter := iterstack[len(iterstack)-1]
			if op == compile.FusedRangeStore { // bitsh fork: lists_fast.go
				if d := rangeStores(thread, fn.module, space, code, steptab, pc0, iter); d != 0 {
					thread.Steps += d
					pc, counted = pc0, pc0 // at the ITERJMP again
					continue
				}
			}
			// bitsh fork: the next element of a range, list or tuple, x,
			// taken inline, and given to the local of the SETLOCAL fused
			// with this instruction (lists_fast.go), or to the SETLOCAL or
			// FusedUnpackSet2 after it, if any, without pushing it. The
			// other iterators run the SETLOCAL as written.
			local := -1
			if op != compile.ITERJMP {
				local, pc = iterSetLocal(iter, w, pc0, pc)
			}
			var x Value
			if r, ok := iter.(*rangeIterator); ok {
				if r.i >= r.r.len {
					pc = arg
					counted = arg
					continue
				}
				if v := r.r.start + r.i*r.r.step; int(int32(v)) == v { // bitsh fork: without a call
					x = makeSmallInt(int64(v))
				} else {
					x = MakeInt(v)
				}
				r.i++
			} else if l, ok := iter.(*listIterator); ok {
				if l.i >= len(l.l.elems) {
					pc = arg
					counted = arg
					continue
				}
				x = l.l.elems[l.i]
				l.i++
			} else if t, ok := iter.(*tupleIterator); ok {
				if len(t.elems) == 0 {
					pc = arg
					counted = arg
					continue
				}
				x = t.elems[0]
				t.elems = t.elems[1:]
			} else if e, ok := iter.(*enumeration); ok { // bitsh fork: loops.go
				switch e.next(space, sp, code[pc]) {
				case 0:
					pc = arg
					counted = arg
				case 1:
					sp++
				case 2: // the UNPACK 2 that follows too
					sp += 2
					pc += uint32(code[pc]>>8) & 0xff
				default: // and the two SETLOCALs after it
					pc += uint32(code[pc]>>8) & 0xff
				}
				continue
			} else {
				if iter.Next(&space[sp]) {
					sp++
				} else {
					pc = arg
					counted = arg
				}
				continue
			}
			if local >= 0 {
				space[local] = x
				continue
			}
			switch u := code[pc]; compile.Opcode(u) {
			case compile.SETLOCAL:
				space[u>>32] = x
				pc += uint32(u>>8) & 0xff
				continue
			case compile.FusedUnpackSet2:
				if t, ok := x.(Tuple); ok && len(t) == 2 {
					space[uint32(u>>16)&0xffff] = t[0]
					space[u>>32] = t[1]
					pc += uint32(u>>8) & 0xff
					continue
				}
			}
			space[sp] = x
			sp++

		case compile.ITERPOP:
			n := len(iterstack) - 1
			thread.iterDone(iterstack[n]) // bitsh fork: iterpool.go
			iterstack = iterstack[:n]

		case compile.NOT:
			space[sp-1] = !space[sp-1].Truth()

		case compile.RETURN:
			thread.Steps += uint64(steptab[pc] - steptab[counted]) // bitsh fork
			counted = pc
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					break loop
				}
			}
			if len(thread.inl) == base {
				result = space[sp-1]
				break loop
			}
			z := space[sp-1]
			// bitsh fork: the end of a call run in this loop
			// (interp_fast.go): pop its frame, resume the caller.
			for _, iter := range iterstack {
				iter.Done()
			}
			// thread.values.release(space, mark), inline.
			if s := space; len(s) <= 16 {
				for len(s) >= 2 {
					s[0], s[1] = nil, nil
					s = s[2:]
				}
				if len(s) == 1 {
					s[0] = nil
				}
			} else {
				clear(s)
			}
			if vs := &thread.values; mark.cur == vs.cur {
				vs.sp = mark.sp
			} else {
				vs.release(nil, mark)
			}
			*fr = frame{}
			thread.stack = thread.stack[:len(thread.stack)-1] // pop
			n := len(thread.inl) - 1
			c := &thread.inl[n]
			fn, space, mark, iterstack, pc, sp = c.fn, c.space, c.mark, c.iterstack, c.pc, c.sp
			*c = inlineFrame{}
			thread.inl = thread.inl[:n]
			// The caller's frame, pc of its call and step count.
			fr = thread.stack[len(thread.stack)-1]
			pc0 = fr.pc
			counted = pc
			f = fn.funcode
			steptab, code = f.BuiltTables()
			space[sp-1] = z
			// The step limit and cancellation were checked at the RETURN,
			// with no step since: the caller does not check again.

		case compile.SETINDEX:
			if l, ok := space[sp-3].(*List); ok && !l.frozen && l.itercount == 0 { // bitsh fork: interp_fast.go
				if i, ok := smallIndex(space[sp-2], len(l.elems)); ok {
					l.elems[i] = space[sp-1]
					sp -= 3
					continue
				}
			}
			z := space[sp-1]
			y := space[sp-2]
			x := space[sp-3]
			sp -= 3
			if err2 := setIndex(x, y, z); err2 != nil {
				err = err2
				break loop
			}

		case compile.INDEX:
			switch x := space[sp-2].(type) { // bitsh fork: interp_fast.go
			case *List:
				if i, ok := smallIndex(space[sp-1], len(x.elems)); ok {
					sp--
					space[sp-1] = x.elems[i]
					continue
				}
			case Tuple:
				if i, ok := smallIndex(space[sp-1], len(x)); ok {
					sp--
					space[sp-1] = x[i]
					continue
				}
			}
			y := space[sp-1]
			x := space[sp-2]
			sp -= 2
			z, err2 := getIndex(x, y)
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp] = z
			sp++

		case compile.ATTR:
			x := space[sp-1]
			name := f.Prog.Names[arg]
			y, err2 := getAttr(x, name)
			if err2 != nil {
				err = err2
				break loop
			}
			space[sp-1] = y

		case compile.SETFIELD:
			y := space[sp-1]
			x := space[sp-2]
			sp -= 2
			name := f.Prog.Names[arg]
			if err2 := setField(x, name, y); err2 != nil {
				err = err2
				break loop
			}

		case compile.MAKEDICT:
			space[sp] = new(Dict)
			sp++

		case compile.SETDICT, compile.SETDICTUNIQ:
			dict := space[sp-3].(*Dict)
			k := space[sp-2]
			v := space[sp-1]
			sp -= 3
			oldlen := dict.Len()
			if err2 := dict.SetKey(k, v); err2 != nil {
				err = err2
				break loop
			}
			if op == compile.SETDICTUNIQ && dict.Len() == oldlen {
				err = fmt.Errorf("duplicate key: %v", k)
				break loop
			}

		case compile.APPEND:
			elem := space[sp-1]
			list := space[sp-2].(*List)
			sp -= 2
			if len(list.elems) == cap(list.elems) && cap(list.elems) >= appendCheckCap { // bitsh fork: alloc.go
				fr.pc = pc0
				if err2 := thread.checkAppendAlloc(list, "list comprehension"); err2 != nil {
					err = err2
					break loop
				}
			}
			list.elems = append(list.elems, elem)

		case compile.SLICE:
			// bitsh fork: its operands in a slice (lists_fast.go), to keep
			// this loop small.
			sp -= 3
			if err2 := sliceOp(space[sp-1 : sp+3]); err2 != nil {
				err = err2
				break loop
			}

		case compile.UNPACK:
			n := int(arg)
			iterable := space[sp-1]
			sp--
			// bitsh fork: a tuple or list of exactly n elements is
			// unpacked without an iterator (no allocation); any other
			// value, or another length, takes the general path below,
			// with its errors.
			if t, ok := iterable.(Tuple); ok && len(t) == n {
				for i, x := range t {
					space[sp+n-1-i] = x
				}
				sp += n
				break
			}
			if l, ok := iterable.(*List); ok && len(l.elems) == n {
				for i, x := range l.elems {
					space[sp+n-1-i] = x
				}
				sp += n
				break
			}
			// bitsh fork: the rest in unpackIterable (loops.go), out of the loop.
			sp += n
			if err2 := unpackIterable(iterable, space[sp-n:sp]); err2 != nil {
				err = err2
				break loop
			}

		case compile.CJMP:
			// bitsh fork: pc is past the padding NOPs that may follow a
			// jump (compile.Funcode.Decoded), which count as steps only
			// where they run: the jump's run ends inside its operand.
			thread.Steps += uint64(steptab[pc0+1] - steptab[counted])
			counted = pc0 + 1
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					pc = counted
					break loop
				}
			}
			var truth bool
			switch x := space[sp-1].(type) { // bitsh fork: without a call
			case Bool:
				truth = bool(x)
			case Int:
				if v, ok := x.small(); ok {
					truth = v != 0
				} else {
					truth = bool(x.Truth())
				}
			default:
				truth = bool(x.Truth())
			}
			if truth {
				pc = arg
				counted = arg
			}
			sp--

		case compile.CONSTANT:
			space[sp] = fn.module.constants[arg]
			sp++

		case compile.MAKETUPLE:
			if arg == 2 { // bitsh fork: a quarter of an allocation (tuples.go)
				sp--
				space[sp-1] = thread.makePair(space[sp-1], space[sp])
				break
			}
			// bitsh fork: three or four elements with one allocation (tuples.go).
			n := int(arg)
			sp -= n - 1
			space[sp-1] = makeTuple(space[sp-1 : sp-1+n])

		case compile.MAKELIST:
			n := int(arg)
			elems := make([]Value, n)
			sp -= n
			copy(elems, space[sp:])
			space[sp] = NewList(elems)
			sp++

		case compile.MAKEFUNC:
			// bitsh fork: in makeFunction (lists_fast.go), to keep this
			// loop small.
			space[sp-1] = makeFunction(fn.module, f.Prog.Functions[arg], space[sp-1].(Tuple))

		case compile.LOAD:
			thread.Steps += uint64(steptab[pc] - steptab[counted]) // bitsh fork
			counted = pc
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0); err2 != nil {
					err = err2
					break loop
				}
			}
			// bitsh fork: the rest of LOAD in loadNames (loops.go), out
			// of the loop, which Go then finds small enough to inline
			// the fast paths' helpers into.
			if err2 := thread.loadNames(fr, pc0, space[:sp], int(arg)); err2 != nil {
				sp--
				err = err2
				break loop
			}
			sp--

		case compile.SETLOCAL:
			space[arg] = space[sp-1]
			sp--

		case compile.SETLOCALCELL:
			space[arg].(*cell).v = space[sp-1]
			sp--

		case compile.SETGLOBAL:
			fn.module.globals[arg] = space[sp-1]
			sp--

		case compile.LOCAL:
			x := space[arg]
			if x == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[arg].Name)
				break loop
			}
			space[sp] = x
			sp++

		case compile.FREE:
			space[sp] = fn.freevars[arg]
			sp++

		case compile.LOCALCELL:
			v := space[arg].(*cell).v
			if v == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.Locals[arg].Name)
				break loop
			}
			space[sp] = v
			sp++

		case compile.FREECELL:
			v := fn.freevars[arg].(*cell).v
			if v == nil {
				err = fmt.Errorf("local variable %s referenced before assignment", f.FreeVars[arg].Name)
				break loop
			}
			space[sp] = v
			sp++

		case compile.GLOBAL:
			x := fn.module.globals[arg]
			if x == nil {
				err = fmt.Errorf("global variable %s referenced before assignment", f.Prog.Globals[arg].Name)
				break loop
			}
			space[sp] = x
			sp++

		case compile.PREDECLARED:
			x := fn.module.predecl[arg] // bitsh fork: names.go
			if x == nil {
				err = fmt.Errorf("internal error: predeclared variable %s is uninitialized", f.Prog.Names[arg])
				break loop
			}
			space[sp] = x
			sp++

		case compile.UNIVERSAL:
			space[sp] = fn.module.universal[arg] // bitsh fork: names.go
			sp++

		// bitsh fork: fused instructions (compile.Funcode.Decoded). Each
		// runs its sequence's first instruction as written (dispatch)
		// where its operands are not what it computes inline.
		case compile.FusedLocalLocal:
			x := uint32(w>>16) & 0x7f
			if a, b := space[x], space[arg]; a != nil && b != nil {
				space[sp] = a
				space[sp+1] = b
				sp += 2
				continue
			}
			w = uint64(compile.LOCAL) | 2<<8 | uint64(x)<<32
			goto dispatch

		case compile.FusedLocalConst:
			x := uint32(w>>16) & 0x7f
			if a := space[x]; a != nil {
				space[sp] = a
				space[sp+1] = fn.module.constants[arg]
				sp += 2
				continue
			}
			w = uint64(compile.LOCAL) | 2<<8 | uint64(x)<<32
			goto dispatch

		case compile.FusedLocalLocalBinop, compile.FusedLocalConstBinop:
			x := uint32(w>>16) & 0x7f
			a := space[x]
			if a == nil {
				w = uint64(compile.LOCAL) | 2<<8 | uint64(x)<<32
				goto dispatch
			}
			var b Value
			if op == compile.FusedLocalLocalBinop {
				b = space[arg]
				if b == nil {
					w = uint64(compile.LOCAL) | 2<<8 | uint64(x)<<32
					goto dispatch
				}
			} else {
				b = fn.module.constants[arg]
			}
			binop := compile.Opcode(w >> 24)
			if binop == compile.INDEX {
				switch x := a.(type) {
				case *List:
					if i, ok := smallIndex(b, len(x.elems)); ok {
						space[sp] = x.elems[i]
						sp++
						continue
					}
				case Tuple:
					if i, ok := smallIndex(b, len(x)); ok {
						space[sp] = x[i]
						sp++
						continue
					}
				}
			} else if p, q, ok := smallPair(a, b); ok {
				if binop <= compile.NEQ { // a comparison
					r := smallCompare(binop, p, q)
					if nw := code[pc]; compile.Opcode(nw) == compile.CJMP {
						// The CJMP that follows, as its case runs it.
						pc0 = pc
						thread.Steps += uint64(steptab[pc0+1] - steptab[counted])
						counted = pc0 + 1
						if thread.stopping() {
							if err2 := thread.stepLimit(fr, pc0); err2 != nil {
								err = err2
								pc = counted
								break loop
							}
						}
						pc = pc0 + uint32(nw>>8)&0xff
						if r {
							pc = uint32(nw >> 32)
							counted = pc
						}
						continue
					}
					space[sp] = Bool(r)
					sp++
					continue
				}
				if r, ok := smallBinary(binop, p, q); ok {
					space[sp] = makeSmallInt(r)
					sp++
					continue
				}
			}
			if binop > compile.NEQ && binop != compile.INDEX {
				// Other ints: intBinary, as the operator's case does.
				if z, ok := intBinary(binop, a, b); ok {
					space[sp] = z
					sp++
					continue
				}
			}
			// The operator as written, its operands pushed.
			space[sp] = a
			space[sp+1] = b
			sp += 2
			pc0 = pc - 1
			w = uint64(binop) | 1<<8
			goto dispatch

		case compile.FusedCmpJmp:
			cmp := compile.Opcode(w >> 16)
			p, q, ok := smallPair(space[sp-2], space[sp-1])
			if !ok {
				w = uint64(cmp) | 1<<8
				goto dispatch
			}
			sp -= 2
			// As CJMP, at pc0+1 (its operand at pc0+2).
			thread.Steps += uint64(steptab[pc0+2] - steptab[counted])
			counted = pc0 + 2
			if thread.stopping() {
				if err2 := thread.stepLimit(fr, pc0+1); err2 != nil {
					err = err2
					pc = counted
					break loop
				}
			}
			if smallCompare(cmp, p, q) {
				pc = arg
				counted = arg
			}

		case compile.FusedBinopSetlocal:
			binop := compile.Opcode(w >> 16)
			if p, q, ok := smallPair(space[sp-2], space[sp-1]); ok {
				if r, ok := smallBinary(binop, p, q); ok {
					sp -= 2
					space[arg] = makeSmallInt(r)
					continue
				}
			}
			if z, ok := intBinary(binop, space[sp-2], space[sp-1]); ok {
				sp -= 2
				space[arg] = z
				continue
			}
			w = uint64(binop) | 1<<8
			goto dispatch

		case compile.FusedConstBinop, compile.FusedLocalBinop:
			// The value below the load, the operator, the load's value.
			var b Value
			if op == compile.FusedConstBinop {
				b = fn.module.constants[arg]
			} else if b = space[arg]; b == nil {
				w = uint64(compile.LOCAL) | (w>>24&0xff)<<8 | uint64(arg)<<32
				goto dispatch
			}
			binop := compile.Opcode(w >> 16)
			a := space[sp-1]
			if binop == compile.INDEX {
				switch x := a.(type) {
				case *List:
					if i, ok := smallIndex(b, len(x.elems)); ok {
						space[sp-1] = x.elems[i]
						continue
					}
				case Tuple:
					if i, ok := smallIndex(b, len(x)); ok {
						space[sp-1] = x[i]
						continue
					}
				}
			} else {
				if p, q, ok := smallPair(a, b); ok {
					if r, ok := smallBinary(binop, p, q); ok {
						space[sp-1] = makeSmallInt(r)
						continue
					}
				}
				if z, ok := intBinary(binop, a, b); ok {
					space[sp-1] = z
					continue
				}
			}
			// The load as written.
			if op == compile.FusedConstBinop {
				w = uint64(compile.CONSTANT) | (w>>24&0xff)<<8 | uint64(arg)<<32
			} else {
				w = uint64(compile.LOCAL) | (w>>24&0xff)<<8 | uint64(arg)<<32
			}
			goto dispatch

		case compile.FusedUnpackSet2: // bitsh fork: loops.go
			if t, ok := space[sp-1].(Tuple); ok && len(t) == 2 {
				space[uint32(w>>16)&0xffff] = t[0]
				space[arg] = t[1]
				sp--
				continue
			}
			w = uint64(compile.UNPACK) | 2<<8 | 2<<32
			goto dispatch

		case compile.FusedMaskedOp, compile.FusedWideOp: // bitsh fork: loops.go, ints_fast.go
			if z, n := maskedOrWide(fn.module, space, w, sp, code[pc:]); z != nil {
				sp--
				space[sp-1] = z
				pc += n
				continue
			}
			w = uint64(w>>16&0xff) | 1<<8
			goto dispatch

		case compile.FusedStoreIndex, compile.FusedLoadStoreIndex, compile.FusedGlobalIndex, compile.FusedDup2Index, compile.FusedGlobalIndexOp: // bitsh fork: lists_fast.go
			if d, ok := listFused(fn.module, space, w, sp); ok {
				sp += d
				continue
			}
			w = firstOfListFused(w)
			goto dispatch

		case compile.LinkedAttr: // bitsh fork: loops.go, linked.go
			if linkedReceiver(space[sp-1], w) {
				continue // the method, called at the linked CALL
			}
			w = w&^0xff | uint64(compile.ATTR)
			goto dispatch

		default:
			err = fmt.Errorf("unimplemented: %s", op)
			break loop
		}
	}
exit:
	fr.pc = pc0 // bitsh fork: the instruction that returned or failed
	thread.Steps += uint64(steptab[pc] - steptab[counted])

	// bitsh fork: a call run in this loop failed (interp_fast.go). As
	// callFunction: the error is wrapped with the callee's frame on the
	// stack, then the frame is popped, up to the first frame of this loop.
	for n := len(thread.inl) - 1; n >= base; n-- {
		if !is[*EvalError](err) {
			err = thread.evalError(err)
		}
		for _, iter := range iterstack {
			iter.Done()
		}
		fr.locals = nil
		thread.values.release(space, mark)
		*fr = frame{}
		thread.stack = thread.stack[:len(thread.stack)-1] // pop
		c := &thread.inl[n]
		fr, space, mark, iterstack = thread.stack[len(thread.stack)-1], c.space, c.mark, c.iterstack
		*c = inlineFrame{}
		thread.inl = thread.inl[:n]
	}
	// (deferred cleanup runs here)
	return result, err
}

type wrappedError struct {
	msg   string
	cause error
}

func (e wrappedError) Error() string {
	return e.msg
}

// Implements the xerrors.Wrapper interface
// https://godoc.org/golang.org/x/xerrors#Wrapper
func (e wrappedError) Unwrap() error {
	return e.cause
}

// mandatory is a sentinel value used in a function's defaults tuple
// to indicate that a (keyword-only) parameter is mandatory.
type mandatory struct{}

func (mandatory) String() string        { return "mandatory" }
func (mandatory) Type() string          { return "mandatory" }
func (mandatory) Freeze()               {} // immutable
func (mandatory) Truth() Bool           { return False }
func (mandatory) Hash() (uint32, error) { return 0, nil }

// A cell is a box containing a Value.
// Local variables marked as cells hold their value indirectly
// so that they may be shared by outer and inner nested functions.
// Cells are always accessed using indirect {FREE,LOCAL,SETLOCAL}CELL instructions.
// The FreeVars tuple contains only cells.
// The FREE instruction always yields a cell.
type cell struct{ v Value }

func (c *cell) String() string { return "cell" }
func (c *cell) Type() string   { return "cell" }
func (c *cell) Freeze() {
	if c.v != nil {
		c.v.Freeze()
	}
}
func (c *cell) Truth() Bool           { panic("unreachable") }
func (c *cell) Hash() (uint32, error) { panic("unreachable") }
