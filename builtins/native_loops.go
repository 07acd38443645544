package builtins

import (
	"errors"
	"fmt"
	"reflect"
	"time"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/machine"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Loops of a script's top level as machine code (docs/scripting.md,
// "Loops at the top level"). bitsh's fork of go.starlark.net counts the
// back edges of each while and for loop of a module's top-level code, and
// offers a hot one (1000 back edges) to the hook under nativeLoopKey, at a
// back edge, where the loop's state is the module's globals
// (third_party/starlark/README.bitsh.md, change 26). The hook lifts the
// loop into a function: its parameters are the globals it reads that hold
// ints or bools and those it assigns, its result the tuple of those it
// assigns and of its count of iterations; a for loop over a range runs
// the rest of the range. Compiled as a plain function is
// (compileNativeBools, with compile.Options.Exact), it runs as x86-64
// code; where it succeeds the globals it assigns are written back and the
// interpreter continues after the loop; where it fails (an int past the
// words, an error, a value it cannot hold) nothing has changed and the
// interpreter runs the loop on from the back edge, so that its answers,
// errors and tracebacks are its own. SetEnv installs nativeLoopHook
// under nativeLoopKey.

// loopName is the name the native report gives a loop of top-level code.
const loopName = "<toplevel loop>"

// maxLoopCompiles bounds the times one loop is compiled again (a global
// read as a table rebound, a range of another step): past it the loop is
// left to the interpreter.
const maxLoopCompiles = 4

// Names of the lifted function's parameters that hold a for loop's
// range, and of its count of iterations (not Starlark identifiers: no
// global can have them).
const (
	loopStart = "range.start"
	loopStop  = "range.stop"
	loopCount = "loop.count"
)

// A loop whose first shortRuns runs as code made fewer than
// shortIterations iterations each, on average, is left to the
// interpreter: a run's hand-over (its globals in and out) costs about as
// much as that many iterations interpreted.
const (
	shortRuns       = 64
	shortIterations = 8
)

// nativeLoopHook is what SetEnv installs under nativeLoopKey: fn is the
// module's top-level function, pos the loop's keyword, names the module's
// globals in the order of the slice the form gets.
func nativeLoopHook(thread *starlark.Thread, fn *starlark.Function, pos syntax.Position, names []string) func(*starlark.Thread, []starlark.Value, starlark.Tuple) (bool, int) {
	env := EnvOf(thread)
	l := &liftedLoop{fn: fn, pos: pos, names: names, index: make(map[string]int, len(names)), strict: env.NativeStrict}
	for i, n := range names {
		l.index[n] = i
	}
	stmt, err := findLoop(env.Sources, pos)
	if err == nil {
		l.stmt = stmt
		err = l.analyse()
	}
	l.tally = env.NativeStats.offeredLoop(fn, pos)
	if err != nil {
		l.refuse(err)
		if l.tally == nil {
			return nil
		}
	}
	return l.run
}

// A liftedLoop is a loop of top-level code offered to run as code, and
// its compiled function, if any.
type liftedLoop struct {
	fn     *starlark.Function // the module's top-level function
	pos    syntax.Position
	stmt   syntax.Stmt // *syntax.WhileStmt or *syntax.ForStmt
	names  []string
	index  map[string]int // of names
	strict bool           // bitsh -native-strict: wait for the code
	tally  *nativeTally
	// assigned are the globals the loop assigns, read those it reads
	// only, by their indexes in names, in the order of their first use.
	assigned, read []int
	refused        error // why the loop stays interpreted (nil: it may run as code)
	code           *loopCode
	compiles       int
	fails, runs    int
	iterations     uint64         // of the runs as code
	args           starlark.Tuple // room for a run's arguments
}

// A loopCode is a lifted loop compiled for one kind of state: which of
// the globals it reads hold words and which bools, the range's step (and
// its stop, where negative), and the values of the other globals it (or
// a function it calls) reads, compared by identity before each run.
type loopCode struct {
	nf     *nativeFunc
	params []int // the globals passed, by index (then a range's start and stop, where a parameter)
	bools  []bool
	free   []int // the globals read as values of the code's own (functions, tuples, lists)
	deps   []starlark.Value
	step   int
	stop   int // a for loop's stop where it is negative (a literal), else 0
	err    error
	retry  bool // err is of the globals' values of the moment: compiled again later
	// boolOut, by the index of l.assigned, says which assigned globals
	// hold bools: their results are 1 or 0 (native_loops_bools.go).
	boolOut []bool
}

// findLoop returns the while or for statement of top-level code at pos in
// the texts kept under its file's name.
func findLoop(srcs Sources, pos syntax.Position) (syntax.Stmt, error) {
	if srcs == nil {
		return nil, errors.New("its source text was not kept")
	}
	texts := srcs.Texts(pos.Filename())
	var files []*syntax.File
	if ps, ok := srcs.(machine.ParsedSources); ok {
		files = ps.Files(pos.Filename())
	}
	var found []syntax.Stmt
	for i, text := range texts {
		var file *syntax.File
		if i < len(files) {
			file = files[i]
		} else {
			file, _ = dialect.FileOptions().Parse(pos.Filename(), text, 0)
		}
		if file == nil {
			continue
		}
		if s := loopAt(file.Stmts, pos); s != nil {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		return nil, fmt.Errorf("%d kept texts hold a loop at its place (snippets run under one name)", len(found))
	}
	return found[0], nil
}

// loopAt returns the loop of stmts (or of the blocks of their if, for and
// while statements) whose keyword is at pos, or nil.
func loopAt(stmts []syntax.Stmt, pos syntax.Position) syntax.Stmt {
	for _, s := range stmts {
		switch s := s.(type) {
		case *syntax.WhileStmt:
			if s.While.Line == pos.Line && s.While.Col == pos.Col {
				return s
			}
			if l := loopAt(s.Body, pos); l != nil {
				return l
			}
		case *syntax.ForStmt:
			if s.For.Line == pos.Line && s.For.Col == pos.Col {
				return s
			}
			if l := loopAt(s.Body, pos); l != nil {
				return l
			}
		case *syntax.IfStmt:
			if l := loopAt(s.True, pos); l != nil {
				return l
			}
			if l := loopAt(s.False, pos); l != nil {
				return l
			}
		}
	}
	return nil
}

// analyse finds the globals the loop reads and assigns.
func (l *liftedLoop) analyse() error {
	seen := map[int]bool{}
	assigned := map[int]bool{}
	var assign func(e syntax.Expr)
	assign = func(e syntax.Expr) {
		switch e := e.(type) {
		case *syntax.Ident:
			if i, ok := l.index[e.Name]; ok {
				assigned[i] = true
			}
		case *syntax.TupleExpr:
			for _, x := range e.List {
				assign(x)
			}
		case *syntax.ListExpr:
			for _, x := range e.List {
				assign(x)
			}
		case *syntax.ParenExpr:
			assign(e.X)
		}
	}
	var order []int
	syntax.Walk(l.stmt, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.AssignStmt:
			assign(n.LHS)
		case *syntax.ForStmt:
			assign(n.Vars)
		case *syntax.DefStmt, *syntax.LambdaExpr:
			return false // (refused by the compiler)
		case *syntax.Ident:
			if i, ok := l.index[n.Name]; ok && !seen[i] {
				seen[i] = true
				order = append(order, i)
			}
		}
		return true
	})
	for _, i := range order {
		if assigned[i] {
			l.assigned = append(l.assigned, i)
		} else {
			l.read = append(l.read, i)
		}
	}
	if _, ok := l.index["range"]; ok {
		if _, isFor := l.stmt.(*syntax.ForStmt); isFor {
			return errors.New("its module binds range")
		}
	}
	return nil
}

