package machine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
)

// PlainCode is what a plain function's calls pass and check: the shape of
// its arguments, and what it assumed of its module when it was compiled.
type PlainCode struct {
	// Lists gives the length of each parameter that is a list, or -1
	// (nil: none); Bools the parameters that take bools (nil: none).
	Lists []int
	Bools []bool
	// NLists is how many parameters are lists: the array parameters
	// before the Globals'.
	NLists int
	// Bias is each array parameter's bias (Encode).
	Bias []uint64
	// Globals are the module's lists the code writes (compile.Global):
	// array parameters NLists on, passed and written back as lists given,
	// or, where appended to only, appended to after the run.
	Globals []compile.Global
	// Hashes are the module's sets and dicts the code reads or writes:
	// their array parameters follow the Globals' (hashes.go).
	Hashes []compile.Global
	// HashParams gives for each parameter that is a set or dict its kind
	// (compile.HashSet, compile.HashDict), else 0 (nil: none); NHashes
	// counts them. Their array parameters follow the Hashes'.
	HashParams []int
	NHashes    int
	// Written says which array parameters the code may write: their lists
	// must be Mutable, and are written back.
	Written []bool
	// Tables are the global lists the code reads as tables: each call
	// checks that they still hold what they held (Table.Holds).
	Tables []Table
	// Words is how many words of lists each call converts or compares.
	Words int

	exe   atomic.Pointer[native.Executable] // nil until generated
	ready chan struct{}                     // closed once exe is set or err
	err   error                             // why generating failed (set before ready is closed)
}

// Ready is closed once the machine code is generated, or failed to be
// (Err): it is generated on another goroutine, for x86-64 only, since a
// plain call has the interpreter to fall back on.
func (pc *PlainCode) Ready() <-chan struct{} { return pc.ready }

// Err says why generating the machine code failed, once Ready is closed.
func (pc *PlainCode) Err() error { return pc.err }

// Executable returns the machine code, or nil before it is ready (or
// where generating it failed).
func (pc *PlainCode) Executable() *native.Executable { return pc.exe.Load() }

// generate makes f's machine code, then closes pc.ready. A generator's
// panic is its own bug: the function stays interpreted, and the process
// lives.
func (pc *PlainCode) generate(f *fuse.Func) {
	defer func() {
		if r := recover(); r != nil {
			pc.err = fmt.Errorf("generating its machine code failed: %v", r)
		}
		close(pc.ready)
	}()
	exe, err := native.CompileWith(f, native.AMD64)
	if err != nil {
		pc.err = err
		return
	}
	pc.exe.Store(exe)
}

// compilePlain compiles fn with compile.Options.Exact, or says why it
// cannot; its machine code is then generated on another goroutine
// (PlainCode.Ready).
func compilePlain(fn *starlark.Function, args starlark.Tuple, env Env) (*Code, error) {
	if err := exactShape(fn); err != nil {
		return nil, err
	}
	if n := fn.NumParams(); n > compile.MaxExactParams {
		return nil, fmt.Errorf("it takes %d parameters (0 to %d run as machine code)", n, compile.MaxExactParams)
	}
	if env.Sources == nil {
		return nil, errors.New("its source text was not kept")
	}
	// Snippets may share a file name (an embedder's, all "<stdin>"): where
	// two kept texts hold a def at fn's place, which one is fn is not
	// known without running it.
	cands := SourceOf(env.Sources, fn, env.Builtin)
	if len(cands) != 1 {
		return nil, fmt.Errorf("%d kept texts hold a def of it at its place (snippets run under one name)", len(cands))
	}
	hide := env.sessionNames()
	src := cands[0].Source
	var tables []Table
	var globals []compile.Global
	src.Free, src.Builtin = exactFree(env, src.Free, fn, hide, &tables, &globals), exactBuiltin(src.Builtin, hide)
	opts := env.options()
	opts.Exact = true
	lists, bias := listsOf(args)
	if len(lists) == fn.NumParams() {
		opts.Lists, opts.ListBias = lists, bias
	}
	if bools := boolsOf(args); len(bools) == fn.NumParams() {
		opts.Bools = bools
	}
	hashParams, nhashes := hashesOf(args)
	if len(hashParams) == fn.NumParams() {
		opts.Hashes = hashParams
	}
	exactHelpers(env, &opts, hide, &tables, &globals, nil)
	rule := &calloutRule{env: env, top: fn}
	f, err := translateExact(&src, opts, &tables, &globals, rule)
	if err != nil {
		return nil, err
	}
	if w := tableWords(tables); w > maxCheckedWords && !f.Loops() {
		return nil, fmt.Errorf("it reads lists of %d words as tables, which each call would compare (%d without a loop or a recursion)", w, maxCheckedWords)
	}
	written := f.WrittenArrays()
	if f.Results > 0 || f.ReturnsList {
		written = written[:len(written)-1] // the returned tuple's, not a list's
	}
	if err := rule.stale(written); err != nil {
		return nil, err
	}
	var biases []uint64 // of the array parameters
	for i, n := range opts.Lists {
		if n >= 0 {
			biases = append(biases, opts.ListBias[i])
		}
	}
	nlists := len(biases)
	words := tableWords(tables)
	for _, n := range opts.Lists {
		words += max(n, 0)
	}
	globalLists, hashes, biases, words := globalArrays(globals, biases, words)
	for _, kind := range hashParams {
		if kind != 0 {
			biases = append(biases, make([]uint64, compile.HashArrays(kind == compile.HashDict))...)
		}
	}
	pc := &PlainCode{Lists: opts.Lists, Bools: opts.Bools, NLists: nlists, Bias: biases, Written: written, Tables: tables,
		Globals: globalLists, Hashes: hashes, HashParams: opts.Hashes, NHashes: nhashes, Words: words, ready: make(chan struct{})}
	go pc.generate(f)
	return &Code{Name: fn.Name(), Where: fn.Position().String(), Params: identNames(src.Params), Text: cands[0].Text, Func: f, Plain: pc}, nil
}

