// Package compile translates a Starlark def or lambda into the IR of
// package fuse: a Func, with loops, tables, scratch arrays and inlined
// helpers (docs/fuse.md). It knows the Starlark syntax tree and values but
// not bitsh's bindings: what it needs of them (the source of a helper, the
// words of an array) comes through Options.
package compile

import (
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins/bitops"
	"github.com/bitsh/bitsh/builtins/debruijn"
	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Error is a construct outside the fused subset, at a position of the
// function's source.
type Error struct {
	Pos syntax.Position
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

func errAt(pos syntax.Position, format string, args ...any) error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// A Source is one def or lambda and how the names it does not bind resolve.
type Source struct {
	Name   string
	Params []*syntax.Ident
	Body   []syntax.Stmt   // a lambda's body is one return statement
	End    syntax.Position // where a body that ends without return ends
	// Free resolves a name that is neither a parameter nor a local.
	Free func(name string) (starlark.Value, bool)
	// Builtin reports whether name, called, is bitsh's builtin of that
	// name (and not a script's own function that shadows it).
	Builtin func(name string) bool
}

// Options is what the compiler needs of bitsh's bindings.
type Options struct {
	// Helper returns the Source of a Starlark function that the fused
	// function calls.
	Helper func(fn *starlark.Function) (*Source, error)
	// Words returns the words of a word array (ok false for other values).
	Words func(v starlark.Value) ([]uint64, bool)
	// Known reports whether name is one of bitsh's builtins at all, for
	// the message that says it cannot be used in a fused function.
	Known func(name string) bool
	// CheckOnly compiles without running the script (for editors and
	// bitsh check): a helper's call is taken to return a word, unless Defs
	// gives the helper's def.
	CheckOnly bool
	// Defs returns, with CheckOnly, the def a name of the script binds at
	// top level, so that its body is checked as fuse would compile it.
	Defs func(name string) (*Source, bool)
	// Stop, polled every few hundred statements compiled (and every few
	// thousand elements of a table copied), returns an error to end the
	// compilation with (a cancelled run); nil: never.
	Stop func() error
	// Reserve is asked before the compiler copies a table of bytes from
	// a Starlark list or tuple: an error (the memory budget's) ends the
	// compilation with it; nil: never refused.
	Reserve func(bytes int64) error
	// KeepTailCalls leaves a helper's calls of itself in tail position as
	// calls (fuse.Func.TailCalls not run): for tests that compare.
	KeepTailCalls bool
	// KeepLoops leaves an exact function's loops as translated
	// (fuse.Func.HoistInvariants and StrengthReduce not run): for tests
	// that compare.
	KeepLoops bool
	// Exact compiles a plain function to run as machine code in its
	// interpreter's place (docs/performance.md, "Plain functions as
	// machine code"): 1 to MaxExactParams parameters, the body typed as
	// Starlark types it (True, False, comparisons and the logical
	// operators only as conditions), constants folded as integers, the
	// chess module refused, then fuse.Func.Exact. There a function may
	// also return None (no return with a value: fuse.Func.ReturnsNone;
	// a helper's call as a statement only) or, the function itself, a
	// tuple of words (fuse.Func.Results).
	Exact bool
	// Lists, with Exact, gives for each parameter the length of the list
	// the caller passes, which the function takes as an array parameter
	// (fuse.Func.Arrays, in the order of the parameters), or -1 for a
	// word; nil: every parameter is a word.
	Lists []int
	// Bools, with Exact, where not nil, says for each parameter whether
	// the caller passes a bool (True or False, as the word 1 or 0): the
	// function reads it as a variable holding a bool (fuse.Func.BoolParams).
	Bools []bool
	// ListBias, where not nil, gives for each list of Lists the least int
	// its elements may hold, negated (k: ints from -k, as the biased words
	// x + k of fuse.Scratch.Bias), or 0 for words.
	ListBias []uint64
	// Globals, with Exact, are the module-level lists the function (or a
	// helper it calls) writes, each an array parameter after those of
	// Lists (Global).
	Globals []Global
	// Hashes, with Exact, where not nil, says for each parameter whether
	// the caller passes a set (HashSet) or a dict (HashDict), which the
	// function takes as a table in array parameters (HashScratch's), after
	// those of the Globals, in the order of the parameters.
	Hashes []int
	// CallOut, with Exact, where not nil, names the helpers that stay
	// interpreted: each call of one is a callout (callout.go), its
	// arguments words or bools, its result an int, a bool or dropped.
	CallOut func(fn *starlark.Function) bool
	// visits, where not nil, counts the syntax nodes looked at to find
	// expressions' positions (the test that compiling is linear).
	visits *int
}

// A Refused value stands, among Source.Free's answers, for a free name
// that the compiler must not read, with the reason, which completes a
// sentence after the name ("is a list, which may change between calls").
// Value, where not nil, is the value refused (a list the function may
// write: GlobalArray).
type Refused struct {
	Reason string
	Value  starlark.Value
}

func (r Refused) String() string        { return "<refused: " + r.Reason + ">" }
func (r Refused) Type() string          { return "refused" }
func (r Refused) Freeze()               {}
func (r Refused) Truth() starlark.Bool  { return false }
func (r Refused) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: refused") }

// MaxExactParams bounds the parameters of a function compiled with
// Options.Exact.
const MaxExactParams = 16

// Limits on scratch arrays.
const (
	MaxScratch      = 1 << 20 // elements of one scratch array
	MaxScratchWords = 1 << 22 // elements of all scratch arrays of a function
	maxInline       = 1 << 10 // helper calls inlined into one function; past it, helpers run as calls
	maxTableWords   = 1 << 26 // words of all tables of a function
)

// isWordBuiltin reports whether name is a word builtin (bitops declares
// them), which a fused body may call.
func isWordBuiltin(name string) bool {
	_, ok := bitops.Lookup(name)
	return ok
}

// binding is what a name means in a scope.
type binding struct {
	kind  int // bVar, bScratch, bRow
	id    int // variable, scratch array
	table int // bRow: the table whose row the variable indexes
	// bias: a bVar first assigned a read of a biased scratch array
	// (Options.Exact) holds its int x as the word x + bias, as the array
	// does (scratchAssign, assignVar).
	bias uint64
	// count, for a bScratch, is 1 + the variable holding the length of a
	// list built by append (growAssign; the array's Len is its capacity,
	// ListCap), or 0 for an array of fixed length.
	count int
}

// ListCap is the capacity of a list a function compiled with
// Options.Exact builds by append (name = [], name.append(x)) in its body
// or a helper inlined there: an append past it fails the item. A helper
// run as a call (a Proc, whose every frame holds its own lists), and a
// function compiled for fuse, build lists of ProcListCap.
const (
	ListCap     = 1 << 16
	ProcListCap = 1 << 10
)

// listCap returns the capacity of the lists the unit being compiled
// builds by append, and of its lists [V] * N of a length known at run
// time (1 << listBits of it).
func (c *compiler) listCap() (capacity int, listBits uint64) {
	if c.unit < 0 && c.opt.Exact {
		return ListCap, 16
	}
	return ProcListCap, 10
}

const (
	bVar = iota
	bScratch
	bRow
)

// scope is one function being compiled (the fused one or an inlined helper).
type scope struct {
	src      *Source
	names    map[string]binding
	locals   map[string]bool
	loopVars map[string]bool // the names a for loop binds (never biased)
	tables   map[string]int  // free names read as tables
	// retVar and retLabel: where a helper's return stores its value and
	// the block it leaves; the fused function itself has retLabel -1.
	retVar, retLabel int
	retBias          uint64 // the returns, of the function or an inlined helper: biased by it (signedmod.go)
	loops            []int  // labels of the enclosing loops, innermost last
	// proc: the scope is a helper compiled as a fuse.Proc (its return is
	// an SReturn, as the fused function's).
	proc bool
	// none (Options.Exact): the function returns None, which its returns
	// and its end compile as 0; tuple: it returns tuples of words, stored
	// in the array parameter tupleArr.
	none            bool
	tuple, tupleArr int
	// tupleVars (Options.Exact, an inlined helper whose caller unpacks
	// the tuple it returns: a, b = h(x)) are the caller's variables its
	// return assigns (tuplecalls.go).
	tupleVars     []int
	list          bool // it returns lists of tuple words (fresh ones)
	returnedParam int  // the array parameter it returns (ReturnsParam), or -1
	// appended are the names the unit calls append on (lists it builds);
	// byRef the parameters of an inlined helper bound to its caller's
	// arrays; retArr, of an inlined helper that returns an array, the
	// array (set at its first return), and retWord whether it returned
	// a word.
	appended  map[string]bool
	byRef     map[string]bool
	retArr    *binding
	retWord   bool
	retShared bool // the array returned may be the caller's

	// negBias (Options.Exact): the bias of each local that some
	// assignment gives a negative int constant (signedLocals).
	negBias map[string]uint64
	// signed (Options.Exact): the names that may hold a negative int of
	// a table a for loop walks, and those assigned from them
	// (signedloops.go).
	signed map[string]uint64
	// boolLists (Options.Exact): the names assigned lists of bools, each
	// with nil or the error of a use they do not allow (boollists.go).
	boolLists map[string]error
	// wide (Options.Exact, the function's own scope): its ints past 64
	// bits (wide.go); frees and konsts, the ints of the free names and
	// of the expressions bigConst looked at (nil: not an int constant).
	wide   *wideInfo
	frees  map[string]*big.Int
	konsts map[syntax.Expr]*big.Int
}

type compiler struct {
	opt     Options
	f       *fuse.Func
	proc    *fuse.Proc // the unit being compiled: its variables, labels and scratch arrays
	out     *[]fuse.Stmt
	scope   *scope
	calls   []string // helpers being inlined into the unit
	inlined int
	procs   map[procKey]int // the helpers compiled as Procs
	// preferred are the helpers that run as calls wherever they are
	// called, where recursion is best broken (cycles.go).
	preferred map[any]bool
	chess     chessTables  // the chess module's tables, once used
	depths    []depthCheck // the checks of calls, whose message names the depth
	polls     int          // statements compiled, for Options.Stop
	// madeExact are the expressions the lowering makes whose words are exact
	// by construction (Options.Exact; see fuse.Func.Exact).
	madeExact map[*fuse.Expr]bool
	pos       map[*fuse.Expr]syntax.Position // each expression's source position, for messages
	// starts are the starts of the nodes that start with their first
	// operand (start).
	starts map[syntax.Node]syntax.Position
	// biased are the reads of biased scratch arrays (fuse.Scratch.Bias),
	// element less bias, with their array's bias: a comparison or a store
	// takes the element itself (biasedTo).
	biased map[*fuse.Expr]uint64
	// unit is the Proc being compiled (-1: the function's body), varNames
	// the Starlark names of the units' variables, for GuardUnassigned.
	unit     int
	varNames map[[2]int]string
	// discarded are the calls whose value a statement drops (a call of a
	// function that returns None must be one, with Options.Exact), and
	// none caches whether a helper returns None.
	discarded map[*syntax.CallExpr]bool
	returns   map[any]helperReturns // what each helper returns, read once
	returned  bool                  // a list was returned (the returned array's bias is set)
	// wantArray are the calls whose value may be an array (name = f(...),
	// for x in f(...)); arrays maps the expression such a call gives
	// (an OpArray) to its array; iterating are the arrays for loops run
	// over, which their bodies may not change.
	wantArray map[*syntax.CallExpr]bool
	arrays    map[*fuse.Expr]binding
	unshared  map[*fuse.Expr]bool // the arrays among them no other name holds
	aliased   map[arrayOf]bool    // arrays two names may hold (bindArray)
	iterating map[arrayOf]bool
	// boolArrays are the scratch arrays that hold bools (boollists.go).
	boolArrays map[arrayOf]bool
	// grids are the scratch arrays that hold lists of lists: their rows
	// and columns (grids.go).
	grids map[arrayOf][2]uint64
	// garr maps each of Options.Globals to the unit's array parameter
	// that holds it (-1: the unit reaches no use of it), procGlobals the
	// Globals each Proc takes, in order (globals.go); tableLists the
	// module-level list each table read from one was (a write to it is a
	// GlobalArray).
	garr        []int
	procGlobals map[int][]int
	usesGlobals map[any][]int
	tableLists  map[int]*starlark.List
	// shapes are the tables' biases and strides, where not zero
	// (tuples.go).
	shapes map[int]tableShape
	// hashes are the sets and dicts the function makes or its module's
	// it takes (hashes.go); globalHashes the index of each unit's table
	// of one of the Globals, by its first array.
	hashes       []*hashTable
	globalHashes map[arrayOf]int
	// reuse is the probe of `if k not in s: s.add(k)` that the add takes
	// (hashreuse.go).
	reuse *probeReuse
	// hooks are the statements a comprehension's loops run innermost
	// (lists.go), compiled by their function.
	hooks map[syntax.Stmt]func() error
	// hidden are the names a comprehension binds whose binding in the
	// scope is the function's own until the comprehension binds them
	// (unhide).
	hidden map[hiddenName]bool
	// wantTuple are the calls of helpers whose tuple the caller unpacks,
	// with the variables that get its words (tupleCall).
	wantTuple map[*syntax.CallExpr][]int
	// keyKinds are the keys of each set and dict, words or tuples, as its
	// uses so far have them (tuplekeys.go).
	keyKinds map[*hashTable]*keyKind
	// tupleLists are the lists of tuples of the units, and tupleListsOf
	// the names of each scope that hold one (tuplelists.go).
	tupleLists   []*tupleList
	tupleListsOf map[*scope]tupleNamesOf
	tupleLocals  [][]int // the variables of each tuple local (tuplelocals.go)
}

// arrayOf names a scratch array of a unit.
type arrayOf struct {
	proc *fuse.Proc
	id   int
}

// procKey is a helper compiled for one kind of each argument: a word, a
// scratch array of one length and value, or a table. fn is the helper's
// *starlark.Function, or its name where the checker compiles a def it has
// not run.
type procKey struct {
	fn   any
	args string
}

// helperOf is a function a fused body calls: its identity (the
// *starlark.Function, nil for a def the checker reads by name), its name,
// and how to get its source.
type helperOf struct {
	id     *starlark.Function
	name   string
	source func() (*Source, error)
}

func (h helperOf) key() any {
	if h.id != nil {
		return h.id
	}
	return h.name
}

// depthCheck is the check of a call of a Proc, and the chain of calls
// that leads to it ("find -> find").
type depthCheck struct {
	check int
	chain string
}

// Func compiles src into a Func.
func Func(src *Source, opt Options) (*fuse.Func, error) {
	if opt.Exact {
		if len(src.Params) > MaxExactParams {
			return nil, fmt.Errorf("a function run as machine code takes 0 to %d parameters, not %d", MaxExactParams, len(src.Params))
		}
	} else if len(src.Params) < 1 || len(src.Params) > 3 {
		return nil, fmt.Errorf("a fused function takes 1 to 3 parameters, not %d", len(src.Params))
	}
	c := &compiler{opt: opt, f: &fuse.Func{Params: len(src.Params)}, proc: &fuse.Proc{}, procs: map[procKey]int{}, madeExact: map[*fuse.Expr]bool{}, pos: map[*fuse.Expr]syntax.Position{},
		unit: -1, varNames: map[[2]int]string{}, procGlobals: map[int][]int{}, usesGlobals: map[any][]int{}, discarded: map[*syntax.CallExpr]bool{}, returns: map[any]helperReturns{},
		wantArray: map[*syntax.CallExpr]bool{}, arrays: map[*fuse.Expr]binding{}, unshared: map[*fuse.Expr]bool{}, aliased: map[arrayOf]bool{}, iterating: map[arrayOf]bool{}}
	src = withDictPairs(src, opt.Exact) // (dictpairs.go)
	if err := c.checkLiterals(src); err != nil {
		return nil, err
	}
	c.preferred = c.preferredProcs(src)
	sc := c.newScope(src)
	sc.retLabel = -1
	if opt.Exact {
		sc.retBias = c.returnBias(sc) // (signedmod.go)
		c.f.ResultBias = sc.retBias
	}
	if opt.Exact {
		sc.wide = c.wideLocals(sc)
	}
	if opt.Lists != nil && (!opt.Exact || len(opt.Lists) != len(src.Params)) || opt.ListBias != nil && len(opt.ListBias) != len(opt.Lists) {
		return nil, fmt.Errorf("Options.Lists takes Exact and a length for each of the %d parameters (and ListBias a bias)", len(src.Params))
	}
	if opt.Bools != nil && (!opt.Exact || len(opt.Bools) != len(src.Params)) {
		return nil, fmt.Errorf("Options.Bools takes Exact and a flag for each of the %d parameters", len(src.Params))
	}
	for i, p := range src.Params {
		if opt.Hashes != nil && opt.Hashes[i] != 0 {
			continue // (bound after the Globals: hashParams)
		}
		if opt.Lists != nil && opt.Lists[i] >= 0 {
			if opt.Lists[i] > MaxScratch {
				return nil, fmt.Errorf("%s is a list of %d elements; a list passed to a function run as machine code has at most %d", p.Name, opt.Lists[i], MaxScratch)
			}
			var bias uint64
			if opt.ListBias != nil {
				bias = opt.ListBias[i]
			}
			c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: p.Name, Len: opt.Lists[i], Init: bias, Bias: bias})
			sc.names[p.Name] = binding{kind: bScratch, id: c.proc.Arrays}
			c.proc.Arrays++
			continue
		}
		v := c.newVar()
		sc.names[p.Name] = binding{kind: bVar, id: v}
		if opt.Bools != nil && opt.Bools[i] {
			for len(c.f.BoolParams) <= v {
				c.f.BoolParams = append(c.f.BoolParams, false)
			}
			c.f.BoolParams[v] = true
		}
	}
	c.f.Params = c.proc.Vars
	if len(opt.Globals) > 0 && !opt.Exact {
		return nil, fmt.Errorf("Options.Globals takes Exact")
	}
	all := make([]int, len(opt.Globals))
	for i := range all {
		all[i] = i
	}
	garr, err := c.globalParams(c.proc, all)
	if err != nil {
		return nil, err
	}
	c.garr = garr
	if err := c.hashParams(src, sc, opt); err != nil {
		return nil, err
	}
	if err := c.bindGlobals(sc, c.garr); err != nil {
		return nil, err
	}
	if opt.Exact {
		r := returnsOf(src.Body)
		n, err := returnedList(src, r, opt.Lists)
		if err != nil {
			return nil, err
		}
		given := returnedParam(src, r, opt.Lists)
		switch {
		case given >= 0:
			// The list it was given, itself.
			sc.returnedParam = given
			c.f.ReturnsParam = given + 1
		case n >= 0:
			// A fresh list, copied into the returned array (whose bias
			// is the list's, set where it is returned).
			sc.tuple, sc.tupleArr, sc.list = n, c.proc.Arrays, true
			c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: "the returned list", Len: n})
			c.proc.Arrays++
			c.f.Results, c.f.ReturnsList = n, true
		case len(r.tuples) > 0 && (r.values > 0 || r.bare > 0):
			return nil, fmt.Errorf("the function returns a tuple on some paths and %s on others", r.other())
		case len(r.tuples) > 0:
			for _, n := range r.tuples[1:] {
				if n != r.tuples[0] {
					return nil, fmt.Errorf("the function returns tuples of %d and of %d values", r.tuples[0], n)
				}
			}
			sc.tuple, sc.tupleArr = r.tuples[0], c.proc.Arrays
			c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: "the returned tuple", Len: sc.tuple})
			c.proc.Arrays++
			c.f.Results = sc.tuple
		case r.values == 0:
			sc.none = true
			c.f.ReturnsNone = true
		}
	}
	c.f.Arrays = c.proc.Arrays
	var body []fuse.Stmt
	c.out = &body
	c.scope = sc
	if err := c.stmts(src.Body); err != nil {
		return nil, err
	}
	c.end(src)
	c.f.Body = body
	c.f.Vars, c.f.Labels, c.f.Scratch = c.proc.Vars, c.proc.Labels, c.proc.Scratch
	n := c.f.ScratchWords() / 2
	if n > MaxScratchWords {
		return nil, fmt.Errorf("the scratch arrays of a fused function hold at most %d words in all, not %d", MaxScratchWords, n)
	}
	if err := c.passes(opt); err != nil {
		return nil, err
	}
	return c.f, nil
}