// refuse records why the loop is not compiled.
func (l *liftedLoop) refuse(err error) {
	l.refused = err
	l.tally.refuse(l.fn, err)
}

// run is the loop's form: it runs the rest of the loop as code where it
// can (done), else says after how many back edges to try again (wait;
// -1: never).
func (l *liftedLoop) run(thread *starlark.Thread, globals []starlark.Value, rest starlark.Tuple) (done bool, wait int) {
	defer func() {
		// A bug of this binding (not of the script) leaves the loop to the
		// interpreter instead of ending the process.
		if r := recover(); r != nil {
			l.refused = fmt.Errorf("a fault in bitsh's native loops: %v", r)
			done, wait = false, -1
		}
	}()
	if l.refused != nil {
		if t := l.tally; t != nil {
			t.why[fbRefused].Add(1)
		}
		return false, -1
	}
	var step, stop int
	if rest != nil {
		var err error
		if step, stop, err = restRange(rest); err != nil {
			return l.back(fbFailed, 1<<10) // (a start or stop past the words: rare)
		}
		if stop >= 0 {
			stop = 0
		}
	}
	c := l.code
	if c == nil || c.step != step || c.stop != stop || !c.holds(globals) {
		if l.compiles >= maxLoopCompiles {
			l.refuse(fmt.Errorf("compiled %d times (the globals it reads rebound, or another range)", l.compiles))
			return false, -1
		}
		l.compiles++
		c = l.compile(thread, globals, step, stop)
		l.code = c
		if c.err == nil && !l.strict {
			// As at a function's first call: a short wait for the code,
			// then the interpreter meanwhile (nativeWait).
			t := time.NewTimer(nativeWait)
			select {
			case <-c.nf.pc.Ready():
			case <-t.C:
			}
			t.Stop()
		}
		if c.err != nil {
			if l.tally != nil {
				l.tally.why[fbRefused].Add(1)
			}
			if c.retry && l.compiles < maxLoopCompiles {
				// A global's value of the moment (a sentinel -1, not
				// assigned yet): tried again later.
				l.tally.refuse(l.fn, c.err)
				l.code = nil
				return false, 1000 << l.compiles
			}
			l.refuse(c.err)
			return false, -1
		}
	}
	nf := c.nf
	if nf.pc.Executable() == nil && !nf.off.Load() {
		select {
		case <-nf.pc.Ready():
		default:
			if !l.strict {
				return l.back(fbNotReady, 1)
			}
			<-nf.pc.Ready()
		}
		if err := nf.pc.Err(); err != nil {
			// Its code could not be generated: the interpreter's for good.
			nf.switchOff(err.Error())
			l.refuse(err)
			return false, -1
		}
	}
	args := l.args[:0]
	for _, i := range c.params {
		if i >= len(globals) || globals[i] == nil {
			return l.back(fbFailed, -1) // (never: a global once bound stays bound)
		}
		args = append(args, globals[i])
	}
	if rest != nil {
		args = append(args, rest[0])
		if stop == 0 {
			args = append(args, rest[1])
		}
	}
	l.args = args // (kept for the next run: the code keeps none)
	v, ok := nf.call(thread, args)
	clear(args)
	if !ok {
		if nf.off.Load() {
			return false, -1
		}
		l.fails++
		if l.fails > 8 && l.fails > 2*l.runs {
			nf.switchOff("most of its runs failed in the code")
			return false, -1
		}
		return false, 1 << min(10+l.fails, 20)
	}
	l.runs++
	t, isTuple := v.(starlark.Tuple)
	if !isTuple || len(t) != len(l.assigned)+1 {
		panic(fmt.Sprintf("lifted loop returned %v", v))
	}
	for k, i := range l.assigned {
		if c.boolOut[k] {
			n, _ := t[k].(starlark.Int).Uint64()
			globals[i] = starlark.Bool(n != 0)
			continue
		}
		globals[i] = t[k]
	}
	if n, ok := t[len(t)-1].(starlark.Int).Uint64(); ok {
		l.iterations += n
	}
	if l.runs >= shortRuns && l.iterations < shortIterations*uint64(l.runs) {
		// An inner loop of a few iterations, entered again and again:
		// handing each entry over costs more than interpreting it.
		nf.switchOff(fmt.Sprintf("its runs as code were short (%d iterations in %d runs): quicker interpreted", l.iterations, l.runs))
	}
	return true, 0
}