// exactHelpers makes opts.Helper give the helpers of a function compiled
// exactly: each of the shape exactShape takes, its free names resolved by
// read (nil: as they are) and then hidden or recorded by exactFree.
func exactHelpers(env Env, opts *compile.Options, hide map[string]bool, tables *[]Table, globals *[]compile.Global,
	read func(h *starlark.Function, free func(string) (starlark.Value, bool)) func(string) (starlark.Value, bool)) {
	helper := opts.Helper
	opts.Helper = func(h *starlark.Function) (*compile.Source, error) {
		if err := exactShape(h); err != nil {
			return nil, fmt.Errorf("%s: %w", h.Name(), err)
		}
		s, err := helper(h)
		if err != nil {
			return nil, err
		}
		c := *s
		if read != nil {
			c.Free = read(h, c.Free)
		}
		c.Free, c.Builtin = exactFree(env, c.Free, h, hide, tables, globals), exactBuiltin(c.Builtin, hide)
		return &c, nil
	}
}

// translateExact translates src with opts (Options.Exact), again with each
// list of its module that it writes as an array of its own (writtenGlobal,
// added to globals), until none is left or one cannot be; tables are the
// lists exactFree records as tables in the last translation. Where rule
// is not nil, a helper in whose body the translation fails stays
// interpreted where rule takes it (callout.go), and the translation runs
// again.
func translateExact(src *compile.Source, opts compile.Options, tables *[]Table, globals *[]compile.Global, rule *calloutRule) (*fuse.Func, error) {
	if rule != nil {
		opts.CallOut = rule.callOut
	}
	for {
		*tables = nil
		opts.Globals = *globals
		f, err := compile.Func(src, opts)
		var gw *compile.GlobalArray
		var he *compile.HelperError
		// callOut takes the helper whose body failed to stay
		// interpreted; else it says why not after err.
		callOut := func(err error) (bool, error) {
			if rule == nil || !errors.As(err, &he) || rule.callOut(he.Fn) {
				return false, err // (a helper called out already: an error of a call of it, said as it is)
			}
			why := rule.take(he)
			if why == nil {
				return true, nil
			}
			return false, fmt.Errorf("%w; %s cannot stay interpreted: %v", err, he.Fn.Name(), why)
		}
		if !errors.As(err, &gw) {
			if ok, err := callOut(err); !ok {
				return f, err
			}
			continue
		}
		g, gerr := writtenGlobal(gw, *globals)
		if gerr != nil {
			if ok, err := callOut(err); ok {
				continue // (a module's list or dict that a helper reads as code cannot)
			} else if err != nil && errors.As(err, &he) {
				return nil, fmt.Errorf("%w%s", gerr, strings.TrimPrefix(err.Error(), he.Error()))
			}
			return nil, gerr
		}
		*globals = append(*globals, g)
	}
}

