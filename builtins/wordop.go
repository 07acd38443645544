package builtins

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/endgame"
	"github.com/bitsh/bitsh/builtins/words"
	"go.starlark.net/starlark"
)

// A wordOp declares, once, a builtin whose arguments are words (and a few
// small ints or a numbering) and whose result is a word or a small int.
// From the one declaration come three paths that cannot drift apart:
//
//   - the fast scalar path, for the common call (positional ints that fit
//     in 64 bits, no keywords): no reflection, no allocation unless the
//     result is at or above 2^31 (go.starlark.net allocates those ints);
//   - the general path (keywords, defaults, every error), which parses
//     the arguments and then runs the same check and the same kernel;
//   - the elementwise array path (docs/words.md): the first argument is a word
//     array, the other word arguments words or arrays of its length, and
//     the result an array computed by the array kernel in blocks.
//
// Each parameter's value travels as a uint64 in v[i] (ints as their two's
// complement, a numbering as its endgame.Numbering).
type wordOp struct {
	params []param
	// check validates one call's (or one element's) arguments and returns
	// the builtin's error naming the bad one through nm; nil: all valid.
	check func(fn string, v [4]uint64, nm *argNames) error
	// scalar computes the result of valid arguments.
	scalar func(v [4]uint64) uint64
	// array computes dst[i] from cols[p][i], every column as long as dst;
	// it returns false when some element fails check (the caller then
	// finds the first one with check). nil: no array form.
	array func(dst []uint64, cols [4][]uint64) bool

	nreq   int      // parameters without a default
	scalNm argNames // the names of a scalar call
}

// A paramKind says how an argument converts to its uint64.
type paramKind uint8

const (
	kWord      paramKind = iota // a word (docs/scripting.md); may be an array
	kWidth                      // 8, 16, 32 or 64; a scalar
	kCount                      // rotl's k: any int, kept modulo 64 (every width divides 64); may be an array
	kInt                        // an int of Go's int range (delta), range-checked by check; may be an array
	kPieces                     // n of a packed index: 1..endgame.MaxPieces; a scalar
	kNumbering                  // "natural" or "symmetric"; a scalar
)

type param struct {
	name string
	kind paramKind
	opt  bool   // has a default
	def  uint64 // the default
}

// newWordOp completes a declaration; the builtin is registered with
// Fn: op.call.
func newWordOp(op wordOp) *wordOp {
	for _, p := range op.params {
		if !p.opt {
			op.nreq++
		}
	}
	op.scalNm = argNames{params: op.params, at: -1}
	return &op
}

// argNames names the arguments in errors: "x" in a scalar call, "a[17]"
// for element 17 of the first argument (as docs/words.md writes it) and
// "mask[17]" for element 17 of another array argument.
type argNames struct {
	params []param
	at     int     // the element, or -1 in a scalar call
	arr    [4]bool // which arguments are arrays
}

func (nm *argNames) name(i int) string {
	switch {
	case nm.at < 0 || !nm.arr[i]:
		return nm.params[i].name
	case i == 0:
		return fmt.Sprintf("a[%d]", nm.at)
	}
	return fmt.Sprintf("%s[%d]", nm.params[i].name, nm.at)
}

// call is the builtin.
func (op *wordOp) call(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if v, ok := op.fast(args, kwargs); ok {
		if op.check != nil {
			if err := op.check(b.Name(), v, &op.scalNm); err != nil {
				return nil, err
			}
		}
		return starlark.MakeUint64(op.scalar(v)), nil
	}
	return op.general(thread, b, args, kwargs)
}

