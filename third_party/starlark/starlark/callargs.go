// bitsh fork: the arguments of a call that the interpreter's loop does
// not run itself, collected out of the loop (README.bitsh.md, change 37).

package starlark

import (
	"fmt"
	"slices"

	"go.starlark.net/internal/compile"
)

// callArgs collects the arguments of the call instruction op (CALL,
// CALL_VAR, CALL_KW or CALL_VAR_KW) with operand arg, whose function and
// operands lie on the operand stack space[:sp], as the interpreter's CALL
// case did in the loop: it returns the positional arguments (copied
// unless the callee is a Starlark function), the named ones and the new
// stack height, at which space[sp-1] is the function.
func callArgs(op compile.Opcode, arg uint32, space []Value, sp int) (positional Tuple, kvpairs []Tuple, _ int, _ error) {
	var kwargs Value
	if op == compile.CALL_KW || op == compile.CALL_VAR_KW {
		kwargs = space[sp-1]
		sp--
	}

	var args Value
	if op == compile.CALL_VAR || op == compile.CALL_VAR_KW {
		args = space[sp-1]
		sp--
	}

	// named args (pairs)
	if nkvpairs := int(arg & 0xff); nkvpairs > 0 {
		kvpairs = make([]Tuple, 0, nkvpairs)
		kvpairsAlloc := make(Tuple, 2*nkvpairs) // allocate a single backing array
		sp -= 2 * nkvpairs
		for i := range nkvpairs {
			pair := kvpairsAlloc[:2:2]
			kvpairsAlloc = kvpairsAlloc[2:]
			pair[0] = space[sp+2*i]   // name
			pair[1] = space[sp+2*i+1] // value
			kvpairs = append(kvpairs, pair)
		}
	}
	if kwargs != nil {
		// Add key/value items from **kwargs dictionary.
		dict, ok := kwargs.(IterableMapping)
		if !ok {
			return nil, nil, sp, fmt.Errorf("argument after ** must be a mapping, not %s", kwargs.Type())
		}
		items := dict.Items()
		for _, item := range items {
			if !is[String](item[0]) {
				return nil, nil, sp, fmt.Errorf("keywords must be strings, not %s", item[0].Type())
			}
		}
		if len(kvpairs) == 0 {
			kvpairs = items
		} else {
			kvpairs = append(kvpairs, items...)
		}
	}

	// positional args
	if npos := int(arg >> 8); npos > 0 {
		positional = space[sp-npos : sp]
		sp -= npos

		// Copy positional arguments into a new array,
		// unless the callee is another Starlark function,
		// in which case it can be trusted not to mutate them.
		if !is[*Function](space[sp-1]) || args != nil {
			positional = slices.Clone(positional)
		}
	}
	if args != nil {
		// Add elements from *args sequence.
		iter := Iterate(args)
		if iter == nil {
			return nil, nil, sp, fmt.Errorf("argument after * must be iterable, not %s", args.Type())
		}
		var elem Value
		for iter.Next(&elem) {
			positional = append(positional, elem)
		}
		iter.Done()
	}
	return positional, kvpairs, sp, nil
}