// passes runs the passes over the translated Func that read what only the
// translation knows (the names of variables, the positions of
// expressions), in this order; each is a method of fuse.Func, and the
// front door (builtins/machine) runs what follows them: Func.StraightLine
// for a fused function, then the engine's own lowering.
//
//  1. GuardUnassigned: a read of a local that may not be assigned fails as
//     Starlark's does.
//  2. The recursion's depth, and its check's message, where there are
//     helpers (Procs).
//  3. TailCalls (fused), or LeafTailCalls (exact: only in helpers that make
//     no other call, so that the jumps count as the interpreter's frames).
//  4. Exact (Options.Exact): Starlark's ints exactly, or a failure.
//  5. HoistInvariants (Options.Exact): a range loop's invariant
//     expressions computed once before it, their checks' failures kept.
//  6. StrengthReduce (Options.Exact): a range loop's products by wide
//     constants that Exact left unchecked as running sums.
func (c *compiler) passes(opt Options) error {
	at := func(e *fuse.Expr) (file string, line, col int) {
		p, ok := c.pos[e]
		if !ok {
			return "", 0, 0
		}
		return p.Filename(), int(p.Line), int(p.Col)
	}
	c.f.GuardUnassigned(func(proc, v int) string {
		if name, ok := c.varNames[[2]int{proc, v}]; ok {
			return name
		}
		return "a variable"
	}, at)
	if len(c.f.Procs) > 0 {
		n := c.f.ScratchWords() / 2
		c.f.Depth = c.f.DepthFor(2 * (MaxScratchWords - n))
		if c.f.Depth < 2 {
			return fmt.Errorf("the scratch arrays of a fused function hold at most %d words in all: too few for two calls of its helpers", MaxScratchWords)
		}
		for _, d := range c.depths {
			c.f.Checks[d.check].Msg = fmt.Sprintf("recursion deeper than %d calls (%s -> ...)", c.f.Depth, d.chain)
		}
		switch {
		case opt.KeepTailCalls:
		case opt.Exact:
			c.f.LeafTailCalls()
		default:
			c.f.TailCalls()
		}
	}
	if opt.Exact {
		if err := c.f.Exact(c.madeExact, at); err != nil {
			return err
		}
		if !opt.KeepLoops {
			c.f.HoistInvariants()
			c.f.StrengthReduce()
		}
	}
	return nil
}

func (c *compiler) newScope(src *Source) *scope {
	sc := &scope{src: src, names: map[string]binding{}, locals: map[string]bool{}, loopVars: map[string]bool{}, tables: map[string]int{},
		byRef: map[string]bool{}, returnedParam: -1}
	for _, p := range src.Params {
		sc.locals[p.Name] = true
	}
	sc.appended = appendedNames(src.Body)
	var fors []*syntax.ForStmt
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				markLocals(sc.locals, n.LHS)
			case *syntax.ForStmt:
				markLocals(sc.locals, n.Vars)
				fors = append(fors, n)
			case *syntax.LambdaExpr, *syntax.DefStmt:
				return false
			}
			return true
		})
	}
	for _, n := range fors {
		if !overTable(n, sc.locals) {
			// The names a loop over a table binds are assigned as
			// other locals are (forTable), so that they may hold a
			// biased table's ints.
			markLocals(sc.loopVars, n.Vars)
		}
	}
	if c.opt.Exact {
		sc.negBias = c.signedLocals(sc)
		sc.signed = signedNames(sc)
		sc.boolLists = boolListUses(src.Body)
	}
	return sc
}

// appendedNames returns the names body builds lists in: those it calls
// append on, and those it assigns list literals of two lengths (a list
// built by append holds up to ListCap elements).
func appendedNames(body []syntax.Stmt) map[string]bool {
	appended := map[string]bool{}
	literal := map[string]int{}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				if dot, ok := n.Fn.(*syntax.DotExpr); ok && (dot.Name.Name == "append" || dot.Name.Name == "pop" || dot.Name.Name == "insert" ||
					dot.Name.Name == "remove" || dot.Name.Name == "extend" || dot.Name.Name == "clear") {
					if id, ok := dot.X.(*syntax.Ident); ok {
						appended[id.Name] = true
					}
				}
			case *syntax.AssignStmt:
				if id, ok := n.LHS.(*syntax.Ident); ok && n.Op == syntax.EQ {
					if comp, ok := unparen(n.RHS).(*syntax.Comprehension); ok && !comp.Curly {
						appended[id.Name] = true // compAssign
					}
					if call, ok := unparen(n.RHS).(*syntax.CallExpr); ok {
						if name, ok := callee(call); ok && name == "sorted" {
							appended[id.Name] = true // sortedAssign
						}
					}
					if sl, ok := unparen(n.RHS).(*syntax.SliceExpr); ok && sl.Step == nil {
						appended[id.Name] = true // sliceAssign
					}
					if l, ok := unparen(n.RHS).(*syntax.ListExpr); ok {
						if m, seen := literal[id.Name]; seen && m != len(l.List) {
							appended[id.Name] = true
						}
						literal[id.Name] = len(l.List)
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			return true
		})
	}
	return appended
}

func markLocals(locals map[string]bool, lhs syntax.Expr) {
	switch l := lhs.(type) {
	case *syntax.Ident:
		locals[l.Name] = true
	case *syntax.TupleExpr:
		for _, x := range l.List {
			markLocals(locals, x)
		}
	case *syntax.ListExpr:
		for _, x := range l.List {
			markLocals(locals, x)
		}
	case *syntax.ParenExpr:
		markLocals(locals, l.X)
	}
}

func (c *compiler) newVar() int {
	c.proc.Vars++
	return c.proc.Vars - 1
}

func (c *compiler) newLabel() int {
	c.proc.Labels++
	return c.proc.Labels - 1
}

// emit appends s to the statements being compiled, unless they already
// leave (s would never run).
func (c *compiler) emit(s fuse.Stmt) {
	if !fuse.Leaves(*c.out) {
		*c.out = append(*c.out, s)
	}
}

// check records a check's message and returns its index.
func (c *compiler) check(kind fuse.CheckKind, imm uint64, at syntax.Position, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	if c.scope != nil && (c.scope.retLabel >= 0 || c.scope.proc) {
		msg += " (in " + c.scope.src.Name + ")"
	}
	var file string
	if at.IsValid() {
		file = at.Filename()
	}
	c.f.Checks = append(c.f.Checks, fuse.Check{Kind: kind, Imm: imm, Msg: msg, File: file, Line: int(at.Line), Col: int(at.Col)})
	return len(c.f.Checks) - 1
}

// nested compiles fn into a separate statement list.
func (c *compiler) nested(fn func() error) ([]fuse.Stmt, error) {
	saved := c.out
	var ss []fuse.Stmt
	c.out = &ss
	err := fn()
	c.out = saved
	return ss, err
}

func (c *compiler) stmts(ss []syntax.Stmt) error {
	for _, s := range ss {
		if err := c.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

var augOps = map[syntax.Token]syntax.Token{syntax.PLUS_EQ: syntax.PLUS, syntax.MINUS_EQ: syntax.MINUS,
	syntax.STAR_EQ: syntax.STAR, syntax.SLASHSLASH_EQ: syntax.SLASHSLASH, syntax.PERCENT_EQ: syntax.PERCENT,
	syntax.AMP_EQ: syntax.AMP, syntax.PIPE_EQ: syntax.PIPE, syntax.CIRCUMFLEX_EQ: syntax.CIRCUMFLEX,
	syntax.LTLT_EQ: syntax.LTLT, syntax.GTGT_EQ: syntax.GTGT}

func (c *compiler) stmt(s syntax.Stmt) error {
	if c.polls++; c.polls%256 == 0 && c.opt.Stop != nil {
		if err := c.opt.Stop(); err != nil {
			return err
		}
	}
	if hook, ok := c.hooks[s]; ok {
		return hook()
	}
	switch s := s.(type) {
	case *syntax.ExprStmt:
		if lit, ok := s.X.(*syntax.Literal); ok && lit.Token == syntax.STRING {
			return nil // a docstring
		}
		if call, ok := s.X.(*syntax.CallExpr); ok {
			c.discarded[call] = true
			if c.isPrint(call) {
				return c.printStmt(call) // a callout (print.go)
			}
			if c.isEmit(call) {
				return c.emitStmt(call)
			}
			if c.isFail(call) {
				return c.failStmt(call) // (callout.go)
			}
			if dot, ok := call.Fn.(*syntax.DotExpr); ok && dot.Name.Name == "append" {
				if id, ok := dot.X.(*syntax.Ident); ok {
					if b, ok := c.scope.names[id.Name]; ok && b.kind == bScratch && b.count != 0 {
						return c.appendTo(id, b, call)
					}
					if b, ok := c.scope.names[id.Name]; ok && b.kind == bLog {
						return c.logAppend(id, b, call)
					}
					if tl, _, ok := c.tupleListNamed(id); ok {
						return c.tupleListAppend(tl, id, call)
					}
					if _, _, ok := c.freeList(c.scope, id); ok && c.opt.Exact {
						_, err := c.expr(s.X)
						if err == nil {
							err = errAt(call.Lparen, "%s.append on a module's list", id.Name)
						}
						return c.globalArrayOf(id, true, err)
					}
				}
			}
		}
		x, err := c.expr(s.X)
		if err != nil {
			return err
		}
		if x.Op != fuse.OpConst && x.Op != fuse.OpVar {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.newVar(), X: x})
		}
		return nil
	case *syntax.AssignStmt:
		return c.assign(s)
	case *syntax.IfStmt:
		c.reuse = notInThenAdd(s) // hashreuse.go
		cond, err := c.condExpr(s.Cond)
		if err != nil {
			return err
		}
		then, err := c.nested(func() error { return c.stmts(s.True) })
		if err != nil {
			return err
		}
		els, err := c.nested(func() error { return c.stmts(s.False) })
		if err != nil {
			return err
		}
		if cond.Op == fuse.OpConst {
			if cond.Imm != 0 {
				*c.out = append(*c.out, then...)
			} else {
				*c.out = append(*c.out, els...)
			}
			return nil
		}
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: cond, Body: then, Else: els})
		return nil
	case *syntax.WhileStmt:
		label := c.newLabel()
		// The condition runs before every iteration: its own statements
		// (helpers it calls) go into the loop as "if not cond: break".
		var cond *fuse.Expr
		pre, err := c.nested(func() error {
			var err error
			cond, err = c.condExpr(s.Cond)
			return err
		})
		if err != nil {
			return err
		}
		body, err := c.loopBody(label, s.Body)
		if err != nil {
			return err
		}
		if len(pre) == 0 {
			c.emit(fuse.Stmt{Kind: fuse.SWhile, Label: label, X: cond, Body: body})
			return nil
		}
		guard := append(pre, fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpLNot, cond),
			Body: []fuse.Stmt{{Kind: fuse.SBreak, Label: label}}})
		c.emit(fuse.Stmt{Kind: fuse.SWhile, Label: label, X: constExpr(1), Body: append(guard, body...)})
		return nil
	case *syntax.ForStmt:
		return c.forStmt(s)
	case *syntax.ReturnStmt:
		if s.Result == nil {
			if !c.scope.none {
				return errAt(s.Return, "return without a value is not allowed in a fused function (it returns a word)")
			}
			c.ret(constExpr(0))
			return nil
		}
		if ce, ok := unparen(s.Result).(*syntax.CondExpr); ok && c.scope.retBias > 0 {
			return c.condReturn(s, ce) // (signedmod.go)
		}
		if t, ok := unparen(s.Result).(*syntax.TupleExpr); ok && c.scope.tupleVars != nil {
			return c.tupleReturn(s, t)
		}
		if t, ok := unparen(s.Result).(*syntax.TupleExpr); ok {
			if c.scope.tuple == 0 {
				return errAt(s.Return, "a fused function returns one word, not a tuple")
			}
			// Every element, then the return: an element that fails
			// fails the run before it returns.
			for i, e := range t.List {
				x, err := c.word(e)
				if err != nil {
					return err
				}
				c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: c.scope.tupleArr, X: constExpr(uint64(i)), Y: x, Check: -1})
			}
			c.ret(constExpr(0))
			return nil
		}
		if c.scope.returnedParam >= 0 {
			c.ret(constExpr(0)) // the binding returns the list given
			return nil
		}
		if c.scope.list {
			id, _ := unparen(s.Result).(*syntax.Ident)
			b, ok := c.scope.names[id.Name]
			if !ok || b.kind != bScratch || b.id < c.proc.Arrays {
				return errAt(s.Return, "%s is not a list the function made (list(a), [V] * N)", id.Name)
			}
			src := c.proc.Scratch[b.id]
			ret := &c.proc.Scratch[c.scope.tupleArr]
			if src.Len != ret.Len || c.returned && src.Bias != ret.Bias {
				return errAt(s.Return, "the function returns lists of other lengths or ranges of ints")
			}
			ret.Init, ret.Bias, c.returned = src.Bias, src.Bias, true
			n := constExpr(uint64(src.Len))
			if b.count != 0 {
				n = varExpr(b.count - 1)
			}
			c.copyArray(c.scope.tupleArr, b.id, src.Len, n, s.Return)
			c.ret(n) // the list's length
			return nil
		}
		if id, ok := unparen(s.Result).(*syntax.Ident); ok && c.scope.retLabel >= 0 {
			if b, ok := c.scope.names[id.Name]; ok && b.kind == bScratch {
				// An inlined helper returns its array (or its caller's):
				// the caller names it.
				if c.scope.retWord || c.scope.retArr != nil && c.scope.retArr.id != b.id {
					return errAt(s.Return, "the helper returns other lists or words on other paths")
				}
				c.scope.retArr = &b
				c.scope.retShared = c.scope.retShared || c.scope.byRef[id.Name]
				c.emit(fuse.Stmt{Kind: fuse.SBreak, Label: c.scope.retLabel})
				return nil
			}
		}
		v, err := c.word(s.Result)
		if err != nil {
			return err
		}
		if c.scope.retArr != nil {
			return errAt(s.Return, "the helper returns a list on other paths")
		}
		c.scope.retWord = true
		c.ret(v)
		return nil
	case *syntax.BranchStmt:
		switch s.Token {
		case syntax.PASS:
			return nil
		case syntax.BREAK, syntax.CONTINUE:
			if len(c.scope.loops) == 0 {
				return errAt(s.TokenPos, "%s outside a loop", s.Token)
			}
			kind := fuse.SBreak
			if s.Token == syntax.CONTINUE {
				kind = fuse.SContinue
			}
			c.emit(fuse.Stmt{Kind: kind, Label: c.scope.loops[len(c.scope.loops)-1]})
			return nil
		}
		return errAt(s.TokenPos, "%s is not allowed in a fused function", s.Token)
	case *syntax.DefStmt:
		return errAt(s.Def, "def is not allowed in a fused function (define the helper at top level and call it)")
	case *syntax.LoadStmt:
		return errAt(s.Load, "load is not allowed in a fused function")
	}
	start, _ := s.Span()
	return errAt(start, "this statement is not allowed in a fused function")
}

// loopBody compiles the body of the loop with label.
func (c *compiler) loopBody(label int, body []syntax.Stmt) ([]fuse.Stmt, error) {
	c.scope.loops = append(c.scope.loops, label)
	defer func() { c.scope.loops = c.scope.loops[:len(c.scope.loops)-1] }()
	return c.nested(func() error { return c.stmts(body) })
}