// fast converts the arguments of the common call: positional only, ints
// (a numbering as a string) within range of their kind. ok is false for
// anything else, which the general path then handles, errors included.
func (op *wordOp) fast(args starlark.Tuple, kwargs []starlark.Tuple) (v [4]uint64, ok bool) {
	if len(kwargs) != 0 || len(args) < op.nreq || len(args) > len(op.params) {
		return v, false
	}
	for i, a := range args {
		p := &op.params[i]
		if p.kind == kNumbering {
			s, ok := a.(starlark.String)
			if !ok {
				return v, false
			}
			m, ok := endgame.ParseNumbering(string(s))
			if !ok {
				return v, false
			}
			v[i] = uint64(m)
			continue
		}
		x, ok := a.(starlark.Int)
		if !ok {
			return v, false
		}
		n, ok := x.Int64()
		switch {
		case !ok && p.kind == kWord:
			u, ok := x.Uint64()
			if !ok {
				return v, false
			}
			v[i] = u
			continue
		case !ok:
			return v, false
		case p.kind == kWidth && n != 8 && n != 16 && n != 32 && n != 64:
			return v, false
		case p.kind == kPieces && (n < 1 || n > endgame.MaxPieces):
			return v, false
		}
		v[i] = uint64(n)
	}
	for i := len(args); i < len(op.params); i++ {
		v[i] = op.params[i].def
	}
	return v, true
}

// general parses any call, converting each argument by its kind with the
// bitsh errors, and dispatches a word array first argument to the array
// path.
func (op *wordOp) general(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	fn := b.Name()
	var raw [4]starlark.Value
	pairs := make([]any, 0, 2*len(op.params))
	for i, p := range op.params {
		name := p.name
		if p.opt {
			name += "?"
		}
		pairs = append(pairs, name, &raw[i])
	}
	if err := starlark.UnpackArgs(fn, args, kwargs, pairs...); err != nil {
		return nil, err
	}
	var v [4]uint64
	var cols [4][]uint64
	first, isArray := raw[0].(*Words)
	isArray = isArray && op.array != nil
	for i, p := range op.params {
		if raw[i] == nil {
			v[i] = p.def
			continue
		}
		if a, ok := raw[i].(*Words); ok && isArray && (p.kind == kWord || p.kind == kCount || p.kind == kInt) {
			if a.Len() != first.Len() {
				return nil, fmt.Errorf("%s: %s has %d words, want %d like the first argument", fn, p.name, a.Len(), first.Len())
			}
			if i > 0 {
				cols[i] = a.Uint64s()
			}
			continue
		}
		x, err := convertArg(fn, p, raw[i])
		if err != nil {
			return nil, err
		}
		v[i] = x
	}
	if isArray {
		return op.elementwise(thread, fn, first, v, cols)
	}
	if op.check != nil {
		if err := op.check(fn, v, &op.scalNm); err != nil {
			return nil, err
		}
	}
	return starlark.MakeUint64(op.scalar(v)), nil
}

// convertArg converts one scalar argument by its kind.
func convertArg(fn string, p param, x starlark.Value) (uint64, error) {
	switch p.kind {
	case kWidth:
		w, err := toWidth(fn, p.name, x)
		return uint64(w), err
	case kCount:
		var k starlark.Int
		if err := starlark.UnpackArg(x, &k); err != nil {
			return 0, fmt.Errorf("%s: for parameter %s: %s", fn, p.name, err)
		}
		// Any int works: reduce a huge one modulo 64 first.
		m, _ := k.Mod(starlark.MakeInt(64)).Int64()
		return uint64(m), nil
	case kInt:
		var n int
		if err := starlark.UnpackArg(x, &n); err != nil {
			return 0, fmt.Errorf("%s: for parameter %s: %s", fn, p.name, err)
		}
		return uint64(n), nil
	case kPieces:
		n, err := toInt(fn, p.name, x, 1, endgame.MaxPieces, "in")
		return uint64(n), err
	case kNumbering:
		m, err := toNumbering(fn, x)
		return uint64(m), err
	}
	w, err := toWord(fn, p.name, x)
	return uint64(w), err
}