// reserve asks env's memory budget for bytes, for what.
func (env Env) reserve(what string, bytes int64) error {
	if env.Reserve == nil {
		return nil
	}
	return env.Reserve(what, bytes)
}

// context is env's context, or the background.
func (env Env) context() context.Context {
	if env.Context == nil {
		return context.Background()
	}
	return env.Context
}

// boolsOf gives, for each argument, whether it is a bool; nil where none
// is.
func boolsOf(args starlark.Tuple) []bool {
	var bools []bool
	for i, a := range args {
		if _, ok := a.(starlark.Bool); ok {
			if bools == nil {
				bools = make([]bool, len(args))
			}
			bools[i] = true
		}
	}
	return bools
}

// listsOf gives, for each argument, the length of a list, or -1, and the
// list's bias: its least int negated, where it holds negative ints in
// [-2^63, 0) (a sentinel -1), else 0; nil where there is no list.
func listsOf(args starlark.Tuple) (lists []int, bias []uint64) {
	for i, a := range args {
		l, ok := a.(*starlark.List)
		if !ok {
			continue
		}
		if lists == nil {
			lists, bias = make([]int, len(args)), make([]uint64, len(args))
			for j := range lists {
				lists[j] = -1
			}
		}
		lists[i] = l.Len()
		for j := 0; j < l.Len(); j++ {
			if x, ok := l.Index(j).(starlark.Int); ok && x.Sign() < 0 {
				if v, ok := x.Int64(); ok && v != math.MinInt64 {
					bias[i] = max(bias[i], uint64(-v))
				}
			}
		}
	}
	return lists, bias
}

// Encode returns the word of x in an array biased by k (x + k), or false
// where x is not an int in [-k, 2^64 - k).
func Encode(x starlark.Value, k uint64) (uint64, bool) {
	i, ok := x.(starlark.Int)
	if !ok {
		return 0, false
	}
	if w, ok := i.Uint64(); ok {
		return w + k, w+k >= k
	}
	v, ok := i.Int64()
	if !ok || v < 0 && uint64(-v) > k || v == math.MinInt64 {
		return 0, false
	}
	return k - uint64(-v), true
}

// Decode returns the int whose word in an array biased by k is w.
func Decode(w, k uint64) starlark.Value {
	if w >= k {
		return starlark.MakeUint64(w - k)
	}
	return starlark.MakeInt64(-int64(k - w))
}

// exactShape says why fn may not run as code, or nil: its parameters must
// be positional, without defaults, and it may close over no variable (a
// cell may change between calls; its globals are the fork's to watch).
func exactShape(fn *starlark.Function) error {
	if fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0 {
		return errors.New("it takes *args, **kwargs or keyword-only parameters")
	}
	if fn.NumFreeVars() > 0 {
		b, _ := fn.FreeVar(0)
		return fmt.Errorf("it reads %s, a variable of the function that defines it", b.Name)
	}
	for i := 0; i < fn.NumParams(); i++ {
		if fn.ParamDefault(i) != nil {
			name, _ := fn.Param(i)
			return fmt.Errorf("its parameter %s has a default value", name)
		}
	}
	return nil
}

// exactFree hides from the compiler the free values whose meaning as words
// is not their meaning in Starlark: negative ints, tuples holding anything but ints (or tuples of them: tableTuple).
// What it hides, the compiler refuses; ints in [0, 2^64), such tuples
// (which the compiler reads as tables, biased where they hold negative
// ints), bools (which the compiler reads as True and False),
// word arrays (which never change), functions, builtins and modules pass,
// and so do lists, which it records in tables: a list may change between
// calls, so each call first compares it with the words the code holds.
func exactFree(env Env, free func(string) (starlark.Value, bool), fn *starlark.Function, hide map[string]bool, tables *[]Table, globals *[]compile.Global) func(string) (starlark.Value, bool) {
	return func(name string) (starlark.Value, bool) {
		if hide[name] {
			if _, global := fn.Globals()[name]; !global {
				return compile.Refused{Reason: "is a name of an earlier input, which a later one may rebind"}, true
			}
		}
		v, ok := free(name)
		if !ok {
			return nil, false
		}
		switch v := v.(type) {
		case *starlark.List:
			for _, g := range *globals {
				if g.List == v {
					return v, true // an array of the code's (compile.Global)
				}
			}
			t, why := snapshot(env, v)
			if why == otherValues {
				// Rows holding negative ints or tuples: a table still
				// (tables.go).
				if dt, dwhy, nested := deepSnapshot(env, v); nested {
					t, why = dt, dwhy
				}
			}
			if why == otherValues {
				// An array may hold it (compile.GlobalArray).
				return compile.Refused{Reason: why, Value: v}, true
			}
			if why != "" {
				return compile.Refused{Reason: why}, true
			}
			*tables = append(*tables, t)
		case starlark.Int:
			if v.Sign() < 0 {
				return compile.Refused{Reason: "is a negative int, not a word"}, true
			}
		case starlark.Tuple:
			if !tableTuple(v, 1) {
				return compile.Refused{Reason: "is a tuple of other values than ints in [-2^63, 2^64) (or tuples of them, three deep)"}, true
			}
		}
		return v, true
	}
}