func (c *compiler) forStmt(s *syntax.ForStmt) error {
	// The loops of a form of their own, tried in order: each reports
	// whether s is of its form (and then compiles it).
	for _, form := range [...]func(*syntax.ForStmt) (bool, error){
		c.forEnumerate, c.forReversed, c.forTupleList, c.forLiteralTuples,
		c.forSorted, c.forSlice, c.forZip, c.forTable, c.forHash,
	} {
		if ok, err := form(s); ok || err != nil {
			return err
		}
	}
	id, ok := s.Vars.(*syntax.Ident)
	if !ok {
		return errAt(pos(s.Vars), "a for loop over %s is not allowed in a fused function (use one name)", describe(s.Vars))
	}
	call, _ := s.X.(*syntax.CallExpr)
	name, isID := callee(call)
	hint := "loop over range(...), subsets(M), subsets(M, k) or bits(B)"
	if ok, err := c.forArray(s, id, call, isID && (name == "range" || name == "subsets" || name == "bits") && c.isBuiltin(name)); ok || err != nil {
		return err
	}
	if isID && (name == "range" || name == "subsets" || name == "bits") && !c.isBuiltin(name) {
		return errAt(pos(s.X), "%s here is the script's own %s, not the builtin: rename it to loop over %s(...)", name, name, name)
	}
	if !isID || (name != "range" && name != "subsets" && name != "bits") {
		if tid, ok := s.X.(*syntax.Ident); ok {
			b, err := c.lookupTable(tid)
			if err != nil {
				if gw := (*GlobalArray)(nil); errors.As(err, &gw) {
					return err // a module's list with a sentinel: an array loops
				}
			}
			if err == nil && b >= 0 {
				return c.loopedTable(tid, errAt(pos(s.X), "a for loop over the table %s is not allowed in a fused function (use for i in range(len(%s)) and %s[i])", tid.Name, tid.Name, tid.Name))
			}
		}
		return errAt(pos(s.X), "a for loop over %s is not allowed in a fused function (%s)", describe(s.X), hint)
	}
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			if name != "subsets" || b.X.(*syntax.Ident).Name != "k" {
				return errAt(pos(a), "%s: unexpected keyword argument %s", name, b.X.(*syntax.Ident).Name)
			}
		}
	}
	var args []*fuse.Expr
	for _, a := range call.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			a = b.Y
		}
		x, err := c.word(a)
		if err != nil {
			return err
		}
		args = append(args, x)
	}
	st := fuse.Stmt{Label: c.newLabel()}
	switch {
	case name == "range" && len(args) >= 1 && len(args) <= 3:
		st.Kind = fuse.SForRange
		st.X, st.Y, st.Z = constExpr(0), args[0], constExpr(1)
		if len(args) > 1 {
			st.X, st.Y = args[0], args[1]
		}
		if len(args) == 3 {
			st.Z = args[2]
			if args[2].Op == fuse.OpConst && args[2].Imm == 0 {
				return errAt(pos(call.Args[2]), "range: step argument must not be zero")
			}
		}
		st.Check = c.check(fuse.CheckNonZero, 0, pos(s.X), "range: step argument must not be zero")
	case name == "subsets" && (len(args) == 1 || len(args) == 2):
		st.Kind = fuse.SForSubsets
		st.X = args[0]
		if len(args) == 2 {
			st.Y = args[1]
		}
	case name == "bits" && len(args) == 1:
		st.Kind = fuse.SForBits
		st.X = args[0]
	default:
		return errAt(pos(s.X), "%s: got %d arguments (%s)", name, len(args), hint)
	}
	v, err := c.bindVar(id)
	if err != nil {
		return err
	}
	st.Var = v
	body, err := c.loopBody(st.Label, s.Body)
	if err != nil {
		return err
	}
	st.Body = body
	c.emit(st)
	return nil
}

// bindVar returns the variable of the local name id, making it a word.
func (c *compiler) bindVar(id *syntax.Ident) (int, error) {
	c.unhide(id.Name)
	b, ok := c.scope.names[id.Name]
	if ok && b.kind != bVar {
		return 0, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	}
	if !ok {
		b = binding{kind: bVar, id: c.newVar()}
		c.scope.names[id.Name] = b
		c.varNames[[2]int{c.unit, b.id}] = id.Name
	}
	if b.bias != 0 {
		// assign and tupleAssign store through assignVar; a for loop's
		// variable is never biased (scope.loopVars).
		return 0, errAt(id.NamePos, "%s holds a biased int here; a fused function cannot bind it so", id.Name)
	}
	return b.id, nil
}

// assignVar compiles name = v: where the name is biased (binding.bias), v
// biased as it is; where the name is new and no for loop binds it, it
// becomes biased (Options.Exact) where some assignment gives it a negative
// constant (signedLocals), or where v is a read of a biased scratch array
// or local, as that array, so that i = stamp[k] and i != t hold where the
// element is the sentinel -1 (nameBias).
func (c *compiler) assignVar(id *syntax.Ident, v *fuse.Expr) error {
	c.unhide(id.Name)
	b, ok, k := c.nameBias(id.Name, v)
	if !ok && k != 0 {
		b = binding{kind: bVar, id: c.newVar(), bias: k}
		c.scope.names[id.Name] = b
		c.varNames[[2]int{c.unit, b.id}] = id.Name
	}
	if ok && b.kind != bVar {
		return errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	}
	if !ok && b.bias == 0 {
		var err error
		if b.id, err = c.bindVar(id); err != nil {
			return err
		}
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.id, X: c.biasedTo(v, b.bias)})
	return nil
}

func kindName(b binding) string {
	switch b.kind {
	case bScratch:
		return "a scratch array"
	case bRow:
		return "a table row"
	case bLog:
		return "a module's list appended to"
	case bHash:
		return "a set or dict"
	case bTupleList:
		return "a list of tuples"
	case bTupleLocal:
		return "a tuple"
	}
	return "a word"
}

func (c *compiler) assign(s *syntax.AssignStmt) error {
	switch lhs := s.LHS.(type) {
	case *syntax.Ident:
		op := s.Op
		if op != syntax.EQ {
			op = augOps[op]
		}
		if ok, err := c.wideAssign(lhs, op, s.OpPos, s.RHS); ok || err != nil {
			return err
		}
		if s.Op != syntax.EQ {
			op, ok := augOps[s.Op]
			if !ok {
				return errAt(s.OpPos, "%s is not allowed in a fused function", s.Op)
			}
			b, ok := c.scope.names[lhs.Name]
			if ok && b.kind != bVar {
				return errAt(s.OpPos, "%s is %s, not a word: %s is not allowed", lhs.Name, kindName(b), s.Op)
			}
			if b.bias != 0 && (op == syntax.PLUS || op == syntax.MINUS) {
				// x + bias ± y: the biased word itself, which may hold
				// a negative int.
				y, err := c.word(s.RHS)
				if err != nil {
					return err
				}
				v, err := c.arith(op, s.OpPos, varExpr(b.id), y)
				if err != nil {
					return err
				}
				c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.id, X: v})
				return nil
			}
			v, err := c.binary(op, s.OpPos, lhs, s.RHS)
			if err != nil {
				return err
			}
			return c.assignVar(lhs, v)
		}
		// The assignments of a form of their own, tried in order: each
		// reports whether s is of its form (and then compiles it).
		for _, form := range [...]func(*syntax.Ident, syntax.Expr) (bool, error){
			c.hashAssign, c.tupleListAssign, c.tupleLocalAssign, c.setOf,
			c.sortedAssign, c.sliceAssign, c.growAssign, c.gridAssign,
			c.compAssign, c.listCopy, c.condAssign,
		} {
			if ok, err := form(lhs, s.RHS); ok || err != nil {
				return err
			}
		}
		if call, ok := unparen(s.RHS).(*syntax.CallExpr); ok {
			c.wantArray[call] = true
			v, err := c.expr(call)
			if err != nil {
				return err
			}
			if b, ok := c.arrays[v]; ok {
				return c.bindArray(lhs, b, c.unshared[v], call)
			}
			return c.assignVar(lhs, v)
		}
		if ok, err := c.scratchAssign(lhs, s.RHS); ok || err != nil {
			return err
		}
		if ok, err := c.rowAssign(lhs, s.RHS); ok || err != nil {
			return err
		}
		v, err := c.word(s.RHS)
		if err != nil {
			return err
		}
		return c.assignVar(lhs, v)
	case *syntax.IndexExpr:
		return c.store(s, lhs)
	case *syntax.TupleExpr, *syntax.ListExpr, *syntax.ParenExpr:
		if s.Op != syntax.EQ {
			return errAt(s.OpPos, "%s to a tuple is not allowed", s.Op)
		}
		return c.tupleAssign(s)
	}
	return errAt(pos(s.LHS), "assignment to %s is not allowed in a fused function (assign to a name or a scratch array element)", describe(s.LHS))
}

func exprList(e syntax.Expr) ([]syntax.Expr, bool) {
	switch e := e.(type) {
	case *syntax.TupleExpr:
		return e.List, true
	case *syntax.ListExpr:
		return e.List, true
	case *syntax.ParenExpr:
		return exprList(e.X)
	}
	return nil, false
}

// assignNames assigns value(i) to the i-th of the names lhs (a, b = ...),
// in order; an element that is not a name is not allowed.
func (c *compiler) assignNames(lhs []syntax.Expr, value func(i int) *fuse.Expr) error {
	for i, l := range lhs {
		id, ok := l.(*syntax.Ident)
		if !ok {
			return errAt(pos(l), "assignment to %s in a tuple is not allowed in a fused function (assign to names)", describe(l))
		}
		if err := c.assignVar(id, value(i)); err != nil {
			return err
		}
	}
	return nil
}

// tupleAssign compiles a, b = x, y: every value first, then the names.
func (c *compiler) tupleAssign(s *syntax.AssignStmt) error {
	lhs, _ := exprList(s.LHS)
	if call, ok := unparen(s.RHS).(*syntax.CallExpr); ok && c.opt.Exact && c.tupleHelper(call, len(lhs)) {
		vars, err := c.tupleCall(call, len(lhs))
		if err != nil {
			return err
		}
		return c.assignNames(lhs, func(i int) *fuse.Expr { return varExpr(vars[i]) })
	}
	if ok, err := c.divmodAssign(lhs, s.RHS); ok || err != nil {
		return err
	}
	if _, ok := c.tupleLocalNamed(s.RHS); ok {
		// a, b = p of a tuple local.
		vals, _, err := c.tupleOfWords(s.RHS)
		if err != nil {
			return err
		}
		if len(vals) != len(lhs) {
			return errAt(s.OpPos, "%d names but %d values", len(lhs), len(vals))
		}
		return c.assignNames(lhs, func(i int) *fuse.Expr { return vals[i] })
	}
	if vals, ok, err := c.tupleListRead(s.RHS, len(lhs)); ok {
		if err != nil {
			return err
		}
		return c.assignNames(lhs, func(i int) *fuse.Expr { return vals[i] })
	}
	rhs, ok := exprList(s.RHS)
	if !ok {
		return errAt(pos(s.RHS), "a fused function can only unpack a tuple of words written out (a, b = x, y)")
	}
	if len(lhs) != len(rhs) {
		return errAt(s.OpPos, "%d names but %d values", len(lhs), len(rhs))
	}
	tmps := make([]*fuse.Expr, len(rhs))
	for i, r := range rhs {
		v, err := c.word(r)
		if err != nil {
			return err
		}
		// A biased read (or a negative constant) is kept biased
		// (assignVar).
		raw, k := c.biasOf(v)
		if k != 0 {
			v = raw
		}
		t := c.newVar()
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: v})
		tmps[i] = c.biasedRead(varExpr(t), k)
	}
	return c.assignNames(lhs, func(i int) *fuse.Expr { return tmps[i] })
}

// copyArray compiles the copy of the first count words of scratch array
// src into dst, of the same length n (and bias).
func (c *compiler) copyArray(dst, src, n int, count *fuse.Expr, at syntax.Position) {
	if n <= 16 && count.Op == fuse.OpConst {
		for i := 0; i < n; i++ {
			k := constExpr(uint64(i))
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: dst, X: k, Check: -1,
				Y: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(src), Args: []*fuse.Expr{k},
					Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}})
		}
		return
	}
	v := c.newVar()
	i := varExpr(v)
	store := fuse.Stmt{Kind: fuse.SStore, Arr: dst, X: i, Check: c.check(fuse.CheckIndex, 0, at, "index out of range"),
		Y: &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(src), Args: []*fuse.Expr{varExpr(v)},
			Check: c.check(fuse.CheckIndex, 0, at, "index out of range")}}
	c.emit(fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: v, X: constExpr(0), Y: count, Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, at, "range: step argument must not be zero"), Body: []fuse.Stmt{store}})
}

// growAssign compiles name = [] (or [V, W, ...]) where the unit appends
// to name: a list built by append, a scratch array of ListCap words and
// a variable holding its length.
func (c *compiler) growAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	l, ok := unparen(rhs).(*syntax.ListExpr)
	if !ok || !c.scope.appended[id.Name] {
		return false, nil
	}
	listCap, _ := c.listCap()
	if len(l.List) > listCap {
		return true, errAt(pos(rhs), "a list built by append holds at most %d elements in a fused function", listCap)
	}
	b, ok := c.scope.names[id.Name]
	switch {
	case ok && c.scope.byRef[id.Name]:
		return true, errAt(id.NamePos, "%s is the caller's list; a fused helper cannot rebind it to a new list (use another name)", id.Name)
	case ok && (b.kind != bScratch || b.count == 0):
		return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	case !ok:
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name, Len: listCap})
		b = binding{kind: bScratch, id: len(c.proc.Scratch) - 1, count: c.newVar() + 1}
		if total := c.scratchWords(); total > MaxScratchWords {
			return true, errAt(id.NamePos, "the scratch arrays of a fused function hold at most %d words in all, not %d (with %s)", MaxScratchWords, total, id.Name)
		}
		c.scope.names[id.Name] = b
	}
	if c.iterating[arrayOf{c.proc, b.id}] {
		return true, errAt(id.NamePos, "%s is being iterated over; a fused function does not rebind it there", id.Name)
	}
	// The values first, in order, then the fresh list: a value may read
	// the list the name held before (out = [out[0] + 2]).
	vals := make([]*fuse.Expr, len(l.List))
	for i, e := range l.List {
		x, err := c.word(e)
		if err != nil {
			return true, err
		}
		if x.Op != fuse.OpConst {
			t := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: x})
			x = varExpr(t)
		}
		vals[i] = x
	}
	c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: b.id})
	for i, x := range vals {
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: constExpr(uint64(i)), Y: x, Check: -1})
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: constExpr(uint64(len(l.List)))})
	return true, nil
}

// appendTo compiles name.append(x) for a list built by append.
func (c *compiler) appendTo(id *syntax.Ident, b binding, call *syntax.CallExpr) error {
	if len(call.Args) != 1 {
		return errAt(call.Lparen, "%s.append takes one argument", id.Name)
	}
	if kv, ok := call.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return errAt(pos(kv), "%s.append: keyword arguments are not allowed", id.Name)
	}
	if c.iterating[arrayOf{c.proc, b.id}] {
		return errAt(call.Lparen, "%s.append while a loop iterates over %s (an error in Starlark)", id.Name, id.Name)
	}
	x, err := c.word(call.Args[0])
	if err != nil {
		return err
	}
	// A list [V] * N of a negative V (runLenAssign) is biased: it holds
	// x + bias.
	x = c.biasedTo(x, c.proc.Scratch[b.id].Bias)
	n := varExpr(b.count - 1)
	chk := c.check(fuse.CheckIndex, 0, call.Lparen, "%s.append: a list built by append holds at most %d elements in a fused function", id.Name, c.proc.Scratch[b.id].Len)
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: n, Y: x, Check: chk})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: c.mk(fuse.OpAdd, varExpr(b.count-1), constExpr(1))})
	return nil
}

// below returns an index expression that is i where i < n, else limit
// (out of range of an array of limit elements): a list built by append is
// indexed below its length.
func (c *compiler) below(i, n *fuse.Expr, limit int) *fuse.Expr {
	v := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: i})
	return &fuse.Expr{Op: fuse.OpCond, Args: []*fuse.Expr{c.mk(fuse.OpLt, varExpr(v), n), varExpr(v), constExpr(uint64(limit))}, Check: -1}
}

// bindArray binds name to the array b a helper returned (name =
// helper(...)).
// Where the name already holds another array of the same shape, and the
// helper's array is its own (own: no other name holds it), the name's
// array gets a copy of its words (the name's new list).
func (c *compiler) bindArray(id *syntax.Ident, b binding, own bool, call *syntax.CallExpr) error {
	old, ok := c.scope.names[id.Name]
	switch {
	case !ok:
		c.scope.names[id.Name] = b
		if !own {
			c.aliased[arrayOf{c.proc, b.id}] = true // another name may hold it
		}
		return nil
	case old.kind == bScratch && old.id == b.id && old.count == b.count:
		return nil // the same call, again (in a loop)
	case c.scope.byRef[id.Name]:
		return errAt(id.NamePos, "%s is the caller's list; a fused helper cannot rebind it to a new list (use another name)", id.Name)
	case old.kind == bScratch && old.id >= c.proc.Arrays && own && !c.iterating[arrayOf{c.proc, old.id}] && !c.aliased[arrayOf{c.proc, old.id}] &&
		(old.count == 0) == (b.count == 0):
		to, from := c.proc.Scratch[old.id], c.proc.Scratch[b.id]
		if to.Len != from.Len || to.Bias != from.Bias || to.Init != from.Init {
			break
		}
		n := constExpr(uint64(from.Len))
		if b.count != 0 {
			n = varExpr(b.count - 1)
		}
		c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: old.id})
		c.copyArray(old.id, b.id, from.Len, n, call.Lparen)
		if old.count != 0 {
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: old.count - 1, X: varExpr(b.count - 1)})
		}
		return nil
	}
	return errAt(id.NamePos, "%s is %s; a fused function binds a name to one list (call the helper in one place, or use another name)", id.Name, kindName(old))
}

// forArray compiles for name in a, where a is an array (a scratch array, a
// list built by append, a list a helper returns) or a tuple or list of
// words written out; it reports false where s.X is none of them. The
// loop's body may not change the array (an error in Starlark).
func (c *compiler) forArray(s *syntax.ForStmt, id *syntax.Ident, call *syntax.CallExpr, builtin bool) (bool, error) {
	return c.forArrayOf(s, s.X, id, nil, call, builtin)
}

// forEnumerate compiles for i, v in enumerate(a) over an array a as
// forArray compiles for v in a; it reports false where s is no such loop.
func (c *compiler) forEnumerate(s *syntax.ForStmt) (bool, error) {
	t, ok := s.Vars.(*syntax.TupleExpr)
	if !ok || len(t.List) != 2 {
		return false, nil
	}
	call, ok := unparen(s.X).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false, nil
	}
	if name, ok := callee(call); !ok || name != "enumerate" || !c.isBuiltin(name) {
		return false, nil
	}
	i, ok1 := t.List[0].(*syntax.Ident)
	v, ok2 := t.List[1].(*syntax.Ident)
	if !ok1 || !ok2 {
		return true, errAt(pos(s.Vars), "for i, v in enumerate(a) takes two names in a fused function")
	}
	inner, _ := unparen(call.Args[0]).(*syntax.CallExpr)
	ok, err := c.forArrayOf(s, call.Args[0], v, i, inner, false)
	if !ok && err == nil {
		err = errAt(pos(call.Args[0]), "enumerate of %s is not allowed in a fused function (enumerate a scratch array or a list)", describe(call.Args[0]))
	}
	return true, err
}