// back counts a run the interpreter makes, for k, and returns the form's
// answer: try again after wait back edges.
func (l *liftedLoop) back(k fallback, wait int) (bool, int) {
	if t := l.tally; t != nil {
		t.why[k].Add(1)
	}
	return false, wait
}

// restRange returns the step and the stop of a range's rest (start, stop,
// step), the start and a stop that is not negative words.
func restRange(rest starlark.Tuple) (step, stop int, err error) {
	var start int
	if err := starlark.AsInt(rest[0], &start); err != nil {
		return 0, 0, err
	}
	if err := starlark.AsInt(rest[1], &stop); err != nil {
		return 0, 0, err
	}
	if err := starlark.AsInt(rest[2], &step); err != nil {
		return 0, 0, err
	}
	if start < 0 {
		return 0, 0, errors.New("a negative start")
	}
	return step, stop, nil
}

// holds reports whether the globals c's code reads as its own values are
// those it was compiled with, and those passed still of their kinds.
func (c *loopCode) holds(globals []starlark.Value) bool {
	for k, i := range c.free {
		if !sameGlobal(globals[i], c.deps[k]) {
			return false
		}
	}
	for k, i := range c.params {
		if k >= len(c.bools) {
			break
		}
		_, isBool := globals[i].(starlark.Bool)
		if isBool != c.bools[k] {
			return false
		}
	}
	return true
}