// sessionNames returns the names a REPL or notebook session has bound in
// its earlier inputs (Env.Scope), or nil outside one. A function of one
// input reads them as predeclared names, whose values a later input may
// rebind without the fork seeing it (it watches the module's globals):
// exactFree and exactBuiltin hide them, and the function stays
// interpreted, unless the name is a global of its own module.
func (env Env) sessionNames() map[string]bool {
	if env.Scope == nil {
		return nil
	}
	hide := map[string]bool{}
	for _, name := range env.Scope() {
		hide[name] = true
	}
	return hide
}

// exactBuiltin is builtin, false for the names hide holds (a session's
// own binding of a builtin's name).
func exactBuiltin(builtin func(string) bool, hide map[string]bool) func(string) bool {
	return func(name string) bool { return !hide[name] && builtin(name) }
}

// maxCheckedWords bounds the words of the lists a function that neither
// loops nor recurses may read as tables: each call compares them.
const maxCheckedWords = 256

// A Table is a list the code reads as a table, and the words it held
// when the function was compiled: a flat list of words, or a list of rows
// (lists or tuples of words).
type Table struct {
	l     *starlark.List
	flat  []uint64
	rows  [][]uint64
	lists []*starlark.List // l and the rows that are lists
	// deep, where not nil, is the walk of a list snapshot does not take
	// (deepSnapshot), which holds compares instead of flat and rows.
	deep []tableToken
}

// HoldsList reports whether l is t's list or one of its rows.
func (t *Table) HoldsList(l *starlark.List) bool { return slices.Contains(t.lists, l) }

// otherValues is why a list is no table of words: it holds other values
// (which an array of the code's may hold: negative ints).
const otherValues = "is a list of other values than ints in [0, 2^64) (or lists or tuples of them)"

// snapshot records l's words, or says why it does not (a reason for
// compile.Refused): l holds something else, the memory budget of env
// has no room for the copies (this one, and the compiler's table), or
// the run was cancelled meanwhile (it polls every few thousand elements).
func snapshot(env Env, l *starlark.List) (Table, string) {
	const other = otherValues
	t := Table{l: l, lists: []*starlark.List{l}}
	ctx := env.context()
	n := l.Len()
	words := n
	if n > 0 {
		if _, ok := l.Index(0).(starlark.Int); !ok {
			for i := 0; i < n; i++ {
				if i%snapshotPoll == snapshotPoll-1 && ctx.Err() != nil {
					return t, "is a list being read when the run was cancelled"
				}
				if r, ok := l.Index(i).(starlark.Indexable); ok {
					words += r.Len()
				}
			}
		}
	}
	if err := env.reserve("a table copied from a list", memory.AllocSize(int64(words), 16)); err != nil {
		return t, fmt.Sprintf("is a list of %d words, which the memory budget has no room to copy (%v)", words, err)
	}
	for i := 0; i < n; i++ {
		if i%snapshotPoll == snapshotPoll-1 && ctx.Err() != nil {
			return t, "is a list being read when the run was cancelled"
		}
		switch x := l.Index(i).(type) {
		case starlark.Int:
			w, ok := x.Uint64()
			if !ok || t.rows != nil {
				return t, other
			}
			if t.flat == nil {
				t.flat = make([]uint64, 0, n)
			}
			t.flat = append(t.flat, w)
		case *starlark.List, starlark.Tuple:
			row, ok := rowWords(x)
			if !ok || t.flat != nil {
				return t, other
			}
			t.rows = append(t.rows, row)
			if r, ok := x.(*starlark.List); ok {
				t.lists = append(t.lists, r)
			}
		default:
			return t, other
		}
	}
	return t, ""
}