// forArrayOf is forArray over the array x, with index, where not nil,
// bound to each element's index.
func (c *compiler) forArrayOf(s *syntax.ForStmt, x syntax.Expr, id, index *syntax.Ident, call *syntax.CallExpr, builtin bool) (bool, error) {
	var b binding
	switch x := unparen(x).(type) {
	case *syntax.Ident:
		bd, ok := c.scope.names[x.Name]
		if !ok || bd.kind != bScratch {
			return false, nil
		}
		b = bd
	case *syntax.TupleExpr, *syntax.ListExpr:
		var elems []syntax.Expr
		if t, ok := x.(*syntax.TupleExpr); ok {
			elems = t.List
		} else {
			elems = x.(*syntax.ListExpr).List
		}
		if len(elems) > MaxScratch {
			return true, errAt(pos(x), "a loop over more than %d values", MaxScratch)
		}
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: "the values of a loop", Len: len(elems)})
		b = binding{kind: bScratch, id: len(c.proc.Scratch) - 1}
		c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: b.id})
		for i, e := range elems {
			v, err := c.word(e)
			if err != nil {
				return true, err
			}
			c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: constExpr(uint64(i)), Y: v, Check: -1})
		}
	case *syntax.CallExpr:
		if builtin || call == nil {
			return false, nil
		}
		if _, ok := callee(call); !ok {
			return false, nil
		}
		if v, ok := c.scope.src.Free(func() string { n, _ := callee(call); return n }()); !ok {
			return false, nil
		} else if _, isFn := v.(*starlark.Function); !isFn {
			return false, nil
		}
		c.wantArray[call] = true
		v, err := c.expr(call)
		if err != nil {
			return true, err
		}
		bd, ok := c.arrays[v]
		if !ok {
			return true, errAt(pos(x), "a for loop over a word is not allowed in a fused function")
		}
		b = bd
	default:
		return false, nil
	}
	var iv int
	if index != nil {
		var err error
		if iv, err = c.bindVar(index); err != nil {
			return true, err
		}
	}
	n := constExpr(uint64(c.proc.Scratch[b.id].Len))
	if b.count != 0 {
		n = varExpr(b.count - 1)
	}
	i := c.newVar()
	st := fuse.Stmt{Kind: fuse.SForRange, Label: c.newLabel(), Var: i, X: constExpr(0), Y: n, Z: constExpr(1),
		Check: c.check(fuse.CheckNonZero, 0, pos(s.X), "range: step argument must not be zero")}
	v, err := c.bindVar(id)
	if err != nil {
		return true, err
	}
	elem := c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{varExpr(i)},
		Check: c.check(fuse.CheckIndex, 0, pos(s.X), "index out of range")})
	head := []fuse.Stmt{{Kind: fuse.SAssign, Var: v, X: elem}}
	if index != nil {
		head = append(head, fuse.Stmt{Kind: fuse.SAssign, Var: iv, X: varExpr(i)})
	}
	return true, c.loopOver(st, head, s.Body, b.id)
}

// loopOver emits the loop st over the elements of the scratch arrays
// arrays: its body head, then body, compiled with the arrays marked as
// iterated (c.iterating: the body may not grow them).
func (c *compiler) loopOver(st fuse.Stmt, head []fuse.Stmt, body []syntax.Stmt, arrays ...int) error {
	was := make([]bool, len(arrays))
	for j, a := range arrays {
		was[j] = c.iterating[arrayOf{c.proc, a}]
		c.iterating[arrayOf{c.proc, a}] = true
	}
	stmts, err := c.loopBody(st.Label, body)
	for j, a := range arrays {
		c.iterating[arrayOf{c.proc, a}] = was[j]
	}
	if err != nil {
		return err
	}
	st.Body = append(head, stmts...)
	c.emit(st)
	return nil
}

// listCopy compiles name = list(a) for a scratch array a: a scratch array
// of a's shape, fresh, holding a's words.
func (c *compiler) listCopy(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	call, ok := unparen(rhs).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false, nil
	}
	if name, ok := callee(call); !ok || name != "list" || !c.isBuiltin(name) {
		return false, nil
	}
	aid, ok := unparen(call.Args[0]).(*syntax.Ident)
	if !ok {
		return false, nil
	}
	a, ok := c.scope.names[aid.Name]
	if !ok || a.kind != bScratch {
		return false, nil
	}
	src := c.proc.Scratch[a.id]
	if a.count != 0 {
		return true, errAt(call.Lparen, "list(%s) of a list built by append is not allowed in a fused function", aid.Name)
	}
	b, ok := c.scope.names[id.Name]
	switch {
	case ok && c.scope.byRef[id.Name]:
		return true, errAt(id.NamePos, "%s is the caller's list; a fused helper cannot rebind it to a new list (use another name)", id.Name)
	case ok && b.count != 0:
		return true, errAt(id.NamePos, "%s is a list built by append; a name holds one kind of value in a fused function", id.Name)
	case ok && b.kind != bScratch:
		return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	case ok && b.id < c.proc.Arrays:
		return true, errAt(id.NamePos, "%s is an array passed by the caller; a fused function cannot rebind it to a new array (use another name)", id.Name)
	case ok && c.iterating[arrayOf{c.proc, b.id}]:
		return true, errAt(id.NamePos, "%s is being iterated over; a fused function does not rebind it there", id.Name)
	case ok && b.id == a.id:
		return true, nil // a = list(a): a copy of itself, the same words
	case ok:
		if s := c.proc.Scratch[b.id]; s.Len != src.Len || s.Bias != src.Bias {
			return true, errAt(id.NamePos, "%s is already a scratch array of %d elements; use another name for an array of another shape", id.Name, s.Len)
		}
	default:
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name, Len: src.Len, Init: src.Init, Bias: src.Bias})
		b = binding{kind: bScratch, id: len(c.proc.Scratch) - 1}
		if total := c.scratchWords(); total > MaxScratchWords {
			return true, errAt(id.NamePos, "the scratch arrays of a fused function hold at most %d words in all, not %d (with %s)", MaxScratchWords, total, id.Name)
		}
		c.scope.names[id.Name] = b
	}
	c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: b.id})
	c.copyArray(b.id, a.id, src.Len, constExpr(uint64(src.Len)), call.Lparen)
	return true, nil
}

// returnedList returns the length of the lists the function returns,
// fresh ones it makes (name = list(a) of a list parameter a, [V] * N,
// [V, W, ...]), or -1 where it returns no list; an error where it returns
// lists and something else, or lists of several lengths.
func returnedList(src *Source, r returns, lists []int) (int, error) {
	if len(r.names) == 0 {
		return -1, nil
	}
	param := map[string]int{}
	for i, p := range src.Params {
		if lists != nil && lists[i] >= 0 {
			param[p.Name] = lists[i]
		}
	}
	appended := appendedNames(src.Body)
	// The length of what each name of the body is assigned: -1 for
	// anything but such a list, -2 for lists of several lengths.
	lens := map[string]int{}
	set := func(name string, n int) {
		if m, ok := lens[name]; ok && m != n {
			n = -2
		}
		lens[name] = n
	}
	// Twice: list(b) of a local b assigned after it (in a loop) is known
	// the second time.
	for pass := 0; pass < 2; pass++ {
		known := maps.Clone(param)
		for name, n := range lens {
			if n >= 0 {
				known[name] = n
			}
		}
		clear(lens)
		for _, s := range src.Body {
			syntax.Walk(s, func(n syntax.Node) bool {
				switch n := n.(type) {
				case *syntax.AssignStmt:
					if id, ok := n.LHS.(*syntax.Ident); ok {
						if n.Op == syntax.EQ {
							m := listLen(n.RHS, known)
							if l, ok := unparen(n.RHS).(*syntax.ListExpr); ok && appended[id.Name] && len(l.List) <= ListCap {
								m = ListCap
							}
							if comp, ok := unparen(n.RHS).(*syntax.Comprehension); ok && appended[id.Name] && !comp.Curly {
								m = ListCap // compAssign
							}
							if _, ok := unparen(n.RHS).(*syntax.CallExpr); ok && appended[id.Name] {
								if name, _ := callee(unparen(n.RHS).(*syntax.CallExpr)); name == "sorted" {
									m = ListCap // sortedAssign
								}
							}
							if sl, ok := unparen(n.RHS).(*syntax.SliceExpr); ok && appended[id.Name] && sl.Step == nil {
								m = ListCap // sliceAssign
							}
							if m < 0 && isRepeat(n.RHS) {
								m = ListCap // [V] * N, N read at run time (runLenAssign)
							}
							set(id.Name, m)
						} else {
							set(id.Name, -1)
						}
					}
				case *syntax.ForStmt:
					if id, ok := n.Vars.(*syntax.Ident); ok {
						set(id.Name, -1)
					}
				case *syntax.DefStmt, *syntax.LambdaExpr:
					return false
				}
				return true
			})
		}
	}
	n, made := -1, 0
	for _, name := range r.names {
		m, ok := lens[name]
		if !ok || m < 0 {
			continue
		}
		if n >= 0 && m != n {
			return 0, fmt.Errorf("the function returns lists of %d and of %d elements", n, m)
		}
		n = m
		made++
	}
	if n >= 0 && (made < r.values || r.bare > 0 || len(r.tuples) > 0) {
		return 0, fmt.Errorf("the function returns a list on some paths and another value on others")
	}
	return n, nil
}

// returnedParam returns the index among the array parameters (Lists) of
// the one every return of the function returns, as it was given (return
// p), or -1.
func returnedParam(src *Source, r returns, lists []int) int {
	if lists == nil || len(r.names) == 0 || len(r.names) != r.values || r.bare > 0 || len(r.tuples) > 0 {
		return -1
	}
	name := r.names[0]
	for _, n := range r.names[1:] {
		if n != name {
			return -1
		}
	}
	if assignedNames(src.Body)[name] {
		return -1 // rebound: not the list given
	}
	a := 0
	for i, p := range src.Params {
		if lists[i] < 0 {
			continue
		}
		if p.Name == name {
			return a
		}
		a++
	}
	return -1
}

// listLen returns the length of the list e makes, list(a) of a list a
// of known length (a parameter or a local, in known) or [V] * N and [V,
// W, ...] with N an int literal, or -1.
func listLen(e syntax.Expr, known map[string]int) int {
	switch e := unparen(e).(type) {
	case *syntax.ListExpr:
		return len(e.List)
	case *syntax.BinaryExpr:
		l, ok := unparen(e.X).(*syntax.ListExpr)
		k, isLit := unparen(e.Y).(*syntax.Literal)
		if e.Op != syntax.STAR || !ok || !isLit || len(l.List) != 1 || k.Token != syntax.INT {
			return -1
		}
		if n, ok := k.Value.(int64); ok && n >= 0 && n <= MaxScratch {
			return int(n)
		}
	case *syntax.CallExpr:
		if name, ok := callee(e); ok && name == "list" && len(e.Args) == 1 {
			if id, ok := unparen(e.Args[0]).(*syntax.Ident); ok {
				if n, ok := known[id.Name]; ok {
					return n
				}
			}
		}
	}
	return -1
}

// isRepeat reports whether e is [V] * N or N * [V].
func isRepeat(e syntax.Expr) bool {
	b, ok := unparen(e).(*syntax.BinaryExpr)
	if !ok || b.Op != syntax.STAR {
		return false
	}
	_, l := unparen(b.X).(*syntax.ListExpr)
	_, r := unparen(b.Y).(*syntax.ListExpr)
	return l || r
}

// scratchAssign compiles name = [V] * N or name = [V, W, ...].
//
// With Options.Exact, where V or one of the values is a negative constant
// -k (a sentinel, [-1] * N), the array is biased (fuse.Scratch.Bias): it
// holds the ints x in [-k, 2^64 - k) as the words x + k. Its reads are
// the word less k, which fuse.Func.Exact checks where it must be a word
// (a read of a negative element fails the run); its comparisons and
// stores take the biased words themselves (biasedTo), so that a[i] != t
// is True, and a[i] = -1 runs, where a[i] holds -1.
func (c *compiler) scratchAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	var elems []syntax.Expr
	var init syntax.Expr
	var count syntax.Expr
	switch r := unparen(rhs).(type) {
	case *syntax.ListExpr:
		elems = r.List
	case *syntax.BinaryExpr:
		if r.Op != syntax.STAR {
			return false, nil
		}
		l, ok := unparen(r.X).(*syntax.ListExpr)
		count = r.Y
		if !ok {
			l, ok = unparen(r.Y).(*syntax.ListExpr)
			count = r.X
		}
		if !ok {
			return false, nil
		}
		if len(l.List) != 1 {
			return true, errAt(pos(rhs), "a scratch array is [V] * N with one value V")
		}
		init = l.List[0]
	default:
		return false, nil
	}
	n := len(elems)
	var initVal, bias uint64
	if init != nil {
		x, err := c.word(init)
		if err != nil {
			return true, err
		}
		if c.opt.Exact && isBoolRepeat(rhs) {
			if err := c.scope.boolLists[id.Name]; err != nil {
				return true, err
			}
			x = x.Args[0] // the word of True or False
			defer c.markBoolArray(id.Name)
		}
		if k, ok := negConstant(x); ok && c.opt.Exact {
			x, bias = constExpr(0), k // -k + k
		} else if c.opt.Exact && (x.Op == fuse.OpNeg || x.Op == fuse.OpNot) && x.Args[0].Op == fuse.OpConst {
			return true, errAt(pos(init), "a scratch array's value V in [V] * N is at least -2^63 in a function run as machine code")
		}
		if x.Op != fuse.OpConst {
			return true, errAt(pos(init), "a scratch array's value V in [V] * N must be a constant")
		}
		initVal = x.Imm
		k, err := c.word(count)
		if err != nil {
			return true, err
		}
		if k.Op != fuse.OpConst && c.opt.Exact {
			return true, c.runLenAssign(id, k, initVal, bias, pos(count))
		}
		if k.Op != fuse.OpConst {
			return true, errAt(pos(count), "the length N of a scratch array [V] * N must be a constant after free names are read")
		}
		if int64(k.Imm) < 0 {
			n = 0
		} else if k.Imm > MaxScratch {
			return true, errAt(pos(count), "a scratch array has at most %d elements, not %d", MaxScratch, k.Imm)
		} else {
			n = int(k.Imm)
		}
	}
	if n > MaxScratch {
		return true, errAt(pos(rhs), "a scratch array has at most %d elements, not %d", MaxScratch, n)
	}
	// The values of a list, each with the statements that compute it
	// (helper calls), which run after the array is fresh, in order.
	vals := make([]*fuse.Expr, len(elems))
	pres := make([][]fuse.Stmt, len(elems))
	for i, e := range elems {
		var err error
		pres[i], err = c.nested(func() error {
			var err error
			vals[i], err = c.word(e)
			return err
		})
		if err != nil {
			return true, err
		}
		if k, ok := negConstant(vals[i]); ok && c.opt.Exact {
			bias = max(bias, k)
		}
	}
	b, ok := c.scope.names[id.Name]
	if ok && b.kind != bScratch {
		return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	}
	if ok && (b.id < c.proc.Arrays || c.scope.byRef[id.Name]) {
		return true, errAt(id.NamePos, "%s is an array passed by the caller; a fused helper cannot rebind it to a new array (use another name)", id.Name)
	}
	if ok && b.count != 0 {
		return true, errAt(id.NamePos, "%s is a list built by append; a name holds one kind of value in a fused function", id.Name)
	}
	if ok && b.kind == bScratch && c.iterating[arrayOf{c.proc, b.id}] {
		return true, errAt(id.NamePos, "%s is being iterated over; a fused function does not rebind it there", id.Name)
	}
	if init == nil {
		if ok && b.kind == bScratch && c.proc.Scratch[b.id].Len == n {
			bias = max(bias, c.proc.Scratch[b.id].Bias)
		}
		initVal = bias // 0, biased
	}
	if ok {
		s := c.proc.Scratch[b.id]
		if s.Len != n || s.Init != initVal || s.Bias != bias {
			return true, errAt(id.NamePos, "%s is already a scratch array of %d elements; use another name for an array of another shape or value", id.Name, s.Len)
		}
	} else {
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name, Len: n, Init: initVal, Bias: bias})
		b = binding{kind: bScratch, id: len(c.proc.Scratch) - 1}
		if total := c.scratchWords(); total > MaxScratchWords {
			return true, errAt(id.NamePos, "the scratch arrays of a fused function hold at most %d words in all, not %d (with %s)", MaxScratchWords, total, id.Name)
		}
		c.scope.names[id.Name] = b
	}
	// The values first, in order, then the fresh array: a value may read
	// the array the name held before (a = [a[0] + 1, 0]).
	for i, x := range vals {
		for _, p := range pres[i] {
			c.emit(p)
		}
		vals[i] = c.biasedTo(x, bias)
		if vals[i].Op != fuse.OpConst {
			t := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: vals[i]})
			vals[i] = varExpr(t)
		}
	}
	c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: b.id})
	for i, x := range vals {
		if x.Op == fuse.OpConst && x.Imm == initVal {
			continue
		}
		c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: constExpr(uint64(i)), Y: x, Check: -1})
	}
	return true, nil
}