// opBlock is the number of elements the array kernel gets at a time: the
// scalar arguments are broadcast into columns of this length once.
const opBlock = 512

// elementwise runs the array path for the array first: v holds the
// scalar arguments, cols the other array ones.
func (op *wordOp) elementwise(thread *starlark.Thread, fn string, first *Words, v [4]uint64, cols [4][]uint64) (starlark.Value, error) {
	n := first.Len()
	nm := argNames{params: op.params, at: -1}
	nm.arr[0] = true
	others := false
	for i := 1; i < len(op.params); i++ {
		nm.arr[i] = cols[i] != nil
		others = others || cols[i] != nil
	}
	if op.check == nil && len(op.params) == 1 && first.canDefer() {
		// Nothing can fail and the kernel is cheap: defer, so that a
		// chain makes one pass.
		if err := checkWords(thread, fn, n); err != nil {
			return nil, err
		}
		return first.deferred(first.asLazy().Map(op.blockMap(v))), nil
	}
	cols[0] = first.words()
	// Validate up front what the kernel does not: every element when some
	// other argument is an array, else the scalar arguments with element 0.
	if op.check != nil && n > 0 {
		lim := n
		if !others {
			lim = 1
		}
		if err := op.checkElems(thread, fn, v, cols, &nm, lim); err != nil {
			return nil, err
		}
	}
	if err := CheckAlloc(thread, fn, 8*int64(n)); err != nil {
		return nil, err
	}
	dst, err := makeSlice[uint64](thread, fn, n)
	if err != nil {
		return nil, err
	}
	blk := min(n, opBlock)
	var bcast []uint64
	ok := true
	var c [4][]uint64
	ctx := Context(thread)
	for lo := 0; lo < n; lo += blk {
		if lo%pollWords == 0 && ctx.Err() != nil { // blk divides pollWords
			return nil, interrupted(fn, ctx)
		}
		hi := min(lo+blk, n)
		for i := range op.params {
			if cols[i] != nil {
				c[i] = cols[i][lo:hi]
				continue
			}
			if bcast == nil {
				bcast = make([]uint64, len(op.params)*blk)
			}
			if c[i] == nil {
				c[i] = bcast[i*blk : (i+1)*blk]
				for j := range c[i] {
					c[i][j] = v[i]
				}
			}
			c[i] = c[i][:hi-lo]
		}
		ok = op.array(dst[lo:hi], c) && ok
	}
	if !ok {
		if err := op.checkElems(thread, fn, v, cols, &nm, n); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: internal error: the array kernel rejected an element that check accepts", fn)
	}
	return NewWords(dst), nil
}

// blockMap returns the array kernel as a words.Lazy step, with the scalar
// arguments v broadcast once into columns of a block.
func (op *wordOp) blockMap(v [4]uint64) func(dst, src []uint64) {
	var bcast [4][]uint64
	for i := 1; i < len(op.params); i++ {
		bcast[i] = make([]uint64, words.Block)
		for j := range bcast[i] {
			bcast[i][j] = v[i]
		}
	}
	return func(dst, src []uint64) {
		c := bcast
		c[0] = src
		for i := 1; i < len(op.params); i++ {
			c[i] = c[i][:len(src)]
		}
		op.array(dst, c)
	}
}

// checkElems runs check on elements 0..lim-1 and returns the first error,
// or the interruption when the run of thread is cancelled meanwhile.
func (op *wordOp) checkElems(thread *starlark.Thread, fn string, v [4]uint64, cols [4][]uint64, nm *argNames, lim int) error {
	ctx := Context(thread)
	for j := 0; j < lim; j++ {
		if j%pollWords == 0 && ctx.Err() != nil {
			return interrupted(fn, ctx)
		}
		for i := range op.params {
			if cols[i] != nil {
				v[i] = cols[i][j]
			}
		}
		nm.at = j
		if err := op.check(fn, v, nm); err != nil {
			return err
		}
	}
	return nil
}