// snapshotPoll is how many elements snapshot reads between two polls of
// the run's context.
const snapshotPoll = 4096

// rowWords returns the words of a list or tuple of words.
func rowWords(v starlark.Value) ([]uint64, bool) {
	s, ok := v.(starlark.Indexable)
	if !ok {
		return nil, false
	}
	row := make([]uint64, s.Len())
	for i := range row {
		x, ok := s.Index(i).(starlark.Int)
		if !ok {
			return nil, false
		}
		if row[i], ok = x.Uint64(); !ok {
			return nil, false
		}
	}
	return row, true
}

// Holds reports whether t's list still holds the words recorded.
func (t *Table) Holds() bool {
	if t.deep != nil {
		return t.holdsDeep()
	}
	l := t.l
	if t.rows == nil {
		if l.Len() != len(t.flat) {
			return false
		}
		for i, w := range t.flat {
			if x, ok := l.Index(i).(starlark.Int); !ok || !isWord(x, w) {
				return false
			}
		}
		return true
	}
	if l.Len() != len(t.rows) {
		return false
	}
	for i, row := range t.rows {
		r, ok := l.Index(i).(starlark.Indexable)
		if !ok || r.Len() != len(row) {
			return false
		}
		if _, isString := r.(starlark.String); isString {
			return false
		}
		for j, w := range row {
			if x, ok := r.Index(j).(starlark.Int); !ok || !isWord(x, w) {
				return false
			}
		}
	}
	return true
}

// isWord reports whether x is the int w.
func isWord(x starlark.Int, w uint64) bool {
	u, ok := x.Uint64()
	return ok && u == w
}

// tableWords returns the words of tables.
func tableWords(tables []Table) int {
	n := len(tables)
	for _, t := range tables {
		n += len(t.flat) + len(t.deep)
		for _, r := range t.rows {
			n += len(r)
		}
	}
	return n
}

// MaxGlobals bounds the module's lists a function run as code may write.
const MaxGlobals = 8

// writtenGlobal returns the compile.Global of the list gw names, or the
// error that leaves the function interpreted: a list of more than
// compile.MaxScratch elements, or of other values than ints in [-2^63,
// 2^64) where it is not appended to only, one that Starlark does not let
// the function change (frozen: a loaded module's), one compiled already
// (a list appended to and read or written by index, or a list of two
// names), or one too many.
func writtenGlobal(gw *compile.GlobalArray, globals []compile.Global) (compile.Global, error) {
	if gw.Hash != nil {
		return hashGlobal(gw, globals)
	}
	l := gw.List
	refuse := func(format string, args ...any) (compile.Global, error) {
		return compile.Global{}, &compile.Error{Pos: gw.Err.Pos, Msg: fmt.Sprintf(format, args...)}
	}
	if len(globals) >= MaxGlobals {
		return refuse("%s is one of more than %d lists of its module that the function writes or loops over", gw.Name, MaxGlobals)
	}
	for _, g := range globals {
		if g.List == l {
			return refuse("%s is a list of its module that the function both appends to and reads (or that it names twice)", gw.Name)
		}
	}
	g := compile.Global{Name: gw.Name, List: l, Log: gw.Append}
	if !gw.Read && !Mutable(l) {
		return refuse("%s is a list Starlark does not let the function change (frozen: a loaded module's)", gw.Name)
	}
	if g.Log {
		return g, nil
	}
	if l.Len() > compile.MaxScratch {
		return refuse("%s is a list of %d elements; a list of its module that a function run as machine code writes or loops over has at most %d", gw.Name, l.Len(), compile.MaxScratch)
	}
	g.Len = l.Len()
	_, bias := listsOf(starlark.Tuple{l})
	for i := 0; i < l.Len(); i++ {
		if _, ok := Encode(l.Index(i), bias[0]); !ok {
			return refuse("%s is a list of other values than ints in [-2^63, 2^64)", gw.Name)
		}
	}
	g.Bias = bias[0]
	return g, nil
}

// Mutable reports whether Starlark lets l be changed now (it is not
// frozen, nor being iterated), changing nothing: one of its elements set
// to itself, or, empty, cleared.
func Mutable(l *starlark.List) bool {
	if l.Len() == 0 {
		return l.Clear() == nil
	}
	return l.SetIndex(0, l.Index(0)) == nil
}