// runLenAssign compiles name = [V] * N where N (the word k) is not a
// constant, in a function compiled with Options.Exact: a scratch array
// of the unit's listCap elements and a variable holding its length, N,
// as a list built by append has. Its reads, stores, len, loops and copies
// use that length. A length N of listCap or more (or a negative one,
// which is not a word) fails the item, and the interpreter runs the
// call.
func (c *compiler) runLenAssign(id *syntax.Ident, k *fuse.Expr, initVal, bias uint64, at syntax.Position) error {
	listCap, w := c.listCap()
	b, ok := c.scope.names[id.Name]
	switch {
	case ok && c.scope.byRef[id.Name]:
		return errAt(id.NamePos, "%s is the caller's list; a fused helper cannot rebind it to a new list (use another name)", id.Name)
	case ok && (b.kind != bScratch || b.count == 0 || b.id < c.proc.Arrays):
		return errAt(id.NamePos, "%s is %s; a name holds one kind of value in a fused function", id.Name, kindName(b))
	case ok:
		if s := c.proc.Scratch[b.id]; s.Len != listCap || s.Init != initVal || s.Bias != bias {
			return errAt(id.NamePos, "%s is already a list of another capacity or value; use another name for a list [V] * N of another value", id.Name)
		}
	default:
		c.proc.Scratch = append(c.proc.Scratch, fuse.Scratch{Name: id.Name, Len: listCap, Init: initVal, Bias: bias})
		b = binding{kind: bScratch, id: len(c.proc.Scratch) - 1, count: c.newVar() + 1}
		if total := c.scratchWords(); total > MaxScratchWords {
			return errAt(id.NamePos, "the scratch arrays of a fused function hold at most %d words in all, not %d (with %s)", MaxScratchWords, total, id.Name)
		}
		c.scope.names[id.Name] = b
	}
	if c.iterating[arrayOf{c.proc, b.id}] {
		return errAt(id.NamePos, "%s is being iterated over; a fused function does not rebind it there", id.Name)
	}
	// The length first (it may read the list the name held before: a =
	// [0] * len(a)), checked below listCap, then the fresh list.
	n := &fuse.Expr{Op: fuse.OpAnd, Args: []*fuse.Expr{k, constExpr(1<<w - 1)},
		Check: c.check(fuse.CheckFits, w, at, "a list [V] * N of a function run as machine code has fewer than %d elements", listCap)}
	t := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: n})
	c.emit(fuse.Stmt{Kind: fuse.SFresh, Arr: b.id})
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: varExpr(t)})
	return nil
}

// negConstant reports whether e is a negative constant as exact
// compilation leaves it, -k or ~j, and returns k (j + 1), in [1, 2^63].
func negConstant(e *fuse.Expr) (uint64, bool) {
	if (e.Op != fuse.OpNeg && e.Op != fuse.OpNot) || e.Args[0].Op != fuse.OpConst {
		return 0, false
	}
	k := e.Args[0].Imm
	if e.Op == fuse.OpNot {
		k++
	}
	return k, k-1 < 1<<63
}

// scratchRead is the read raw (OpScratch) of the unit's scratch array:
// raw itself, or, where the array is biased, raw less its bias (whose
// check fuse.Func.Exact adds where the int must be a word), recorded in
// biased.
func (c *compiler) scratchRead(raw *fuse.Expr) *fuse.Expr {
	if c.isBoolArray(int(raw.Imm)) {
		return boolRead(raw)
	}
	return c.biasedRead(raw, c.proc.Scratch[raw.Imm].Bias)
}

// biasedRead is the int of the word raw biased by k: raw less k, recorded
// in biased, or raw where k is 0.
func (c *compiler) biasedRead(raw *fuse.Expr, k uint64) *fuse.Expr {
	if k == 0 {
		return raw
	}
	e := &fuse.Expr{Op: fuse.OpSub, Args: []*fuse.Expr{raw, constExpr(k)}, Check: -1}
	if c.biased == nil {
		c.biased = map[*fuse.Expr]uint64{}
	}
	c.biased[e] = k
	return e
}

// biasedTo returns an expression whose word is x + k, where x is e's int
// (e a word, a negative constant, or a read of a biased array): the
// biased element itself where its bias is k, a constant where e is one,
// else a sum or difference that fuse.Func.Exact checks. Its int is never
// negative.
func (c *compiler) biasedTo(e *fuse.Expr, k uint64) *fuse.Expr {
	if k == 0 {
		return e
	}
	if b, ok := c.biased[e]; ok {
		switch raw := e.Args[0]; {
		case b == k:
			return raw
		case b < k:
			return c.mk(fuse.OpAdd, raw, constExpr(k-b))
		default:
			return c.mk(fuse.OpSub, raw, constExpr(b-k))
		}
	}
	if n, ok := negConstant(e); ok && n <= k {
		return constExpr(k - n)
	}
	return c.mk(fuse.OpAdd, e, constExpr(k))
}

// rowAssign compiles row = T[i] for a table of rows.
func (c *compiler) rowAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	ix, ok := unparen(rhs).(*syntax.IndexExpr)
	if !ok {
		return false, nil
	}
	tid, ok := unparen(ix.X).(*syntax.Ident)
	if !ok {
		return false, nil
	}
	t, err := c.lookupTable(tid)
	if err != nil || t < 0 || c.f.Tables[t].Flat {
		return false, err
	}
	i, err := c.word(ix.Y)
	if err != nil {
		return true, err
	}
	b, ok := c.scope.names[id.Name]
	if ok && (b.kind != bRow || b.table != t) {
		return true, errAt(id.NamePos, "%s is %s; a name holds one kind of value (and rows of one table) in a fused function", id.Name, kindName(b))
	}
	if !ok {
		b = binding{kind: bRow, id: c.newVar(), table: t}
		c.scope.names[id.Name] = b
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.id, X: i})
	// Check the row index where Starlark would: at the assignment.
	chk := c.check(fuse.CheckIndex, 0, ix.Lbrack, "index out of range of the table %s", tid.Name)
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.newVar(), X: &fuse.Expr{Op: fuse.OpRowLen, Imm: uint64(t), Args: []*fuse.Expr{varExpr(b.id)}, Check: chk}})
	return true, nil
}

// store compiles a[i] = x and a[i] op= x for a scratch array a.
func (c *compiler) store(s *syntax.AssignStmt, lhs *syntax.IndexExpr) error {
	if gid, b, flat, ok, err := c.gridIndex(lhs); ok || err != nil {
		if err != nil {
			return err
		}
		return c.storeAt(s, gid, b, flat, lhs.Lbrack)
	}
	aid, ok := unparen(lhs.X).(*syntax.Ident)
	if !ok {
		return errAt(pos(lhs.X), "assignment to %s is not allowed in a fused function (only scratch array elements a[i] = x)", describe(lhs))
	}
	if _, _, err := c.hashNamed(aid); err != nil {
		return err
	}
	b, ok := c.scope.names[aid.Name]
	if ok && b.kind == bHash {
		return c.hashStore(c.hashOf(b), aid, s, lhs)
	}
	if !ok || b.kind != bScratch {
		if t, err := c.lookupTable(aid); err == nil && t >= 0 || ok && b.kind == bRow {
			return c.globalArrayOf(aid, false, errAt(lhs.Lbrack, "%s is a read-only table; copy what you change into a scratch array ([0] * N)", aid.Name))
		}
		return c.globalArrayOf(aid, false, errAt(lhs.Lbrack, "%s is not a scratch array; make one with %s = [0] * N", aid.Name, aid.Name))
	}
	if c.iterating[arrayOf{c.proc, b.id}] {
		return errAt(lhs.Lbrack, "%s is being iterated over; changing it there is an error in Starlark", aid.Name)
	}
	var idx *fuse.Expr
	var err error
	if k, ok := negIndex(lhs.Y); ok && c.opt.Exact {
		idx = c.fromEnd(b, k) // xs[-k] = v (natural.go)
	} else {
		if idx, err = c.word(lhs.Y); err != nil {
			return err
		}
		if b.count != 0 {
			idx = c.below(idx, varExpr(b.count-1), c.proc.Scratch[b.id].Len)
		}
	}
	return c.storeAt(s, aid, b, idx, lhs.Lbrack)
}

// storeAt compiles the store of s in the scratch array b (named aid) at
// the index idx.
func (c *compiler) storeAt(s *syntax.AssignStmt, aid *syntax.Ident, b binding, idx *fuse.Expr, at syntax.Position) error {
	var err error
	iv := c.newVar()
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: iv, X: idx})
	chk := c.check(fuse.CheckIndex, 0, at, "index out of range of the scratch array %s", aid.Name)
	// A biased array (scratchAssign) stores x + bias: a[i] += y adds y to
	// the biased element (which may hold a negative int), a[i] -= y
	// subtracts it, and the other updates compute on the element's int.
	bias := c.proc.Scratch[b.id].Bias
	var val *fuse.Expr
	if s.Op == syntax.EQ {
		val, err = c.word(s.RHS)
		if err == nil && c.isBoolArray(b.id) {
			val, err = c.boolStored(val, aid, s.RHS) // a bool, by boolListUses
		} else if err == nil {
			val = c.biasedTo(val, bias)
		}
	} else {
		op, ok := augOps[s.Op]
		if !ok {
			return errAt(s.OpPos, "%s is not allowed in a fused function", s.Op)
		}
		old := &fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{varExpr(iv)}, Check: chk}
		var y *fuse.Expr
		y, err = c.word(s.RHS)
		switch {
		case err != nil:
		case bias != 0 && (op == syntax.PLUS || op == syntax.MINUS):
			val, err = c.arith(op, s.OpPos, old, y)
		default:
			val, err = c.arith(op, s.OpPos, c.scratchRead(old), y)
			if err == nil {
				val = c.biasedTo(val, bias)
			}
		}
	}
	if err != nil {
		return err
	}
	c.emit(fuse.Stmt{Kind: fuse.SStore, Arr: b.id, X: varExpr(iv), Y: val, Check: chk})
	return nil
}

func unparen(e syntax.Expr) syntax.Expr {
	for {
		p, ok := e.(*syntax.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}

func callee(call *syntax.CallExpr) (string, bool) {
	if call == nil {
		return "", false
	}
	id, ok := call.Fn.(*syntax.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// pos is where e starts, for a message: Span walks e's subtrees (the
// left operands of a chain of operators one by one), which is fine once,
// for an error; the positions of every expression compiled come from
// (*compiler).start.
func pos(e syntax.Node) syntax.Position {
	start, _ := e.Span()
	return start
}

// start is where e starts, as Span's start (a line and a column counted
// in runes from 1, as go.starlark.net counts them). A node that starts
// where its first operand starts (x + y, f(x), x.f, x[i], x if c else y,
// a tuple without parentheses) takes that operand's start, remembered
// once found, so that compiling a chain of n operators looks at O(n)
// nodes, not the O(n^2) of a Span of each.
func (c *compiler) start(e syntax.Node) syntax.Position {
	var path []syntax.Node // the nodes that start where their first operand does
	at := c.start1(e, &path)
	if c.starts == nil {
		c.starts = map[syntax.Node]syntax.Position{}
	}
	for _, n := range path {
		c.starts[n] = at
	}
	return at
}

func (c *compiler) start1(e syntax.Node, path *[]syntax.Node) syntax.Position {
	for {
		if c.opt.visits != nil {
			*c.opt.visits++
		}
		if at, ok := c.starts[e]; ok {
			return at
		}
		var first syntax.Expr
		switch e := e.(type) {
		case *syntax.Ident:
			return e.NamePos
		case *syntax.Literal:
			return e.TokenPos
		case *syntax.ParenExpr:
			return e.Lparen
		case *syntax.UnaryExpr:
			return e.OpPos
		case *syntax.ListExpr:
			return e.Lbrack
		case *syntax.DictExpr:
			return e.Lbrace
		case *syntax.Comprehension:
			return e.Lbrack
		case *syntax.LambdaExpr:
			return e.Lambda
		case *syntax.BinaryExpr:
			first = e.X
		case *syntax.CallExpr:
			first = e.Fn
		case *syntax.DotExpr:
			first = e.X
		case *syntax.IndexExpr:
			first = e.X
		case *syntax.SliceExpr:
			first = e.X
		case *syntax.CondExpr:
			first = e.True
		case *syntax.DictEntry:
			first = e.Key
		case *syntax.TupleExpr:
			if e.Lparen.IsValid() || len(e.List) == 0 {
				return e.Lparen
			}
			first = e.List[0]
		default:
			return pos(e)
		}
		*path = append(*path, e)
		e = first
	}
}

// describe names a construct for an error message.
func describe(e syntax.Node) string {
	switch e := e.(type) {
	case *syntax.TupleExpr:
		return "a tuple"
	case *syntax.ListExpr:
		return "a list"
	case *syntax.DictExpr:
		return "a dict"
	case *syntax.IndexExpr:
		return "an index expression"
	case *syntax.SliceExpr:
		return "a slice"
	case *syntax.DotExpr:
		return "an attribute (." + e.Name.Name + ")"
	case *syntax.Comprehension:
		return "a comprehension"
	case *syntax.LambdaExpr:
		return "a lambda"
	case *syntax.CallExpr:
		return "a call"
	case *syntax.Ident:
		return e.Name
	case *syntax.Literal:
		switch e.Token {
		case syntax.STRING:
			return "a string"
		case syntax.BYTES:
			return "bytes"
		case syntax.FLOAT:
			return "a float"
		}
		return "a literal"
	}
	return "this expression"
}

// shortInt renders an int for a message: in full up to 128 bits, else
// its first hexadecimal digits and its size, without the decimal
// conversion that takes seconds for an int of millions of bits.
func shortInt(v starlark.Value) string {
	x, ok := v.(starlark.Int)
	if !ok {
		return v.String()
	}
	b := x.BigInt()
	n := b.BitLen()
	if n <= 128 {
		return x.String()
	}
	sign := ""
	if b.Sign() < 0 {
		sign = "-"
		b.Neg(b)
	}
	top := new(big.Int).Rsh(b, uint(n-64))
	return fmt.Sprintf("%s0x%x... (an int of %d bits)", sign, top, n)
}

// WordOf converts an int or bool to a word, or says why not.
func WordOf(v starlark.Value) (uint64, bool) {
	switch v := v.(type) {
	case starlark.Bool:
		if v {
			return 1, true
		}
		return 0, true
	case starlark.Int:
		if u, ok := v.Uint64(); ok {
			return u, true
		}
		if i, ok := v.Int64(); ok {
			return uint64(i), true
		}
	}
	return 0, false
}

func constExpr(x uint64) *fuse.Expr                { return &fuse.Expr{Op: fuse.OpConst, Imm: x, Check: -1} }
func varExpr(v int) *fuse.Expr                     { return &fuse.Expr{Op: fuse.OpVar, Imm: uint64(v), Check: -1} }
func mk(op fuse.Op, args ...*fuse.Expr) *fuse.Expr { return mkImm(op, 0, args...) }

// mkImm makes an op, folding it when every operand is a constant and the op
// has no check.
func mkImm(op fuse.Op, imm uint64, args ...*fuse.Expr) *fuse.Expr {
	e := &fuse.Expr{Op: op, Imm: imm, Args: args, Check: -1}
	if op >= fuse.OpVar {
		return e
	}
	var a [3]uint64
	for i, x := range args {
		if x.Op != fuse.OpConst {
			return identity(e)
		}
		a[i] = x.Imm
	}
	return constExpr(fuse.Eval1(fuse.Instr{Op: op, Imm: imm}, a[0], a[1], a[2]))
}

// mk is mk, except that with Options.Exact constants fold only where the
// word is the integer (1 << 64 is not 0, -1 not 2^64 - 1), comparisons and
// not do not fold (their value is a bool), and x & U64 is kept (it is what
// makes x a word in Starlark).
func (c *compiler) mk(op fuse.Op, args ...*fuse.Expr) *fuse.Expr {
	if !c.opt.Exact {
		return mk(op, args...)
	}
	e := &fuse.Expr{Op: op, Args: args, Check: -1}
	konsts := true
	for _, x := range args {
		konsts = konsts && x.Op == fuse.OpConst
	}
	switch op {
	case fuse.OpAnd:
		if !konsts {
			return e
		}
	case fuse.OpNot, fuse.OpNeg, fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe, fuse.OpLNot:
		return e
	case fuse.OpAdd, fuse.OpSub, fuse.OpMul, fuse.OpShl:
		kind := map[fuse.Op]fuse.CheckKind{fuse.OpAdd: fuse.CheckAddExact, fuse.OpSub: fuse.CheckSubExact,
			fuse.OpMul: fuse.CheckMulExact, fuse.OpShl: fuse.CheckShlExact}[op]
		if konsts && !fuse.CheckOK(kind, args[0].Imm, args[1].Imm, 0) {
			return e
		}
	case fuse.OpShr:
		// Starlark's count of >> is an int32: c >> (1 << 31) fails.
		if konsts && args[1].Imm >= 1<<31 {
			return e
		}
	}
	return mk(op, args...)
}

// identity drops an operation that leaves its operand as it is: x & U64
// (which keeps plain Starlark in words and costs a fused function nothing),
// x | 0, x ^ 0, x + 0, x - 0, x * 1, x << 0, x >> 0.
func identity(e *fuse.Expr) *fuse.Expr {
	if len(e.Args) != 2 {
		return e
	}
	x, k := e.Args[0], e.Args[1]
	if k.Op != fuse.OpConst && (e.Op == fuse.OpAnd || e.Op == fuse.OpOr || e.Op == fuse.OpXor || e.Op == fuse.OpAdd || e.Op == fuse.OpMul) {
		x, k = k, x
	}
	if k.Op != fuse.OpConst {
		return e
	}
	switch {
	case e.Op == fuse.OpAnd && k.Imm == ^uint64(0),
		(e.Op == fuse.OpOr || e.Op == fuse.OpXor || e.Op == fuse.OpAdd || e.Op == fuse.OpSub || e.Op == fuse.OpShl || e.Op == fuse.OpShr) && k.Imm == 0,
		e.Op == fuse.OpMul && k.Imm == 1:
		return x
	}
	return e
}

func (c *compiler) isBuiltin(name string) bool {
	if _, local := c.scope.names[name]; local || c.scope.locals[name] {
		return false
	}
	return c.scope.src.Builtin == nil || c.scope.src.Builtin(name)
}

// lookupTable returns the table a free name is bound to, -1 when the name
// is not a table, or an error when it is a value that cannot be read.
func (c *compiler) lookupTable(id *syntax.Ident) (int, error) {
	if _, ok := c.scope.names[id.Name]; ok || c.scope.locals[id.Name] {
		return -1, nil
	}
	if t, ok := c.scope.tables[id.Name]; ok {
		return t, nil
	}
	v, ok := c.scope.src.Free(id.Name)
	if !ok {
		return -1, nil
	}
	if r, ok := v.(Refused); ok {
		return -1, c.refusedList(id, r)
	}
	t, isTable, err := c.table(id.Name, v)
	if err != nil {
		return -1, errAt(id.NamePos, "%v", err)
	}
	if !isTable {
		return -1, nil
	}
	c.scope.tables[id.Name] = t
	if l, ok := v.(*starlark.List); ok {
		if c.tableLists == nil {
			c.tableLists = map[int]*starlark.List{}
		}
		c.tableLists[t] = l
	}
	return t, nil
}

// copyPoll is how many elements of a table the compiler copies between
// two polls of Options.Stop.
const copyPoll = 4096

// stopCopy is Options.Stop, for the copy of a table.
func (c *compiler) stopCopy() error {
	if c.opt.Stop == nil {
		return nil
	}
	return c.opt.Stop()
}

// ListOrTuple returns v's elements where v is a list or a tuple, read in
// place (a table is not copied twice).
func ListOrTuple(v starlark.Value) (starlark.Indexable, bool) {
	switch v := v.(type) {
	case *starlark.List:
		return v, true
	case starlark.Tuple:
		return v, true
	}
	return nil, false
}

// reserve asks Options.Reserve for the words of a table about to be
// copied from v's elements, rows and all; the count is bounded by
// maxTableWords, past which addTable refuses the table anyway.
func (c *compiler) reserve(items starlark.Indexable) error {
	if c.opt.Reserve == nil {
		return nil
	}
	words := int64(items.Len())
	for i := 0; i < items.Len() && words <= maxTableWords; i++ {
		if i%copyPoll == copyPoll-1 {
			if err := c.stopCopy(); err != nil {
				return err
			}
		}
		if r, ok := ListOrTuple(items.Index(i)); ok {
			words += int64(r.Len())
		}
	}
	return c.opt.Reserve(8 * words)
}

func (c *compiler) addTable(t fuse.Table) (int, bool, error) {
	total := t.Words()
	for _, u := range c.f.Tables {
		total += u.Words()
	}
	if total > maxTableWords {
		return -1, true, fmt.Errorf("the tables of a fused function hold at most %d words in all", maxTableWords)
	}
	c.f.Tables = append(c.f.Tables, t)
	return len(c.f.Tables) - 1, true, nil
}

// word compiles an expression whose value must be a word.
func (c *compiler) word(e syntax.Expr) (*fuse.Expr, error) { return c.expr(e) }

func (c *compiler) expr(e syntax.Expr) (*fuse.Expr, error) {
	x, err := c.expr1(e)
	if x != nil {
		if _, ok := c.pos[x]; !ok {
			c.pos[x] = c.start(e)
		}
	}
	return x, err
}

func (c *compiler) expr1(e syntax.Expr) (*fuse.Expr, error) {
	switch e := e.(type) {
	case *syntax.Literal:
		if e.Token != syntax.INT {
			return nil, errAt(e.TokenPos, "%s is not allowed in a fused function (values are words)", describe(e))
		}
		var x starlark.Int
		switch v := e.Value.(type) {
		case int64:
			x = starlark.MakeInt64(v)
		case *big.Int:
			x = starlark.MakeBigInt(v)
		}
		w, ok := WordOf(x)
		if !ok {
			return nil, errAt(e.TokenPos, "%s does not fit in 64 bits", shortInt(x))
		}
		return constExpr(w), nil
	case *syntax.Ident:
		return c.ident(e)
	case *syntax.ParenExpr:
		return c.expr(e.X)
	case *syntax.UnaryExpr:
		if e.X == nil {
			return nil, errAt(e.OpPos, "%s is not allowed in a fused function", e.Op)
		}
		var x *fuse.Expr
		var err error
		if e.Op == syntax.NOT {
			x, err = c.condExpr(e.X)
		} else {
			x, err = c.expr(e.X)
		}
		if err != nil {
			return nil, err
		}
		switch e.Op {
		case syntax.MINUS:
			return c.mk(fuse.OpNeg, x), nil
		case syntax.PLUS:
			return x, nil
		case syntax.TILDE:
			return c.mk(fuse.OpNot, x), nil
		case syntax.NOT:
			return c.mk(fuse.OpLNot, x), nil
		}
		return nil, errAt(e.OpPos, "unary %s is not allowed in a fused function", e.Op)
	case *syntax.BinaryExpr:
		return c.binary(e.Op, e.OpPos, e.X, e.Y)
	case *syntax.CondExpr:
		cond, err := c.expr(e.Cond)
		if err != nil {
			return nil, err
		}
		return c.lazy(fuse.OpCond, cond, e.True, e.False)
	case *syntax.CallExpr:
		return c.call(e)
	case *syntax.IndexExpr:
		return c.index(e)
	case *syntax.ListExpr:
		return nil, errAt(e.Lbrack, "a fused function cannot build a list; use a scratch array: name = [0] * N")
	case *syntax.DictExpr:
		return nil, errAt(e.Lbrace, "a fused function cannot build a dict; use a scratch array indexed by a word: name = [0] * N")
	case *syntax.TupleExpr:
		return nil, errAt(pos(e), "a tuple is not a word; a fused function assigns tuples only as a, b = x, y")
	case *syntax.Comprehension:
		return nil, errAt(pos(e), "a comprehension is not allowed in a fused function; use a for loop and a scratch array")
	case *syntax.SliceExpr:
		return nil, errAt(pos(e), "a slice is not allowed in a fused function; index with a loop: for i in range(a, b)")
	case *syntax.LambdaExpr:
		return nil, errAt(pos(e), "a lambda is not allowed in a fused function; define the helper at top level and call it")
	case *syntax.DotExpr:
		if m, ok := c.chessModule(e.X); ok {
			return c.chessConstant(e, m)
		}
		return nil, errAt(pos(e), "%s is not allowed in a fused function (read it into a free name before fuse: x = %s)", describe(e), strings.TrimSpace(exprText(e)))
	}
	return nil, errAt(pos(e), "%s is not allowed in a fused function", describe(e))
}

func exprText(e *syntax.DotExpr) string {
	if id, ok := e.X.(*syntax.Ident); ok {
		return id.Name + "." + e.Name.Name
	}
	return "..." + "." + e.Name.Name
}

// lazy compiles op (OpCond, OpAndThen, OpOrElse) whose later operands run
// only where first says so: as an expression when they need no
// statements (helper calls), else as an if statement into a variable.
func (c *compiler) lazy(op fuse.Op, first *fuse.Expr, rest ...syntax.Expr) (*fuse.Expr, error) {
	return c.lazyOf(op, first, c.expr, rest...)
}

// lazyOf is lazy with the operands compiled by compile.
func (c *compiler) lazyOf(op fuse.Op, first *fuse.Expr, compile func(syntax.Expr) (*fuse.Expr, error), rest ...syntax.Expr) (*fuse.Expr, error) {
	vals := make([]*fuse.Expr, len(rest))
	pres := make([][]fuse.Stmt, len(rest))
	for i, r := range rest {
		var err error
		pres[i], err = c.nested(func() error {
			var err error
			vals[i], err = compile(r)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	if first.Op == fuse.OpConst {
		pick := func(i int) *fuse.Expr {
			*c.out = append(*c.out, pres[i]...)
			return vals[i]
		}
		switch op {
		case fuse.OpCond:
			if first.Imm != 0 {
				return pick(0), nil
			}
			return pick(1), nil
		case fuse.OpAndThen:
			if first.Imm == 0 {
				return first, nil
			}
			return pick(0), nil
		case fuse.OpOrElse:
			if first.Imm != 0 {
				return first, nil
			}
			return pick(0), nil
		}
	}
	simple := true
	for _, p := range pres {
		simple = simple && len(p) == 0
	}
	if simple {
		return &fuse.Expr{Op: op, Args: append([]*fuse.Expr{first}, vals...), Check: -1}, nil
	}
	t := c.newVar()
	set := func(i int) []fuse.Stmt {
		return append(pres[i], fuse.Stmt{Kind: fuse.SAssign, Var: t, X: vals[i]})
	}
	switch op {
	case fuse.OpCond:
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: first, Body: set(0), Else: set(1)})
	case fuse.OpAndThen:
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: first})
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: varExpr(t), Body: set(0)})
	case fuse.OpOrElse:
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: first})
		c.emit(fuse.Stmt{Kind: fuse.SIf, X: varExpr(t), Else: set(0)})
	}
	return varExpr(t), nil
}