// sameGlobal reports whether x and y are the same value: the same int, or
// the same object (a tuple: the same elements in the same memory).
func sameGlobal(x, y starlark.Value) bool {
	switch a := x.(type) {
	case starlark.Int:
		eq, err := starlark.Equal(a, y)
		return err == nil && eq
	case starlark.Tuple:
		b, ok := y.(starlark.Tuple)
		return ok && len(a) == len(b) && (len(a) == 0 || unsafe.SliceData(a) == unsafe.SliceData(b))
	}
	if x == nil || y == nil {
		return x == y
	}
	if reflect.TypeOf(x) != reflect.TypeOf(y) || !reflect.TypeOf(x).Comparable() {
		return false
	}
	return x == y
}

// compile lifts the loop into a function of the globals as they are, and
// compiles it; the loopCode's err says why it cannot be.
func (l *liftedLoop) compile(thread *starlark.Thread, globals []starlark.Value, step, stop int) *loopCode {
	c := &loopCode{step: step, stop: stop}
	fail := func(err error) *loopCode { c.err = err; return c }
	retry := func(err error) *loopCode { c.err, c.retry = err, true; return c }
	isParam := map[int]bool{}
	c.boolOut = make([]bool, len(l.assigned))
	for k, i := range l.assigned {
		switch v := globals[i].(type) {
		case starlark.Int:
			if _, ok := v.Uint64(); !ok {
				return retry(fmt.Errorf("it assigns %s, which holds an int outside [0, 2^64)", l.names[i]))
			}
		case nil:
			return retry(fmt.Errorf("it assigns %s, which is not assigned before it", l.names[i]))
		case starlark.Bool:
			if !assignsOnlyBools(l.stmt, l.names[i]) {
				return fail(fmt.Errorf("it assigns %s, which holds a bool, not an int (or a bool it assigns as other than True, False, a comparison or not x)", l.names[i]))
			}
			c.boolOut[k] = true
		default:
			return retry(fmt.Errorf("it assigns %s, which holds a %s, not an int", l.names[i], v.Type()))
		}
		c.params = append(c.params, i)
		isParam[i] = true
	}
	for _, i := range l.read {
		switch v := globals[i].(type) {
		case starlark.Int:
			if _, ok := v.Uint64(); ok {
				c.params = append(c.params, i)
				isParam[i] = true
			}
		case starlark.Bool:
			c.params = append(c.params, i)
			isParam[i] = true
		case nil:
			return retry(fmt.Errorf("it reads %s, which is not assigned before it", l.names[i]))
		}
	}
	c.bools = make([]bool, len(c.params))
	for k, i := range c.params {
		_, c.bools[k] = globals[i].(starlark.Bool)
	}
	var params []*syntax.Ident
	for _, i := range c.params {
		params = append(params, &syntax.Ident{Name: l.names[i]})
	}
	_, end := l.stmt.Span()
	// The lifted loop counts its iterations in loopCount (the first
	// statement of its body), which it returns last.
	count := &syntax.AssignStmt{Op: syntax.PLUS_EQ, LHS: &syntax.Ident{Name: loopCount},
		RHS: &syntax.Literal{Token: syntax.INT, Raw: "1", Value: int64(1)}}
	var loop syntax.Stmt
	switch s := l.stmt.(type) {
	case *syntax.WhileStmt:
		loop = &syntax.WhileStmt{While: s.While, Cond: s.Cond, Body: append([]syntax.Stmt{count}, s.Body...)}
	case *syntax.ForStmt:
		loop = &syntax.ForStmt{For: s.For, Vars: s.Vars, X: s.X, Body: append([]syntax.Stmt{count}, s.Body...)}
	}
	if f, ok := loop.(*syntax.ForStmt); ok {
		stopArg := syntax.Expr(&syntax.Ident{Name: loopStop})
		if stop < 0 {
			stopArg = &syntax.UnaryExpr{Op: syntax.MINUS, X: &syntax.Literal{Token: syntax.INT, Raw: fmt.Sprint(-stop), Value: int64(-stop)}}
		}
		var stepArg syntax.Expr = &syntax.Literal{Token: syntax.INT, Raw: fmt.Sprint(step), Value: int64(step)}
		if step < 0 {
			stepArg = &syntax.UnaryExpr{Op: syntax.MINUS, X: &syntax.Literal{Token: syntax.INT, Raw: fmt.Sprint(-step), Value: int64(-step)}}
		}
		loop = &syntax.ForStmt{For: f.For, Vars: f.Vars, Body: f.Body,
			X: &syntax.CallExpr{Fn: &syntax.Ident{Name: "range"}, Args: []syntax.Expr{&syntax.Ident{Name: loopStart}, stopArg, stepArg}}}
		params = append(params, &syntax.Ident{Name: loopStart})
		c.bools = append(c.bools, false)
		if stop == 0 {
			params = append(params, &syntax.Ident{Name: loopStop})
			c.bools = append(c.bools, false)
		}
	}
	if len(params) > compile.MaxExactParams {
		return fail(fmt.Errorf("it reads or assigns %d globals holding ints or bools (0 to %d run as machine code)", len(params), compile.MaxExactParams))
	}
	if len(params) == 0 {
		return fail(errors.New("it reads and assigns no global holding an int or a bool"))
	}
	var results []syntax.Expr
	for k, i := range l.assigned {
		if c.boolOut[k] {
			results = append(results, boolResult(l.names[i]))
			continue
		}
		results = append(results, &syntax.Ident{Name: l.names[i]})
	}
	results = append(results, &syntax.Ident{Name: loopCount})
	body := []syntax.Stmt{
		&syntax.AssignStmt{Op: syntax.EQ, LHS: &syntax.Ident{Name: loopCount}, RHS: &syntax.Literal{Token: syntax.INT, Raw: "0", Value: int64(0)}},
		loop,
		&syntax.ReturnStmt{Result: &syntax.TupleExpr{List: results}},
	}
	// The names the code reads as values of its own: the module's
	// globals (recorded, compared before each run) and the builtins.
	assigned := map[string]bool{}
	for _, i := range l.assigned {
		assigned[l.names[i]] = true
	}
	// The module's globals the code reads as values of its own
	// (functions, tuples, lists) are recorded, and compared before each
	// run; the other names resolve in the module, then among the
	// builtins (machine.CompileLoop).
	free := func(name string) (starlark.Value, bool) {
		if i, ok := l.index[name]; ok && !isParam[i] {
			v := globals[i]
			if v == nil {
				return nil, false
			}
			c.free = append(c.free, i)
			c.deps = append(c.deps, v)
			return v, true
		}
		return nil, false
	}
	read := func(h *starlark.Function, name string, v starlark.Value) starlark.Value {
		if h.Position().Filename() != l.pos.Filename() {
			return v // (a loaded module's globals are frozen)
		}
		if _, global := h.Globals()[name]; !global {
			return v
		}
		if assigned[name] {
			// The loop's code holds it in a register: the function would
			// read its value before the loop.
			return compile.Refused{Reason: "is a global the loop assigns, which " + h.Name() + " reads"}
		}
		if i, ok := l.index[name]; ok && globals[i] != nil {
			c.free = append(c.free, i)
			c.deps = append(c.deps, globals[i])
		}
		return v
	}
	code, err := machine.CompileLoop(machine.Loop{Top: l.fn, Bools: c.bools, Read: read,
		Source: compile.Source{Name: loopName, Params: params, Body: body, End: end, Free: free}}, machineEnv(thread))
	if err != nil {
		return fail(err)
	}
	if f := code.Func; f.Results != len(l.assigned)+1 {
		return fail(fmt.Errorf("its globals are not all words at its end (%d results)", f.Results))
	}
	if t := l.tally; t != nil {
		var names []string
		for _, i := range c.params {
			names = append(names, l.names[i])
		}
		t.params.Store(&names)
	}
	c.nf = &nativeFunc{f: code.Func, pc: code.Plain, fn: l.fn, tally: l.tally}
	l.tally.compiled(c.nf)
	return c
}