func (c *compiler) ident(e *syntax.Ident) (*fuse.Expr, error) {
	switch e.Name {
	case "True", "False":
		if !c.isLiteralName(e.Name) {
			break // the script's own True or False: a local, a parameter or a global
		}
		k := constExpr(0)
		if e.Name == "True" {
			k = constExpr(1)
		}
		if c.opt.Exact {
			// A bool, which fuse.Func.Exact allows only as a condition.
			return &fuse.Expr{Op: fuse.OpBool, Args: []*fuse.Expr{k}, Check: -1}, nil
		}
		return k, nil
	}
	if b, ok := c.scope.names[e.Name]; ok {
		switch b.kind {
		case bVar:
			if x, ok := c.wideRead(e); ok {
				return x, nil
			}
			return c.biasedRead(varExpr(b.id), b.bias), nil
		case bScratch:
			return nil, errAt(e.NamePos, "%s is a scratch array, not a word: index it (%s[i]) or take len(%s)", e.Name, e.Name, e.Name)
		case bRow:
			return nil, errAt(e.NamePos, "%s is a table row, not a word: index it (%s[i]) or take len(%s)", e.Name, e.Name, e.Name)
		case bLog:
			return nil, errAt(e.NamePos, "%s", logOnly(e.Name))
		case bHash:
			return nil, errAt(e.NamePos, "%s is a %s, not a word: a function run as machine code takes x in %s, len(%s) and its methods", e.Name, c.hashOf(b).kind(), e.Name, e.Name)
		}
	}
	if c.scope.locals[e.Name] {
		return nil, errAt(e.NamePos, "%s is used before it is assigned", e.Name)
	}
	v, ok := c.scope.src.Free(e.Name)
	if r, isRefused := v.(Refused); ok && isRefused {
		return nil, errAt(e.NamePos, "%s %s", e.Name, r.Reason)
	}
	if !ok {
		if isWordBuiltin(e.Name) {
			return nil, errAt(e.NamePos, "%s is a builtin: call it, %s(x)", e.Name, e.Name)
		}
		if c.opt.Known != nil && c.opt.Known(e.Name) {
			return nil, errAt(e.NamePos, "%s is not allowed in a fused function", e.Name)
		}
		return nil, errAt(e.NamePos, "%s is not defined", e.Name)
	}
	w, ok := WordOf(v)
	if _, isBool := v.(starlark.Bool); isBool && c.opt.Exact {
		// A global True or False: a bool, as the literal is.
		return &fuse.Expr{Op: fuse.OpBool, Args: []*fuse.Expr{constExpr(w)}, Check: -1}, nil
	}
	if ok {
		return constExpr(w), nil
	}
	if _, isInt := v.(starlark.Int); isInt {
		return nil, errAt(e.NamePos, "%s = %s does not fit in 64 bits", e.Name, shortInt(v))
	}
	if t, err := c.lookupTable(e); err != nil {
		return nil, err
	} else if t >= 0 {
		return nil, errAt(e.NamePos, "%s is a table, not a word: index it (%s[i]) or take len(%s)", e.Name, e.Name, e.Name)
	}
	if _, ok := v.(*starlark.Function); ok {
		return nil, errAt(e.NamePos, "%s is a function: call it, %s(x)", e.Name, e.Name)
	}
	return nil, errAt(e.NamePos, "%s is a %s; a fused function may only read ints, bools and tables of them", e.Name, v.Type())
}

var binOps = map[syntax.Token]fuse.Op{
	syntax.PLUS: fuse.OpAdd, syntax.MINUS: fuse.OpSub, syntax.STAR: fuse.OpMul, syntax.SLASHSLASH: fuse.OpDiv,
	syntax.PERCENT: fuse.OpMod, syntax.AMP: fuse.OpAnd, syntax.PIPE: fuse.OpOr, syntax.CIRCUMFLEX: fuse.OpXor,
	syntax.LTLT: fuse.OpShl, syntax.GTGT: fuse.OpShr, syntax.EQL: fuse.OpEq, syntax.NEQ: fuse.OpNe,
	syntax.LT: fuse.OpLt, syntax.LE: fuse.OpLe, syntax.GT: fuse.OpGt, syntax.GE: fuse.OpGe,
}

func (c *compiler) binary(op syntax.Token, at syntax.Position, xe, ye syntax.Expr) (*fuse.Expr, error) {
	if op == syntax.STAR {
		for _, side := range []syntax.Expr{xe, ye} {
			if _, ok := unparen(side).(*syntax.ListExpr); ok {
				return nil, errAt(at, "a scratch array [V] * N must be assigned to a name (a = [0] * N)")
			}
		}
	}
	if op == syntax.STARSTAR {
		return nil, errAt(at, "** is not allowed: use 1 << n for powers of two")
	}
	if k, ok := c.foldWord(op, xe, ye); ok {
		return k, nil
	}
	if c.wideSite(op, xe, ye) {
		return c.wideBinary(op, at, xe, ye)
	}
	if op == syntax.IN || op == syntax.NOT_IN {
		if x, ok, err := c.tupleIn(xe, ye, op == syntax.NOT_IN, at); ok {
			return x, err
		}
	}
	if op == syntax.EQL || op == syntax.NEQ {
		if x, ok, err := c.tupleEq(op, at, xe, ye); ok {
			return x, err
		}
	}
	x, err := c.expr(xe)
	if err != nil {
		return nil, err
	}
	switch op {
	case syntax.AND:
		return c.lazy(fuse.OpAndThen, x, ye)
	case syntax.OR:
		return c.lazy(fuse.OpOrElse, x, ye)
	case syntax.IN, syntax.NOT_IN:
		if h, _, err := c.hashNamed(ye); h != nil || err != nil {
			if err != nil {
				return nil, err
			}
			if err := c.wordKeys(h, at); err != nil {
				return nil, err
			}
			return c.hashIn(h, x, op == syntax.NOT_IN, at), nil
		}
		if x, ok, err := c.listIn(x, ye, op == syntax.NOT_IN, at); ok {
			return x, err
		}
		return nil, errAt(at, "%s is not allowed in a fused function (test membership with a scratch array or a bit set: x >> i & 1)", op)
	}
	mark := len(*c.out)
	y, err := c.expr(ye)
	if err != nil {
		return nil, err
	}
	x = c.before(x, mark)
	return c.arith(op, at, x, y)
}

// arith compiles a binary operator on two words.
func (c *compiler) arith(op syntax.Token, at syntax.Position, x, y *fuse.Expr) (*fuse.Expr, error) {
	o, ok := binOps[op]
	if !ok {
		return nil, errAt(at, "%s is not allowed in a fused function", op)
	}
	if e, ok := c.signedMulMod(o, x, y); ok { // (signedmod.go)
		return e, nil
	}
	switch o {
	case fuse.OpDiv, fuse.OpMod:
		if y.Op == fuse.OpConst && y.Imm != 0 {
			return c.mk(o, x, y), nil
		}
		msg := "integer division by zero"
		if o == fuse.OpMod {
			msg = "integer modulo by zero"
		}
		return &fuse.Expr{Op: o, Args: []*fuse.Expr{x, y}, Check: c.check(fuse.CheckNonZero, 0, at, "%s", msg)}, nil
	case fuse.OpAdd, fuse.OpSub:
		if e, ok := c.signedArith(o, x, y); ok {
			return e, nil
		}
	case fuse.OpEq, fuse.OpNe, fuse.OpLt, fuse.OpLe, fuse.OpGt, fuse.OpGe:
		// A biased int (a read of a biased array or local, a negative
		// constant: biasOf) is compared biased: x op y as x + k op y + k,
		// which holds where x is negative (a sentinel -1 != t).
		_, kx := c.biasOf(x)
		_, ky := c.biasOf(y)
		if k := max(kx, ky); k > 0 {
			x, y = c.biasedTo(x, k), c.biasedTo(y, k)
		}
	}
	return c.mk(o, x, y), nil
}

// index compiles T[i], T[i][j], row[j] and a[i].
func (c *compiler) index(e *syntax.IndexExpr) (*fuse.Expr, error) {
	if gid, b, flat, ok, err := c.gridIndex(e); ok || err != nil {
		if err != nil {
			return nil, err
		}
		chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the list of lists %s", gid.Name)
		return c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{flat}, Check: chk}), nil
	}
	if inner, ok := unparen(e.X).(*syntax.IndexExpr); ok {
		tid, ok := unparen(inner.X).(*syntax.Ident)
		if ok {
			t, err := c.lookupTable(tid)
			if err != nil {
				return nil, err
			}
			if t >= 0 && !c.f.Tables[t].Flat {
				if k := c.shapeOf(t).stride; k > 0 {
					return nil, errAt(e.Lbrack, "%s[i][j] is a tuple of %d values; a fused function unpacks them in a loop (for a, b in %s[i])", tid.Name, k, tid.Name)
				}
				i, err := c.word(inner.Y)
				if err != nil {
					return nil, err
				}
				j, err := c.word(e.Y)
				if err != nil {
					return nil, err
				}
				chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the table %s", tid.Name)
				return c.tableRead(t, &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(t), Args: []*fuse.Expr{i, j}, Check: chk}), nil
			}
		}
	}
	id, ok := unparen(e.X).(*syntax.Ident)
	if !ok {
		if c.opt.CheckOnly {
			if _, err := c.word(e.Y); err != nil {
				return nil, err
			}
			return varExpr(c.newVar()), nil
		}
		return nil, errAt(e.Lbrack, "indexing %s is not allowed in a fused function (index a table, a row or a scratch array)", describe(e.X))
	}
	if h, _, err := c.hashNamed(id); h != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return c.hashIndex(h, id, e)
	}
	if b, ok := c.scope.names[id.Name]; ok && b.kind == bScratch && c.opt.Exact {
		if k, ok := negIndex(e.Y); ok {
			// xs[-k]: the k-th from the end (natural.go).
			chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the scratch array %s", id.Name)
			return c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{c.fromEnd(b, k)}, Check: chk}), nil
		}
	}
	i, err := c.word(e.Y)
	if err != nil {
		return nil, err
	}
	if b, ok := c.scope.names[id.Name]; ok {
		switch b.kind {
		case bScratch:
			chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the scratch array %s", id.Name)
			if b.count != 0 {
				i = c.below(i, varExpr(b.count-1), c.proc.Scratch[b.id].Len)
			}
			return c.scratchRead(&fuse.Expr{Op: fuse.OpScratch, Imm: uint64(b.id), Args: []*fuse.Expr{i}, Check: chk}), nil
		case bRow:
			if k := c.shapeOf(b.table).stride; k > 0 {
				return nil, errAt(e.Lbrack, "%s[j] is a tuple of %d values; a fused function unpacks them in a loop (for a, b in %s)", id.Name, k, id.Name)
			}
			chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the row %s of %s", id.Name, c.f.Tables[b.table].Name)
			return c.tableRead(b.table, &fuse.Expr{Op: fuse.OpLoad2, Imm: uint64(b.table), Args: []*fuse.Expr{varExpr(b.id), i}, Check: chk}), nil
		}
		if c.opt.CheckOnly {
			return varExpr(c.newVar()), nil
		}
		return nil, errAt(e.Lbrack, "%s is a word; index a table, a row or a scratch array", id.Name)
	}
	t, err := c.lookupTable(id)
	if err != nil {
		return nil, err
	}
	if t < 0 {
		if c.scope.locals[id.Name] {
			return nil, errAt(id.NamePos, "%s is used before it is assigned", id.Name)
		}
		if _, ok := c.scope.src.Free(id.Name); !ok {
			return nil, errAt(id.NamePos, "%s is not defined", id.Name)
		}
		if c.opt.CheckOnly {
			return varExpr(c.newVar()), nil
		}
		return nil, errAt(e.Lbrack, "%s is not a table; a fused function indexes lists, tuples and word arrays of words, or lists of them", id.Name)
	}
	if !c.f.Tables[t].Flat {
		return nil, errAt(e.Lbrack, "%s[i] is a row of the table %s: index it (%s[i][j]) or name it (row = %s[i])", id.Name, id.Name, id.Name, id.Name)
	}
	chk := c.check(fuse.CheckIndex, 0, e.Lbrack, "index out of range of the table %s", id.Name)
	return c.tableRead(t, &fuse.Expr{Op: fuse.OpLoad, Imm: uint64(t), Args: []*fuse.Expr{i}, Check: chk}), nil
}

// call compiles a call of a word builtin, len, min, max, abs, or a helper.
func (c *compiler) call(e *syntax.CallExpr) (*fuse.Expr, error) {
	if dot, ok := e.Fn.(*syntax.DotExpr); ok {
		if _, ok := c.chessModule(dot.X); ok {
			return c.chessCall(e, dot)
		}
		if x, ok, err := c.hashMethod(e, dot); ok {
			return x, err
		}
		if x, ok, err := c.listMethod(e, dot); ok {
			return x, err
		}
		if x, ok, err := c.listSearch(e, dot); ok {
			return x, err
		}
	}
	name, ok := callee(e)
	if !ok {
		return nil, errAt(pos(e.Fn), "calling %s is not allowed in a fused function", describe(e.Fn))
	}
	if _, local := c.scope.names[name]; local || c.scope.locals[name] {
		return nil, errAt(pos(e.Fn), "%s is a local, not a function", name)
	}
	if c.opt.CheckOnly && c.opt.Defs != nil {
		if src, ok := c.opt.Defs(name); ok {
			return c.helper(e, helperOf{name: name, source: func() (*Source, error) { return src, nil }})
		}
	}
	if v, ok := c.scope.src.Free(name); ok {
		if fn, ok := v.(*starlark.Function); ok {
			if c.opt.CheckOnly {
				return c.opaqueCall(e)
			}
			return c.helper(e, helperOf{id: fn, name: fn.Name(), source: func() (*Source, error) {
				if c.opt.Helper == nil {
					return nil, fmt.Errorf("calling a helper is not allowed here")
				}
				return c.opt.Helper(fn)
			}})
		}
	}
	if !c.isBuiltin(name) {
		if c.opt.CheckOnly {
			// The checker reads globals it has not run as stand-ins.
			return c.opaqueCall(e)
		}
		return nil, errAt(pos(e.Fn), "%s is not a function a fused function can call", name)
	}
	if x, ok, err := c.reduction(name, e); ok {
		return x, err
	}
	if name == "abs" {
		if x, ok, err := c.absOf(e); ok {
			return x, err
		}
	}
	switch name {
	case "len":
		return c.length(e)
	case "min", "max", "abs":
		if x, ok, err := c.wideMinMax(e); ok { // (wideminmax.go)
			return x, err
		}
		return c.minMaxAbs(name, e)
	case "bool":
		if c.opt.Exact {
			return c.boolOf(e)
		}
	}
	if !isWordBuiltin(name) {
		switch name {
		case "list":
			return nil, errAt(pos(e.Fn), "a fused function cannot build a list; use a scratch array: name = [0] * N")
		case "print":
			return nil, errAt(pos(e.Fn), "print is not allowed in a fused function (return the word and print it outside)")
		case "fail":
			return nil, errAt(pos(e.Fn), "fail is not allowed in a fused function (return a word that says so)")
		case "range", "subsets", "bits":
			return nil, errAt(pos(e.Fn), "%s is allowed only as the iterable of a for loop in a fused function", name)
		}
		return nil, errAt(pos(e.Fn), "%s is not allowed in a fused function", name)
	}
	return c.wordBuiltin(name, e)
}

// boolOf compiles bool(x), with Options.Exact, as not not x: a bool, the
// truth of x (an int's, or a bool's), which fuse.Func.Exact types as a
// condition.
func (c *compiler) boolOf(e *syntax.CallExpr) (*fuse.Expr, error) {
	if len(e.Args) != 1 {
		return nil, errAt(pos(e.Fn), "bool takes one argument in a function run as machine code")
	}
	if _, ok := e.Args[0].(*syntax.BinaryExpr); ok && e.Args[0].(*syntax.BinaryExpr).Op == syntax.EQ {
		return nil, errAt(pos(e.Args[0]), "bool: keyword arguments are not allowed")
	}
	x, err := c.word(e.Args[0])
	if err != nil {
		return nil, err
	}
	return c.mk(fuse.OpLNot, c.mk(fuse.OpLNot, x)), nil
}

func (c *compiler) length(e *syntax.CallExpr) (*fuse.Expr, error) {
	if len(e.Args) != 1 {
		return nil, errAt(pos(e.Fn), "len takes one argument")
	}
	arg := unparen(e.Args[0])
	if ix, ok := arg.(*syntax.IndexExpr); ok {
		if tid, ok := unparen(ix.X).(*syntax.Ident); ok {
			t, err := c.lookupTable(tid)
			if err != nil {
				return nil, err
			}
			if t >= 0 && !c.f.Tables[t].Flat {
				i, err := c.word(ix.Y)
				if err != nil {
					return nil, err
				}
				chk := c.check(fuse.CheckIndex, 0, ix.Lbrack, "index out of range of the table %s", tid.Name)
				return c.tuplesOf(t, &fuse.Expr{Op: fuse.OpRowLen, Imm: uint64(t), Args: []*fuse.Expr{i}, Check: chk}), nil
			}
			if t >= 0 && c.opt.CheckOnly && c.f.Tables[t].Words() == 0 {
				// A list the check has not seen filled (T = [], then
				// T.append(row) at the top level): its rows are known
				// when the script runs.
				if _, err := c.word(ix.Y); err != nil {
					return nil, err
				}
				return varExpr(c.newVar()), nil
			}
		}
	}
	if tl, _, ok := c.tupleListNamed(arg); ok {
		return varExpr(tl.parts[0].count - 1), nil
	}
	if comp, ok := arg.(*syntax.Comprehension); ok && !comp.Curly && c.opt.Exact {
		return c.comprehensionLen(comp) // lists.go
	}
	if x, ok, err := c.distinctLen(arg); ok {
		return x, err // hashupdate.go
	}
	id, ok := arg.(*syntax.Ident)
	if !ok {
		return nil, errAt(pos(arg), "len of %s is not allowed in a fused function (len of a table, a row or a scratch array)", describe(arg))
	}
	if h, _, err := c.hashNamed(id); h != nil || err != nil {
		if err != nil {
			return nil, err
		}
		return c.hashLen(h), nil
	}
	if b, ok := c.scope.names[id.Name]; ok {
		switch b.kind {
		case bScratch:
			if b.count != 0 {
				return varExpr(b.count - 1), nil
			}
			return constExpr(uint64(c.proc.Scratch[b.id].Len)), nil
		case bRow:
			return c.tuplesOf(b.table, &fuse.Expr{Op: fuse.OpRowLen, Imm: uint64(b.table), Args: []*fuse.Expr{varExpr(b.id)}, Check: -1}), nil
		}
		if c.opt.CheckOnly && !c.isParam(id.Name) {
			// A local the check takes for a word may hold a row of a
			// global it has not run; a parameter is a word in a run too.
			return varExpr(c.newVar()), nil
		}
		return nil, errAt(id.NamePos, "len of the word %s is not allowed (popcount counts its bits)", id.Name)
	}
	t, err := c.lookupTable(id)
	if err != nil {
		return nil, err
	}
	if t < 0 {
		if _, ok := c.scope.src.Free(id.Name); !ok && !c.scope.locals[id.Name] {
			return nil, errAt(id.NamePos, "%s is not defined", id.Name)
		}
		if c.opt.CheckOnly && !c.scope.locals[id.Name] {
			return varExpr(c.newVar()), nil
		}
		return nil, errAt(id.NamePos, "len of %s is not allowed in a fused function (len of a table, a row or a scratch array)", id.Name)
	}
	tb := &c.f.Tables[t]
	if tb.Flat {
		return constExpr(uint64(len(tb.Rows[0]))), nil
	}
	return constExpr(uint64(len(tb.Rows))), nil
}

// isParam reports whether name is a parameter of the function being
// compiled (not of a helper, which a caller may pass a row).
func (c *compiler) isParam(name string) bool {
	if c.scope.retLabel >= 0 || c.scope.proc {
		return false
	}
	for _, p := range c.scope.src.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

func (c *compiler) minMaxAbs(name string, e *syntax.CallExpr) (*fuse.Expr, error) {
	var args []*fuse.Expr
	for _, a := range e.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			return nil, errAt(pos(a), "%s: keyword arguments are not allowed in a fused function", name)
		}
		x, err := c.word(a)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	if name == "abs" {
		if len(args) != 1 {
			return nil, errAt(pos(e.Fn), "abs takes one argument")
		}
		if c.opt.Exact {
			// A constant is the int itself, below 2^64 (a word of 2^63
			// or more is not negative), or -k.
			if args[0].Op == fuse.OpConst {
				return args[0], nil
			}
			if k, ok := negConstant(args[0]); ok {
				return constExpr(k), nil
			}
		}
		if args[0].Op == fuse.OpConst {
			if int64(args[0].Imm) < 0 {
				return constExpr(-args[0].Imm), nil
			}
			return args[0], nil
		}
		return mk(fuse.OpAbs, args[0]), nil
	}
	if len(args) < 2 {
		return nil, errAt(pos(e.Fn), "%s of one value in a fused function: give it two or more words (%s(a, b))", name, name)
	}
	op := fuse.OpMin
	if name == "max" {
		op = fuse.OpMax
	}
	r := args[0]
	for _, a := range args[1:] {
		if r.Op == fuse.OpConst && a.Op == fuse.OpConst {
			if (op == fuse.OpMin) == (a.Imm < r.Imm) {
				r = a
			}
			continue
		}
		r = c.mk(op, r, a)
	}
	return r, nil
}

// helper compiles a call of a Starlark function: inlined, or as a call of
// a Proc where the function recurses (it is already being compiled, as
// the unit or inlined into it) or the unit has inlined maxInline calls.
func (c *compiler) helper(e *syntax.CallExpr, fn helperOf) (*fuse.Expr, error) {
	name := fn.name
	for _, a := range e.Args {
		if b, ok := a.(*syntax.BinaryExpr); ok && b.Op == syntax.EQ {
			return nil, errAt(pos(a), "%s: keyword arguments to a helper are not allowed in a fused function", name)
		}
	}
	if c.calledOut(e, fn) {
		return c.callOut(e, fn) // (callout.go)
	}
	kinds, err := c.argKinds(e)
	if err != nil {
		return nil, err
	}
	key := procKey{fn.key(), kinds}
	none, err := c.returnsNone(fn)
	if err != nil {
		return nil, errAt(pos(e.Fn), "%s: %v", name, err)
	}
	if none && !c.discarded[e] {
		return nil, errAt(pos(e.Fn), "%s returns None, which is not a word: call it as a statement", name)
	}
	recursive := c.scope.src.Name == name || slices.Contains(c.calls, name)
	_, compiled := c.procs[key]
	grows := strings.Contains(kinds, "g")
	// A helper given arrays or tables is compiled once and called (its
	// code shared by the call sites), unless it returns what only an
	// inlined helper returns: an array, which the caller names, or (with
	// Options.Exact) a bool; or it takes a list built by append.
	byCall := false
	if strings.ContainsAny(kinds, "at") {
		h, err := c.helperReturns(fn)
		if err != nil {
			return nil, errAt(pos(e.Fn), "%s: %v", name, err)
		}
		byCall = !h.array && !(c.opt.Exact && h.boolean)
	}
	tupleVars, unpacked := c.wantTuple[e]
	if unpacked && (compiled || recursive) {
		return nil, errAt(pos(e.Fn), "%s returns a tuple and recurses; a function run as machine code unpacks the tuple of a helper it inlines", name)
	}
	if !unpacked && (compiled || recursive || !grows && (c.preferred[fn.key()] || c.inlined >= maxInline || byCall)) {
		if grows {
			return nil, errAt(pos(e.Fn), "%s takes a list built by append, which a fused function passes only to a helper it inlines (not to one that recurses)", name)
		}
		return c.callProc(e, fn, key)
	}
	c.inlined++
	src, err := fn.source()
	if err != nil {
		return nil, helperError(fn, errAt(pos(e.Fn), "%s: %v", name, err))
	}
	src = withDictPairs(src, c.opt.Exact)
	if len(e.Args) != len(src.Params) {
		return nil, errAt(pos(e.Fn), "%s takes %d arguments, not %d", name, len(src.Params), len(e.Args))
	}
	if err := c.checkLiterals(src); err != nil {
		return nil, helperError(fn, err)
	}
	sc := c.newScope(src)
	if err := c.bindGlobals(sc, c.garr); err != nil {
		return nil, err
	}
	vals := make([]*fuse.Expr, len(src.Params))
	for i, a := range e.Args {
		// An array or a table is passed by reference: the helper's
		// parameter names the caller's.
		if id, ok := unparen(a).(*syntax.Ident); ok {
			if bd, ok := c.scope.names[id.Name]; ok && (bd.kind == bScratch || bd.kind == bHash) {
				sc.names[src.Params[i].Name], sc.byRef[src.Params[i].Name] = bd, true
				continue
			}
			if _, local := c.scope.names[id.Name]; !local {
				t, err := c.lookupTable(id)
				if err != nil {
					return nil, err
				}
				if t >= 0 {
					sc.tables[src.Params[i].Name] = t
					delete(sc.locals, src.Params[i].Name)
					continue
				}
			}
		}
		mark := len(*c.out)
		x, err := c.word(a)
		if err != nil {
			return nil, err
		}
		c.beforeAll(vals[:i], mark)
		vals[i] = x
	}
	bound := assignedNames(src.Body)
	for i, p := range src.Params {
		if vals[i] == nil {
			continue // an array or a table
		}
		if vals[i].Op == fuse.OpVar && !bound[p.Name] {
			// The caller's variable itself: the helper cannot change it,
			// nor anything the helper runs (a copy would only take a
			// register or a home).
			sc.names[p.Name] = binding{kind: bVar, id: int(vals[i].Imm)}
			continue
		}
		v := c.newVar()
		sc.names[p.Name] = binding{kind: bVar, id: v}
		c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: v, X: vals[i]})
	}
	sc.retVar, sc.retLabel = c.newVar(), c.newLabel()
	sc.none = none
	sc.tupleVars = tupleVars
	if !none && tupleVars == nil {
		sc.retBias = c.returnBias(sc)
	}
	outer := c.scope
	c.calls = append(c.calls, outer.src.Name)
	c.f.Inlined = max(c.f.Inlined, len(c.calls))
	c.scope = sc
	body, err := c.body(src)
	c.scope = outer
	c.calls = c.calls[:len(c.calls)-1]
	if err != nil {
		return nil, helperError(fn, err)
	}
	body = dropTailBreaks(body, sc.retLabel)
	if sc.retArr != nil {
		if !c.wantArray[e] {
			return nil, errAt(pos(e.Fn), "%s returns a list: a fused function takes it as name = %s(...) or for x in %s(...)", name, name, name)
		}
		c.emit(fuse.Stmt{Kind: fuse.SLabeled, Label: sc.retLabel, Body: body})
		x := &fuse.Expr{Op: fuse.OpArray, Imm: uint64(sc.retArr.id), Check: -1}
		c.arrays[x] = *sc.retArr
		if !sc.retShared {
			c.unshared[x] = true
		}
		return x, nil
	}
	// A helper that is one return needs no block.
	if len(body) == 1 && body[0].Kind == fuse.SAssign && body[0].Var == sc.retVar {
		return c.biasedRead(body[0].X, sc.retBias), nil
	}
	c.emit(fuse.Stmt{Kind: fuse.SLabeled, Label: sc.retLabel, Body: body})
	return c.biasedRead(varExpr(sc.retVar), sc.retBias), nil
}

// helperReturns says what a helper's returns give: None (no return with a
// value), perhaps an array, perhaps a bool.
type helperReturns struct{ none, array, boolean bool }

// helperReturns reads what the helper fn returns, once.
func (c *compiler) helperReturns(fn helperOf) (helperReturns, error) {
	if h, ok := c.returns[fn.key()]; ok {
		return h, nil
	}
	src, err := fn.source()
	if err != nil {
		return helperReturns{}, err
	}
	r := returnsOf(src.Body)
	h := helperReturns{none: r.values == 0 && len(r.tuples) == 0, array: returnsArray(src, r), boolean: returnsBool(src)}
	c.returns[fn.key()] = h
	return h, nil
}

// returnsArray reports whether the function src, whose returns are r, may
// return an array: a return of one of its parameters, or of a name it
// assigns a list ([...], [V] * N, list(a)).
func returnsArray(src *Source, r returns) bool {
	if len(r.names) == 0 {
		return false
	}
	lists := map[string]bool{}
	for _, p := range src.Params {
		lists[p.Name] = true
	}
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if a, ok := n.(*syntax.AssignStmt); ok {
				if id, ok := a.LHS.(*syntax.Ident); ok {
					switch rhs := unparen(a.RHS).(type) {
					case *syntax.ListExpr, *syntax.BinaryExpr:
						lists[id.Name] = true
					case *syntax.CallExpr:
						if name, ok := callee(rhs); ok && name == "list" {
							lists[id.Name] = true
						}
					}
				}
			}
			return true
		})
	}
	for _, name := range r.names {
		if lists[name] {
			return true
		}
	}
	return false
}

// returnsBool reports whether the function src may return a bool: True,
// False, a comparison or a not.
func returnsBool(src *Source) bool {
	found := false
	for _, s := range src.Body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ReturnStmt:
				switch r := unparen(n.Result).(type) {
				case *syntax.Ident:
					found = found || r.Name == "True" || r.Name == "False"
				case *syntax.UnaryExpr:
					found = found || r.Op == syntax.NOT
				case *syntax.BinaryExpr:
					switch r.Op {
					case syntax.EQL, syntax.NEQ, syntax.LT, syntax.LE, syntax.GT, syntax.GE, syntax.IN, syntax.NOT_IN:
						found = true
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			return true
		})
	}
	return found
}

// returnsNone reports whether the helper fn returns None (it has no
// return with a value): its calls are statements.
func (c *compiler) returnsNone(fn helperOf) (bool, error) {
	h, err := c.helperReturns(fn)
	return h.none, err
}

// assignedNames returns the names that body assigns or loops over.
func assignedNames(body []syntax.Stmt) map[string]bool {
	names := map[string]bool{}
	var bind func(e syntax.Expr)
	bind = func(e syntax.Expr) {
		switch e := e.(type) {
		case *syntax.Ident:
			names[e.Name] = true
		case *syntax.ParenExpr:
			bind(e.X)
		case *syntax.TupleExpr:
			for _, x := range e.List {
				bind(x)
			}
		case *syntax.ListExpr:
			for _, x := range e.List {
				bind(x)
			}
		}
	}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.AssignStmt:
				bind(n.LHS)
			case *syntax.ForStmt:
				bind(n.Vars)
			case *syntax.ForClause:
				bind(n.Vars)
			}
			return true
		})
	}
	return names
}

// argKinds describes the arguments of a helper's call: "w" a word, "a" a
// scratch array of the unit, "t" a table; arrays and tables carry what
// the helper is compiled for (an array's length and value, a table's index).
func (c *compiler) argKinds(e *syntax.CallExpr) (string, error) {
	var b strings.Builder
	for _, a := range e.Args {
		id, ok := unparen(a).(*syntax.Ident)
		if !ok {
			b.WriteString("w,")
			continue
		}
		if bd, ok := c.scope.names[id.Name]; ok {
			switch bd.kind {
			case bScratch:
				s := c.proc.Scratch[bd.id]
				if bd.count != 0 {
					b.WriteString("g,") // inlined only: its length is the caller's variable
					continue
				}
				fmt.Fprintf(&b, "a%d:%d:%d,", s.Len, s.Init, s.Bias)
				continue
			case bRow:
				return "", errAt(id.NamePos, "%s is a table row; pass the table and the row's index to a helper", id.Name)
			case bHash:
				b.WriteString(c.hashOf(bd).argKind() + ",")
				continue
			}
			b.WriteString("w,")
			continue
		}
		if _, _, err := c.hashNamed(id); err != nil {
			return "", err // a module's set or dict, compiled again as one
		}
		t, err := c.lookupTable(id)
		if err != nil {
			return "", err
		}
		if t >= 0 {
			fmt.Fprintf(&b, "t%d,", t)
			continue
		}
		b.WriteString("w,")
	}
	return b.String(), nil
}

// callProc compiles a call of fn's Proc for the arguments' kinds (key),
// compiling the Proc first where this is its first call.
func (c *compiler) callProc(e *syntax.CallExpr, fn helperOf, key procKey) (*fuse.Expr, error) {
	name := fn.name
	id, ok := c.procs[key]
	var p *fuse.Proc
	if !ok {
		src, err := fn.source()
		if err != nil {
			return nil, helperError(fn, errAt(pos(e.Fn), "%s: %v", name, err))
		}
		if len(e.Args) != len(src.Params) {
			return nil, errAt(pos(e.Fn), "%s takes %d arguments, not %d", name, len(src.Params), len(e.Args))
		}
		if id, err = c.compileProc(e, src, key); err != nil {
			return nil, helperError(fn, err)
		}
	}
	p = &c.f.Procs[id]
	if explicit := p.Arrays - c.globalArrays(c.procGlobals[id]) - hashArrayArgs(key.args); len(e.Args) != p.Params+explicit+strings.Count(key.args, "t") {
		return nil, errAt(pos(e.Fn), "%s takes %d arguments, not %d", name, p.Params+explicit, len(e.Args))
	}
	var words, arrays []*fuse.Expr
	for _, a := range e.Args {
		if id, ok := unparen(a).(*syntax.Ident); ok {
			if bd, ok := c.scope.names[id.Name]; ok && bd.kind == bHash {
				xs, err := c.hashArgs(c.hashOf(bd), pos(a))
				if err != nil {
					return nil, err
				}
				arrays = append(arrays, xs...)
				continue
			}
			if bd, ok := c.scope.names[id.Name]; ok && bd.kind == bScratch {
				if c.iterating[arrayOf{c.proc, bd.id}] {
					// The helper may change it, an error in Starlark.
					return nil, errAt(pos(a), "%s is being iterated over; a fused function does not pass it to a helper that recurses there", id.Name)
				}
				arrays = append(arrays, &fuse.Expr{Op: fuse.OpArray, Imm: uint64(bd.id), Check: -1})
				continue
			}
			if t, _ := c.lookupTable(id); t >= 0 {
				continue
			}
		}
		mark := len(*c.out)
		x, err := c.word(a)
		if err != nil {
			return nil, err
		}
		c.beforeAll(words, mark)
		words = append(words, x)
	}
	globals, err := c.globalArgs(e, c.procGlobals[id])
	if err != nil {
		return nil, err
	}
	arrays = append(arrays, globals...)
	chk := c.check(fuse.CheckDepth, 0, e.Lparen, "recursion too deep")
	chain := append(append([]string(nil), c.calls...), c.scope.src.Name, name)
	c.depths = append(c.depths, depthCheck{check: chk, chain: strings.Join(chain, " -> ")})
	return &fuse.Expr{Op: fuse.OpCall, Imm: uint64(id), Args: append(words, arrays...), Check: chk}, nil
}

// compileProc compiles src as a Proc for the kinds of arguments key.args
// and returns its index.
func (c *compiler) compileProc(e *syntax.CallExpr, src *Source, key procKey) (int, error) {
	id := len(c.f.Procs)
	c.f.Procs = append(c.f.Procs, fuse.Proc{Name: src.Name})
	c.procs[key] = id
	u := &fuse.Proc{Name: src.Name}
	src = withDictPairs(src, c.opt.Exact)
	if err := c.checkLiterals(src); err != nil {
		return 0, err
	}
	sc := c.newScope(src)
	sc.retLabel, sc.proc = -1, true
	sc.none = c.returns[key.fn].none
	kinds := strings.Split(strings.TrimSuffix(key.args, ","), ",")
	for i, p := range src.Params {
		if kinds[i] == "w" {
			sc.names[p.Name] = binding{kind: bVar, id: u.Vars}
			u.Vars++
			u.Params++
		}
	}
	for i, p := range src.Params {
		switch k := kinds[i]; k[0] {
		case 'a':
			a := unparen(e.Args[i]).(*syntax.Ident)
			s := c.proc.Scratch[c.scope.names[a.Name].id]
			u.Scratch = append(u.Scratch, fuse.Scratch{Name: p.Name, Len: s.Len, Init: s.Init, Bias: s.Bias})
			sc.names[p.Name] = binding{kind: bScratch, id: u.Arrays}
			u.Arrays++
		case 't':
			var t int
			fmt.Sscanf(k, "t%d", &t)
			sc.tables[p.Name] = t
			delete(sc.locals, p.Name)
		case 'h':
			c.hashParam(sc, u, p.Name, k)
		}
	}
	c.procGlobals[id] = c.reachedGlobals(key.fn, src)
	garr, err := c.globalParams(u, c.procGlobals[id])
	if err != nil {
		return 0, err
	}
	if err := c.bindGlobals(sc, garr); err != nil {
		return 0, err
	}
	c.f.Procs[id] = *u // the parameters, for the calls in its body
	saved := *c
	c.proc, c.scope, c.calls, c.inlined, c.unit, c.garr = u, sc, nil, 0, id, garr
	body, err := c.body(src)
	c.proc, c.scope, c.calls, c.inlined, c.out, c.unit, c.garr = saved.proc, saved.scope, saved.calls, saved.inlined, saved.out, saved.unit, saved.garr
	if err != nil {
		return 0, err
	}
	u.Body = body
	c.f.Procs[id] = *u
	return id, nil
}

// scratchWords returns the elements of the scratch arrays of the fused
// function, inlined helpers included, and of the unit being compiled.
func (c *compiler) scratchWords() int {
	n := 0
	for _, a := range c.proc.Scratch {
		n += a.Len
	}
	return n
}

// body compiles src's statements into a list of their own, ending with
// the failure of a body that runs off its end without return.
func (c *compiler) body(src *Source) ([]fuse.Stmt, error) {
	return c.nested(func() error {
		if err := c.stmts(src.Body); err != nil {
			return err
		}
		c.end(src)
		return nil
	})
}

// end compiles the end of src's body where control reaches it: Starlark
// returns None there, a word 0 for a function that returns None, else a
// failure.
func (c *compiler) end(src *Source) {
	if fuse.Leaves(*c.out) {
		return
	}
	if c.scope.none {
		c.ret(constExpr(0))
		return
	}
	c.emit(fuse.Stmt{Kind: fuse.SFail, Check: c.check(fuse.CheckReturned, 0, src.End,
		"the function ended without return (None is not a word)")})
}

// ret compiles a return of the word v from the function being compiled.
func (c *compiler) ret(v *fuse.Expr) {
	if c.scope.retLabel < 0 {
		c.emit(fuse.Stmt{Kind: fuse.SReturn, X: c.biasedTo(v, c.scope.retBias)})
		return
	}
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: c.scope.retVar, X: c.biasedTo(v, c.scope.retBias)})
	c.emit(fuse.Stmt{Kind: fuse.SBreak, Label: c.scope.retLabel})
}

// returns counts a body's return statements by what they return.
type returns struct {
	values, bare int      // a value that is not a tuple; nothing (None)
	tuples       []int    // tuples, by length
	names        []string // the names among the values
}

func (r returns) other() string {
	if r.values > 0 {
		return "another value"
	}
	return "None"
}

// returnsOf counts the return statements of body (not those of the
// functions it defines).
func returnsOf(body []syntax.Stmt) returns {
	var r returns
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.ReturnStmt:
				if n.Result == nil {
					r.bare++
				} else if t, ok := unparen(n.Result).(*syntax.TupleExpr); ok {
					r.tuples = append(r.tuples, len(t.List))
				} else {
					r.values++
					if id, ok := unparen(n.Result).(*syntax.Ident); ok {
						r.names = append(r.names, id.Name)
					}
				}
			case *syntax.DefStmt, *syntax.LambdaExpr:
				return false
			}
			return true
		})
	}
	return r
}

// dropTailBreaks removes the breaks of label that end ss, also in the
// branches of an if that ends it: at the end of the block they leave, they
// jump to where control goes anyway.
func dropTailBreaks(ss []fuse.Stmt, label int) []fuse.Stmt {
	if n := len(ss); n > 0 {
		switch last := &ss[n-1]; {
		case last.Kind == fuse.SBreak && last.Label == label:
			return ss[:n-1]
		case last.Kind == fuse.SIf:
			last.Body = dropTailBreaks(last.Body, label)
			last.Else = dropTailBreaks(last.Else, label)
		}
	}
	return ss
}

// opaqueCall compiles the arguments of a call whose callee is not known
// (CheckOnly: a helper loaded from another module, a global not run) and
// takes its result to be a word. A scratch array or a table may be passed,
// as to any helper.
func (c *compiler) opaqueCall(e *syntax.CallExpr) (*fuse.Expr, error) {
	for _, a := range e.Args {
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			a = kv.Y
		}
		if id, ok := unparen(a).(*syntax.Ident); ok {
			if bd, ok := c.scope.names[id.Name]; ok && bd.kind == bScratch {
				continue
			}
			if t, _ := c.lookupTable(id); t >= 0 {
				continue
			}
		}
		if _, err := c.word(a); err != nil {
			return nil, err
		}
	}
	return varExpr(c.newVar()), nil
}

// wordBuiltin compiles a call of the word builtin name: its parameters,
// their defaults and which are required as bitops declares them.
func (c *compiler) wordBuiltin(name string, e *syntax.CallExpr) (*fuse.Expr, error) {
	d, ok := bitops.Lookup(name)
	if !ok {
		return nil, errAt(pos(e.Fn), "%s is not a word builtin", name)
	}
	names, required := d.Names(), d.Required()
	args := make([]syntax.Expr, len(names))
	for i, a := range e.Args {
		key, val := "", a
		if kv, ok := a.(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
			key, val = kv.X.(*syntax.Ident).Name, kv.Y
		}
		j := i
		if key != "" {
			j = -1
			for k, n := range names {
				if n == key {
					j = k
				}
			}
			if j < 0 {
				return nil, errAt(pos(a), "%s has no parameter %s", name, key)
			}
		}
		if j >= len(names) {
			return nil, errAt(pos(a), "%s takes at most %d arguments", name, len(names))
		}
		if args[j] != nil {
			return nil, errAt(pos(a), "%s: %s given twice", name, names[j])
		}
		args[j] = val
	}
	at := pos(e.Fn)
	for i := 0; i < required; i++ {
		if args[i] == nil {
			return nil, errAt(at, "%s: missing argument %s", name, names[i])
		}
	}
	vals := make([]*fuse.Expr, len(names))
	for i, a := range args {
		if a == nil {
			continue
		}
		v, err := c.word(a)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	constArg := func(i int) (uint64, error) {
		if args[i] == nil {
			return d.Params[i].Default, nil
		}
		if vals[i].Op != fuse.OpConst {
			return 0, errAt(pos(args[i]), "%s: %s must be a constant in a fused function", name, names[i])
		}
		return vals[i].Imm, nil
	}
	checked := func(op fuse.Op, imm uint64, chk int, args ...*fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: op, Imm: imm, Args: args, Check: chk}
	}
	width := func(i int) (uint64, int, error) {
		w, err := constArg(i)
		if err != nil {
			return 0, -1, err
		}
		if w != 8 && w != 16 && w != 32 && w != 64 {
			return 0, -1, errAt(pos(args[i]), "%s: width = %d is not 8, 16, 32 or 64", name, w)
		}
		if w == 64 {
			return w, -1, nil
		}
		return w, c.check(fuse.CheckFits, w, at, "%s: x does not fit in %d bits", name, w), nil
	}
	x := vals[0]
	switch name {
	case "popcount":
		return mk(fuse.OpPopcount, x), nil
	case "bsf", "bsr":
		op := fuse.OpBsf
		if name == "bsr" {
			op = fuse.OpBsr
		}
		if x.Op == fuse.OpConst && x.Imm != 0 {
			return mk(op, x), nil
		}
		return checked(op, 0, c.check(fuse.CheckNonZero, 0, at, "%s: x = 0 has no one bit", name), x), nil
	case "lsb":
		return mk(fuse.OpLsb, x), nil
	case "parity":
		return mk(fuse.OpParity, x), nil
	case "gray":
		return mk(fuse.OpGray, x), nil
	case "gray_inverse":
		return mk(fuse.OpGrayInv, x), nil
	case "pdep":
		return mk(fuse.OpPdep, x, vals[1]), nil
	case "pext":
		return mk(fuse.OpPext, x, vals[1]), nil
	case "delta_swap":
		chk := c.check(fuse.CheckDelta, 0, at, "delta_swap: delta must be 0..63 and mask << delta must neither overflow nor overlap mask")
		return checked(fuse.OpDeltaSwap, 0, chk, x, vals[1], vals[2]), nil
	case "rotl", "rotr":
		w, chk, err := width(2)
		if err != nil {
			return nil, err
		}
		op := fuse.OpRotl
		if name == "rotr" {
			op = fuse.OpRotr
		}
		if chk < 0 {
			return mkImm(op, w, x, vals[1]), nil
		}
		return checked(op, w, chk, x, vals[1]), nil
	case "reverse_bits", "swap_bytes":
		w, chk, err := width(1)
		if err != nil {
			return nil, err
		}
		op := fuse.OpReverse
		if name == "swap_bytes" {
			op = fuse.OpSwapBytes
		}
		if chk < 0 {
			return mkImm(op, w, x), nil
		}
		return checked(op, w, chk, x), nil
	case "debruijn_bsf":
		magic, err := constArg(1)
		if err != nil {
			return nil, err
		}
		w, fits, err := width(2)
		if err != nil {
			return nil, err
		}
		if fits >= 0 {
			// x must fit in w bits: check it once, into a variable.
			t := c.newVar()
			c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: t, X: x})
			c.emit(fuse.Stmt{Kind: fuse.SIf, X: mk(fuse.OpShr, varExpr(t), constExpr(w)),
				Body: []fuse.Stmt{{Kind: fuse.SFail, Check: fits, X: varExpr(t)}}})
			x = varExpr(t)
		}
		if magic>>w != 0 && w < 64 {
			return nil, errAt(pos(args[1]), "debruijn_bsf: magic = %#x does not fit in %d bits", magic, w)
		}
		if _, ok := debruijn.NewScanner(magic, int(w)); !ok {
			return nil, errAt(at, "debruijn_bsf: magic = %#x is not a De Bruijn magic of width %d", magic, w)
		}
		// A valid magic scans exactly as bsf does.
		if x.Op == fuse.OpConst && x.Imm != 0 {
			return mk(fuse.OpBsf, x), nil
		}
		return checked(fuse.OpBsf, 0, c.check(fuse.CheckNonZero, 0, at, "debruijn_bsf: x = 0 has no one bit"), x), nil
	}
	return nil, errAt(at, "%s is not allowed in a fused function", name)
}
