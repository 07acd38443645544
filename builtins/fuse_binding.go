package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"github.com/bitsh/bitsh/builtins/fuse/engine"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

func init() {
	register(
		Builtin{Name: "fuse", Topic: "fuse", Fn: fuseFn, Doc: `fuse(fn, device="auto", **free)
Compiles fn, a def or lambda of 1 to 3 word parameters, into a fused value
(type "fused") that runs the whole function as one native pass over a
space: f.map(space, *arrays), f.count(space), f.sum(space), f.min(space),
f.max(space), f.first(space), f.filter(space, limit=1 << 27), and f(x, ...)
on words. A space is a word array, a range, or a lazy value (subsets,
debruijn_sequences, ...), also the parts share() makes. The body may use int
literals, its parameters and locals, free ints and bools (read once, now),
+ - * // % & | ^ ~ << >> and unary -, comparisons, and/or/not, conditional
expressions, assignment, augmented and tuple assignment, if/elif/else,
return anywhere, True, False, calls of popcount, bsf, bsr, lsb, rotl,
rotr, reverse_bits, swap_bytes, pdep, pext, delta_swap, parity, gray,
gray_inverse, debruijn_bsf, min, max and abs, and, for searches: while,
break, continue, for over range(A, B, C) with any bounds, subsets(M),
subsets(M, k) and bits(B); read-only tables (free lists, tuples and word
arrays of words, or lists of them: T[i], T[i][j], len); scratch arrays
(a = [0] * N, fresh for every item at no cost: a[i], a[i] = x); calls
of the script's own functions that fuse (inlined, or, where they recurse,
calls with a frame each: scratch arrays fresh per call, arrays and tables
passed by reference, at most 10000 calls deep); and the chess module's
attack functions of one square and its int constants. Anything
else is an error naming it with its line and column. Values are words:
arithmetic wraps mod 2^64, a shift by 64 or more gives 0, comparisons give
0 or 1. On x86-64 with BMI1, BMI2 and POPCNT every fused function,
recursion included, runs as machine code bitsh generates; elsewhere a
straight-line body runs on the block executor and one with loops, tables,
scratch arrays or recursion as WebAssembly.
fn may also be the source
text of a lambda or def, its free names given as keyword arguments:
fuse("lambda s: popcount(s & m) == 3", m=0x2a5a5a). device is "cpu", "gpu"
or "auto" (the CPU, handing the rest of a long run to the GPU where one is
usable and measured faster). See docs/fuse.md.`},
		Builtin{Name: "devices", Topic: "fuse", Fn: devicesFn, Doc: `devices()
Returns the list of devices fuse can use on this machine: ["cpu"], or
["cpu", "gpu: NAME"] when an NVIDIA GPU with its driver and the CUDA runtime
compiler (NVRTC) is usable. The first call looks for them.`},
	)
}

// Sources gives the source texts bitsh ran under a file name (newest last),
// so that fuse can find a function's def or lambda by its position. The
// interpreter keeps them (interp/sources.go) and hands them over in Env.Sources.
type Sources interface {
	Texts(filename string) []string
}

// ParsedSources are Sources that also keep each text parsed in bitsh's
// dialect (nil where a text does not parse), in the order of Texts, so
// that fuse does not parse a text again for every function it compiles.
type ParsedSources interface {
	Sources
	Files(filename string) []*syntax.File
}

// fusedValue is what fuse returns.
type fusedValue struct {
	name   string // the def's name, or "lambda"
	where  string // file:line:col of the def or lambda
	params []string
	src    string        // the def or lambda's text
	prog   *fuse.Program // a straight-line function, for the block executor and the GPU
	flow   *fuse.Func    // the function with control flow (nil where the block executor runs prog)
	cpu    cpuRunner
	device string // "cpu", "gpu" or "auto"
	gpu    gpuRunner
	auto   *autoGPU // device="auto": the GPU, prepared when a run pays for it
}

// cpuRunner runs a fused function on the CPU: a Program on the block
// executor, a Func as machine code.
type cpuRunner interface {
	call(ctx context.Context, ws []uint64) (uint64, error)
	run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error)
}

type programRunner struct{ c *block.Executor }

func (r programRunner) call(_ context.Context, ws []uint64) (uint64, error) { return r.c.Call(ws) }

func (r programRunner) run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return r.c.Run(ctx, spaces, method, opt)
}

// flowRunner runs a Func: a space as machine code, one call as machine code
// where the x86-64 generator compiled it, else on the evaluator.
type flowRunner struct {
	f    *fuse.Func
	p    *native.Program
	idle *workerPool
}

// workerPool keeps a fused value's workers between its runs: making a
// worker instantiates its memory (tens of MB where a recursive helper's
// frames hold arrays), which a run of a few items should not pay again.
// A new worker's memory, outside Go's heap, must fit in the memory budget
// of the run that made the fused value (limit, 0: none) beside the heap
// and everything else held outside it: every worker of every fused value
// and plain function of the process (memory.InUse).
type workerPool struct {
	mu    sync.Mutex
	idle  []*native.Worker
	limit int64
}

// get returns an idle worker reset for a run polling poll, or a new one.
func (wp *workerPool) get(p *native.Program, poll func() bool) (fuse.FlowWorker, error) {
	wp.mu.Lock()
	n := len(wp.idle)
	if n == 0 {
		wp.mu.Unlock()
		if wp.limit > 0 {
			// A budget of its own: workers are made on several goroutines,
			// and a fresh budget reads the heap (no allowance to share).
			b := memory.NewBudget(wp.limit)
			if err := b.Check("fuse: a worker", int64(p.MemoryBytes())); err != nil {
				return nil, err
			}
		}
		w, err := p.NewWorker(poll)
		if err != nil {
			return nil, err
		}
		return pooledWorker{w, wp}, nil
	}
	w := wp.idle[n-1]
	wp.idle = wp.idle[:n-1]
	wp.mu.Unlock()
	w.Reset(poll)
	return pooledWorker{w, wp}, nil
}

// closeAll closes the idle workers (the fused value is gone).
func (wp *workerPool) closeAll() {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	for _, w := range wp.idle {
		w.Close()
	}
	wp.idle = nil
}

// pooledWorker is a worker that goes back to its pool when the run closes it.
type pooledWorker struct {
	*native.Worker
	pool *workerPool
}

func (w pooledWorker) Close() {
	w.pool.mu.Lock()
	w.pool.idle = append(w.pool.idle, w.Worker)
	w.pool.mu.Unlock()
}

// call runs one call: as machine code on a pooled worker where the amd64
// engine compiled the function (a worker costs little to make, and a call
// may be a whole search), else on the evaluator, which needs no worker.
func (r flowRunner) call(ctx context.Context, ws []uint64) (uint64, error) {
	poll := func() bool { return ctx.Err() != nil }
	var v uint64
	var err error
	if r.idle != nil && r.p != nil && r.p.Engine() == native.AMD64 {
		v, err = r.callWorker(poll, ws)
	} else {
		v, err = r.f.NewState(poll).Eval(ws)
	}
	var fe *fuse.FlowError
	if errors.As(err, &fe) {
		return 0, &fuse.ItemError{Params: ws, Check: &r.f.Checks[fe.Check], Value: fe.Value, Valued: true}
	}
	if errors.Is(err, fuse.ErrStopped) {
		return 0, ctx.Err()
	}
	return v, err
}

// callWorker runs one call on a worker of the pool.
func (r flowRunner) callWorker(poll func() bool, ws []uint64) (uint64, error) {
	w, err := r.idle.get(r.p, poll)
	if err != nil {
		return 0, err
	}
	defer w.Close()
	for i, x := range ws {
		w.Params(i)[0] = x
	}
	_, res, err := w.Run(1, false)
	if err != nil {
		return 0, err
	}
	return res[0], nil
}

func (r flowRunner) run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return fuse.RunFunc(ctx, r.f, spaces, method, opt, native.Block, func(poll func() bool) (fuse.FlowWorker, error) {
		if r.idle == nil {
			return r.p.NewWorker(poll)
		}
		return r.idle.get(r.p, poll)
	})
}

var (
	_ starlark.Callable = (*fusedValue)(nil)
	_ starlark.HasAttrs = (*fusedValue)(nil)
)

func (f *fusedValue) String() string {
	return fmt.Sprintf("<fused %s(%s) on %s>", f.name, strings.Join(f.params, ", "), f.device)
}
func (f *fusedValue) Type() string          { return "fused" }
func (f *fusedValue) Freeze()               {}
func (f *fusedValue) Truth() starlark.Bool  { return true }
func (f *fusedValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: fused") }
func (f *fusedValue) Name() string          { return f.name }

// HelpText is what help(f) prints: the source the value was compiled from.
func (f *fusedValue) HelpText() string {
	return fmt.Sprintf("%s, compiled from %s:\n%s", f.String(), f.where, f.src)
}

var fusedMethods = []string{"count", "filter", "first", "map", "max", "min", "sum"}

func (f *fusedValue) AttrNames() []string { return fusedMethods }

func (f *fusedValue) Attr(name string) (starlark.Value, error) {
	m := map[string]fuse.Method{"map": fuse.Map, "count": fuse.Count, "sum": fuse.Sum, "min": fuse.Min,
		"max": fuse.Max, "first": fuse.First, "filter": fuse.Filter}
	method, ok := m[name]
	if !ok {
		return nil, nil
	}
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		return f.run(thread, method, args, kwargs)
	}), nil
}

// CallInternal runs the function once on words.
func (f *fusedValue) CallInternal(thread *starlark.Thread, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 || len(args) != len(f.params) {
		return nil, fmt.Errorf("%s: got %d arguments, want %d (%s)", f.fname(), len(args), len(f.params), strings.Join(f.params, ", "))
	}
	ws := make([]uint64, len(args))
	for i, a := range args {
		w, err := toWord(f.fname(), f.params[i], a)
		if err != nil {
			return nil, err
		}
		ws[i] = uint64(w)
	}
	v, err := f.cpu.call(Context(thread), ws)
	if err != nil {
		if ctx := Context(thread); ctx.Err() != nil {
			return nil, fmt.Errorf("%s: cancelled", f.fname())
		}
		return nil, f.itemError("call", err, nil)
	}
	return starlark.MakeUint64(v), nil
}

func (f *fusedValue) fname() string {
	if f.name == "lambda" {
		return "fused lambda"
	}
	return "fused " + f.name
}

// itemError words a failed check: the function, the construct, the item
// and its position in the space.
func (f *fusedValue) itemError(method string, err error, base *uint64) error {
	var ie *fuse.ItemError
	if !errors.As(err, &ie) {
		return fmt.Errorf("%s.%s: %w", f.fname(), method, err)
	}
	idx := ie.Index
	if base != nil {
		idx += *base
	}
	var items []string
	for i, p := range ie.Params {
		items = append(items, fmt.Sprintf("%s = %#x", f.params[i], p))
	}
	where := ""
	if method != "call" {
		where = fmt.Sprintf(" (position %d in the space)", idx)
	}
	msg := ie.Check.Msg
	switch ie.Check.Kind {
	case fuse.CheckIndex:
		// "index out of range (of the table T)" names the index; another
		// check of an index (a list built by append past its cap) says
		// what failed itself.
		if rest, ok := strings.CutPrefix(msg, "index out of range"); ok {
			msg = fmt.Sprintf("index %d is out of range%s", int64(ie.Value), rest)
		}
	case fuse.CheckFits, fuse.CheckDelta:
		if ie.Valued {
			msg += fmt.Sprintf(" (got %#x)", ie.Value)
		}
	}
	file := ie.Check.File // a helper's own file, when loaded from another
	if file == "" {
		file = f.file()
	}
	return fmt.Errorf("%s.%s: %s:%d:%d: %s, for %s%s", f.fname(), method, file, ie.Check.Line, ie.Check.Col,
		msg, strings.Join(items, ", "), where)
}

// compileError is fuse's error for a compilation of f that failed: at a
// position in another file than f's own (in a helper loaded from there),
// it names that file.
func compileError(f *fusedValue, err error) error {
	var ce *compile.Error
	if errors.As(err, &ce) && ce.Pos.IsValid() && ce.Pos.Filename() != f.file() {
		return fmt.Errorf("fuse: %s:%w", ce.Pos.Filename(), err)
	}
	return fmt.Errorf("fuse: %w", err)
}

func (f *fusedValue) file() string {
	file, _, _ := strings.Cut(f.where, ":")
	return file
}

// fuseFn is fuse(fn, device="auto", **free).
func fuseFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("fuse: got %d positional arguments, want fn and device", len(args))
	}
	device := "auto"
	if len(args) == 2 {
		s, ok := args[1].(starlark.String)
		if !ok {
			return nil, fmt.Errorf("fuse: device: got %s, want string", args[1].Type())
		}
		device = string(s)
	}
	free := starlark.StringDict{}
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if k == "device" {
			s, ok := kv[1].(starlark.String)
			if !ok {
				return nil, fmt.Errorf("fuse: device: got %s, want string", kv[1].Type())
			}
			device = string(s)
			continue
		}
		free[k] = kv[1]
	}
	if device != "cpu" && device != "gpu" && device != "auto" {
		return nil, fmt.Errorf("fuse: device = %q is not \"cpu\", \"gpu\" or \"auto\"", device)
	}
	var f *fusedValue
	var err error
	switch fn := args[0].(type) {
	case *starlark.Function:
		if len(free) > 0 {
			return nil, fmt.Errorf("fuse: free names as keywords are for the source-text form; %s already has its free names", fn.Name())
		}
		f, err = fuseFunction(thread, fn)
	case starlark.String:
		f, err = fuseText(thread, string(fn), free)
	default:
		return nil, fmt.Errorf("fuse: fn: got %s, want a def or lambda, or its source text", args[0].Type())
	}
	if err != nil {
		return nil, err
	}
	f.device = "cpu"
	eng, err := engine.ChooseCPU(f.name, f.prog, f.flow)
	if err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	if p := eng.Native; p != nil {
		if err := CheckAlloc(thread, "fuse", int64(p.MemoryBytes())*int64(max(Workers(thread), 1))); err != nil {
			return nil, err
		}
		pool := &workerPool{limit: MaxMemory(thread)}
		f.cpu = flowRunner{f: f.flow, p: p, idle: pool}
		runtime.AddCleanup(f, (*workerPool).closeAll, pool)
	} else {
		f.cpu, f.flow = programRunner{eng.Block}, nil
	}
	if device == "cpu" {
		return f, nil
	}
	if device == "auto" {
		// Nothing of CUDA is touched now: the GPU is prepared in the
		// background once a run is long enough to pay for it
		// (fuse_binding_auto.go).
		f.device, f.auto = "auto", newAutoGPU(f.prepareGPU, &defaultAutoPolicy)
		return f, nil
	}
	g, err := f.prepareGPU()
	if err != nil {
		return nil, fmt.Errorf("fuse: device = \"gpu\": %w", err)
	}
	f.device, f.gpu = "gpu", g
	return f, nil
}

// prepareGPU opens the GPU and compiles f for it, as engine.ChooseGPU
// chooses; what the device keeps for f is released when f is collected.
func (f *fusedValue) prepareGPU() (gpuRunner, error) {
	var cpu cuda.CPURun
	if f.flow != nil {
		cpu = f.cpu.run // the items a GPU thread's stack cannot hold
	}
	g, err := engine.ChooseGPU(f.prog, f.flow, cpu)
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(f, engine.GPU.Close, g)
	return cudaRunner{g}, nil
}

// fuseFunction finds fn's def or lambda in the source bitsh kept and
// compiles it.
func fuseFunction(thread *starlark.Thread, fn *starlark.Function) (*fusedValue, error) {
	p := fn.Position()
	if fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0 {
		return nil, fmt.Errorf("fuse: %s: *args, **kwargs and keyword-only parameters are not allowed in a fused function", fn.Name())
	}
	for i := 0; i < fn.NumParams(); i++ {
		if fn.ParamDefault(i) != nil {
			name, _ := fn.Param(i)
			return nil, fmt.Errorf("fuse: %s: parameter %s has a default value; a fused function's parameters take words from the space", fn.Name(), name)
		}
	}
	srcs := EnvOf(thread).Sources
	if srcs == nil {
		return nil, fmt.Errorf("fuse: the source of %s (%s) was not kept by this interpreter; pass its text: fuse(\"lambda ...\", name=value)", fn.Name(), p)
	}
	opts := compileOptions(srcs)
	opts.Stop, opts.Reserve = compileStop(thread), compileReserve(thread)
	// Snippets may share a file name (an embedder's, all "<stdin>"), so
	// several kept texts may hold a def or lambda of this name at this line
	// and column: keep those whose parameters and global names fit, newest
	// first, and when several remain, the first that agrees with fn on a
	// few probe items.
	var cands []*fusedValue
	var firstErr error
	for _, src := range sourcesOf(srcs, fn) {
		f := &fusedValue{name: fn.Name(), where: p.String(), params: identNames(src.Params), src: src.text}
		var err error
		if f.prog, f.flow, err = compileForms(&src.Source, opts); err != nil {
			if firstErr == nil {
				firstErr = compileError(f, err)
			}
			continue
		}
		cands = append(cands, f)
	}
	switch {
	case len(cands) == 1:
		return cands[0], nil
	case len(cands) > 1:
		for _, c := range cands {
			if agrees(thread, fn, c) {
				return c, nil
			}
		}
		return cands[0], nil
	case firstErr != nil:
		return nil, firstErr
	}
	return nil, fmt.Errorf("fuse: the source of %s (%s) was not kept by this interpreter; pass its text: fuse(\"lambda ...\", name=value)", fn.Name(), p)
}

// keptSource is a def or lambda found in a kept text.
type keptSource struct {
	compile.Source
	text string
}

// sourcesOf returns the defs or lambdas in the kept texts that can be fn's,
// newest first.
func sourcesOf(srcs Sources, fn *starlark.Function) []keptSource {
	p := fn.Position()
	var out []keptSource
	texts := srcs.Texts(p.Filename())
	var files []*syntax.File
	if ps, ok := srcs.(ParsedSources); ok {
		files = ps.Files(p.Filename())
	}
	for i := len(texts) - 1; i >= 0; i-- {
		var file *syntax.File
		if i < len(files) {
			file = files[i]
		} else {
			file, _ = dialect.FileOptions().Parse(p.Filename(), texts[i], 0)
		}
		if file == nil {
			continue
		}
		params, body, end, node := findFunc(file, p, fn.Name())
		if node == nil || !sourceFits(fn, file, params, len(texts) > 1) {
			continue
		}
		start, stop := node.Span()
		out = append(out, keptSource{Source: compile.Source{Name: fn.Name(), Params: params, Body: body, End: end,
			Free: freeOf(fn), Builtin: builtinOf(fn)}, text: sliceText(texts[i], start, stop)})
	}
	return out
}

// compileStop ends a compilation when the run is cancelled (Ctrl-C,
// -timeout): a fused function of many thousands of statements is compiled
// within the run's time, as the run is.
func compileStop(thread *starlark.Thread) func() error {
	ctx := Context(thread)
	return func() error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("compiling stopped: %w", err)
		}
		return nil
	}
}

// compileReserve is the compiler's Options.Reserve for a run on thread:
// a table copied from a list or tuple must fit in its memory budget.
func compileReserve(thread *starlark.Thread) func(int64) error {
	return func(bytes int64) error { return CheckAlloc(thread, "a table copied from a list", bytes) }
}

// compileOptions are what the fuse compiler needs of the bindings.
func compileOptions(srcs Sources) compile.Options {
	return compile.Options{
		Helper: func(h *starlark.Function) (*compile.Source, error) {
			if h.HasVarargs() || h.HasKwargs() || h.NumKwonlyParams() > 0 {
				return nil, fmt.Errorf("*args, **kwargs and keyword-only parameters are not allowed in a helper of a fused function")
			}
			for i := 0; i < h.NumParams(); i++ {
				if h.ParamDefault(i) != nil {
					name, _ := h.Param(i)
					return nil, fmt.Errorf("parameter %s has a default value; a helper of a fused function is called with every argument", name)
				}
			}
			if srcs == nil {
				return nil, fmt.Errorf("the source of %s was not kept by this interpreter", h.Name())
			}
			ss := sourcesOf(srcs, h)
			if len(ss) == 0 {
				return nil, fmt.Errorf("the source of %s (%s) was not kept by this interpreter", h.Name(), h.Position())
			}
			return &ss[0].Source, nil
		},
		Words: func(v starlark.Value) ([]uint64, bool) {
			if a, ok := v.(*Words); ok {
				return a.Uint64s(), true
			}
			return nil, false
		},
		Known: func(name string) bool { _, ok := Lookup(name); return ok },
	}
}

// freeOf resolves the names fn does not bind: its free variables, its
// module's globals and predeclared names, then bitsh's builtins.
func freeOf(fn *starlark.Function) func(string) (starlark.Value, bool) {
	return func(name string) (starlark.Value, bool) {
		for j := 0; j < fn.NumFreeVars(); j++ {
			if b, v := fn.FreeVar(j); b.Name == name {
				return v, true
			}
		}
		if v, ok := moduleName(fn, name); ok {
			return v, true
		}
		if b, ok := Lookup(name); ok && b.Value != nil {
			return b.Value, true
		}
		return nil, false
	}
}

// builtinOf reports whether name, called in fn, is bitsh's builtin (and not
// a script's own function of the same name).
func builtinOf(fn *starlark.Function) func(string) bool {
	return func(name string) bool {
		for j := 0; j < fn.NumFreeVars(); j++ {
			if b, _ := fn.FreeVar(j); b.Name == name {
				return false
			}
		}
		if v, ok := moduleName(fn, name); ok {
			bi, isB := v.(*starlark.Builtin)
			return isB && bi.Name() == name
		}
		return true
	}
}

// moduleName looks name up in fn's module: its globals, then the names
// predeclared for it, leaving out a predeclared builtin of that very name
// (bitsh's own, which the fuse compiler knows by its name). A lambda of a
// REPL input that is an expression (an interactive session evaluates
// those with starlark.EvalExprOptions) has the session's globals as its
// module's predeclared names, not as its globals.
func moduleName(fn *starlark.Function, name string) (starlark.Value, bool) {
	if v, ok := fn.Globals()[name]; ok {
		return v, true
	}
	if m := fn.Module(); m != nil {
		if v, ok := m.Predeclared()[name]; ok {
			if b, isB := v.(*starlark.Builtin); isB && b.Name() == name {
				return nil, false
			}
			return v, true
		}
	}
	return nil, false
}

func identNames(ids []*syntax.Ident) []string {
	names := make([]string, len(ids))
	for j, id := range ids {
		names[j] = id.Name
	}
	return names
}

// sourceFits reports whether a def or lambda found in file can be fn's: the
// same parameters, and, where several texts were kept under the file's
// name (REPL inputs, an embedder's snippets), every global of fn's module
// named in the file. With one text, the def of fn's name and parameters
// at fn's place is fn's, and the names are not compared: that walks the
// whole file and reads every global, which, for each of the thousands of
// defs of a long file offered to run as code, made offering them
// quadratic in the file.
func sourceFits(fn *starlark.Function, file *syntax.File, params []*syntax.Ident, several bool) bool {
	if len(params) != fn.NumParams() {
		return false
	}
	for i, id := range params {
		if name, _ := fn.Param(i); name != id.Name {
			return false
		}
	}
	if !several {
		return true
	}
	idents := map[string]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		if id, ok := n.(*syntax.Ident); ok {
			idents[id.Name] = true
		}
		return true
	})
	for name := range fn.Globals() {
		// Names that are not identifiers (the interpreter's own, such as
		// the guard it puts on [x] * n) are never in a text.
		if !idents[name] && !strings.Contains(name, ".") {
			return false
		}
	}
	return true
}

// agrees runs fn and the candidate on probe items and reports whether they
// agree wherever fn returns a word.
func agrees(thread *starlark.Thread, fn *starlark.Function, c *fusedValue) bool {
	probes := []uint64{0, 1, 2, 3, 5, 0x80, 0xff, 0x12345, 1 << 63, ^uint64(0), 0x2a5a5a, 0xdeadbeef}
	var st *fuse.FlowState
	if c.flow != nil {
		polls := 0
		st = c.flow.NewState(func() bool { polls++; return polls > 16 })
	}
	for i := range probes {
		args := make(starlark.Tuple, fn.NumParams())
		ws := make([]uint64, fn.NumParams())
		for j := range args {
			ws[j] = probes[(i+j*5)%len(probes)]
			args[j] = starlark.MakeUint64(ws[j])
		}
		v, err := starlark.Call(thread, fn, args, nil)
		if err != nil {
			continue
		}
		w, ok := compile.WordOf(v)
		if !ok {
			continue
		}
		if c.flow != nil {
			got, err := st.Eval(ws)
			if errors.Is(err, fuse.ErrStopped) {
				continue
			}
			if err != nil || got != w {
				return false
			}
			continue
		}
		got, fail := c.prog.Eval(ws)
		if fail >= 0 || got != w {
			return false
		}
	}
	return true
}

// findFunc finds the def or lambda that starts at p. It walks only the
// top-level statement that holds p (found by a binary search: a file's
// statements are in order), so that a file of many thousands of defs does
// not cost a walk of the whole file for each.
func findFunc(file *syntax.File, p syntax.Position, name string) (params []*syntax.Ident, body []syntax.Stmt, end syntax.Position, node syntax.Node) {
	before := func(a, b syntax.Position) bool { return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col }
	i := sort.Search(len(file.Stmts), func(i int) bool {
		start, _ := file.Stmts[i].Span()
		return before(p, start)
	})
	if i == 0 {
		return
	}
	syntax.Walk(file.Stmts[i-1], func(n syntax.Node) bool {
		if node != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.DefStmt:
			if n.Def.Line == p.Line && n.Def.Col == p.Col && n.Name.Name == name {
				node, body = n, n.Body
				params = identParams(n.Params)
				_, end = n.Span()
			}
		case *syntax.LambdaExpr:
			if n.Lambda.Line == p.Line && n.Lambda.Col == p.Col && name == "lambda" {
				node = n
				params = identParams(n.Params)
				body = []syntax.Stmt{&syntax.ReturnStmt{Return: pos(n.Body), Result: n.Body}}
				_, end = n.Span()
			}
		}
		return true
	})
	return
}

func identParams(ps []syntax.Expr) []*syntax.Ident {
	var out []*syntax.Ident
	for _, p := range ps {
		if id, ok := p.(*syntax.Ident); ok {
			out = append(out, id)
		} else {
			out = append(out, &syntax.Ident{Name: "?"}) // defaults were refused before
		}
	}
	return out
}

// sliceText returns the text between two positions of src (columns in
// runes, as go.starlark.net counts them).
func sliceText(src string, start, end syntax.Position) string {
	b := []byte(src)
	from, to := dialect.Offset(b, start), dialect.Offset(b, end)
	return strings.TrimRight(src[from:max(from, to)], "\n")
}

// fuseText compiles the source text of a lambda or a def.
func fuseText(thread *starlark.Thread, src string, free starlark.StringDict) (*fusedValue, error) {
	lookup := func(name string) (starlark.Value, bool) {
		if v, ok := free[name]; ok {
			return v, true
		}
		if b, ok := Lookup(name); ok && b.Value != nil {
			return b.Value, true
		}
		return nil, false
	}
	callable := func(name string) bool { _, shadowed := free[name]; return !shadowed }
	opts := dialect.FileOptions()
	if e, err := opts.ParseExpr("<fuse>", src, 0); err == nil {
		lam, ok := e.(*syntax.LambdaExpr)
		if !ok {
			return nil, fmt.Errorf("fuse: fn: the text is not a lambda or a def")
		}
		for _, p := range lam.Params {
			if _, ok := p.(*syntax.Ident); !ok {
				return nil, plainParamsError(p)
			}
		}
		_, end := lam.Span()
		f := &fusedValue{name: "lambda", where: "<fuse>:1:1", params: paramNames(lam.Params), src: src}
		return compileText(thread, f, identParams(lam.Params), []syntax.Stmt{&syntax.ReturnStmt{Return: pos(lam.Body), Result: lam.Body}}, end, lookup, callable)
	}
	file, err := opts.Parse("<fuse>", src, 0)
	if err != nil {
		return nil, fmt.Errorf("fuse: fn: %v", err)
	}
	if len(file.Stmts) != 1 {
		return nil, fmt.Errorf("fuse: fn: the text is not one lambda or def")
	}
	def, ok := file.Stmts[0].(*syntax.DefStmt)
	if !ok {
		return nil, fmt.Errorf("fuse: fn: the text is not a lambda or a def")
	}
	for _, p := range def.Params {
		if _, ok := p.(*syntax.Ident); !ok {
			return nil, plainParamsError(p)
		}
	}
	_, end := def.Span()
	f := &fusedValue{name: def.Name.Name, where: "<fuse>:1:1", params: paramNames(def.Params), src: src}
	return compileText(thread, f, identParams(def.Params), def.Body, end, lookup, callable)
}

// compileText compiles a def or lambda given as text into f: as a
// straight line when it is one, else as a function with control flow.
func compileText(thread *starlark.Thread, f *fusedValue, params []*syntax.Ident, body []syntax.Stmt, end syntax.Position,
	free func(string) (starlark.Value, bool), builtin func(string) bool) (*fusedValue, error) {
	var err error
	srcs := EnvOf(thread).Sources
	src := &compile.Source{Name: f.name, Params: params, Body: body, End: end, Free: free, Builtin: builtin}
	opts := compileOptions(srcs)
	opts.Stop, opts.Reserve = compileStop(thread), compileReserve(thread)
	if f.prog, f.flow, err = compileForms(src, opts); err != nil {
		return nil, compileError(f, err)
	}
	return f, nil
}

// compileForms compiles src into a function with control flow (flow) and,
// where that is a straight line, lowers it to one (prog; nil where it is
// not one).
func compileForms(src *compile.Source, opts compile.Options) (prog *fuse.Program, flow *fuse.Func, err error) {
	flow, err = compile.Func(src, opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.Stop != nil {
		if err := opts.Stop(); err != nil {
			return nil, nil, err
		}
	}
	prog, perr := flow.StraightLine()
	if perr != nil {
		prog = nil
	}
	return prog, flow, nil
}

func paramNames(ps []syntax.Expr) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.(*syntax.Ident).Name)
	}
	return out
}

// maxSpace bounds the spaces a fused function runs over (item positions
// are counted in 63 bits).
const maxSpace = uint64(1) << 63

// spaceOf converts a Starlark space to a generated space, or returns nil
// (and no error) when only iteration can produce its items.
func spaceOf(fn string, v starlark.Value) (fuse.Space, error) {
	switch v := v.(type) {
	case *Words:
		return fuse.Array(v.Uint64s()), nil
	case *subsetsValue:
		cnt, ok := starlark.Value(starlark.MakeBigInt(v.lazyCount())).(starlark.Int).Uint64()
		if c, err := v.Attr("count"); err == nil && c != nil {
			if ci, isInt := c.(starlark.Int); isInt {
				cnt, ok = ci.Uint64()
			}
		}
		if !ok || cnt > maxSpace {
			return nil, fmt.Errorf("%s: space = %s has more than 2^63 items", fn, v)
		}
		k := v.k
		if k > 64 {
			return fuse.Array(nil), nil
		}
		seek := func(i uint64) uint64 {
			x, _, err := v.Get(starlark.MakeUint64(i))
			if err != nil {
				return 0
			}
			w, _ := compile.WordOf(x)
			return w
		}
		return fuse.Subsets{D: v.d, K: k, N: cnt, Seek: seek}, nil
	}
	if v.Type() == "range" {
		r := v.(starlark.Indexable)
		n := uint64(r.Len())
		if n == 0 {
			return fuse.Range{}, nil
		}
		start, _ := compile.WordOf(r.Index(0))
		var step uint64 = 1
		if n > 1 {
			s1, _ := compile.WordOf(r.Index(1))
			step = s1 - start
		}
		return fuse.Range{Start: start, Step: step, N: n}, nil
	}
	return nil, nil
}

func (f *fusedValue) run(thread *starlark.Thread, method fuse.Method, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	mname := map[fuse.Method]string{fuse.Map: "map", fuse.Count: "count", fuse.Sum: "sum", fuse.Min: "min",
		fuse.Max: "max", fuse.First: "first", fuse.Filter: "filter"}[method]
	fn := f.fname() + "." + mname
	limit := uint64(1) << 27
	for _, kv := range kwargs {
		k := string(kv[0].(starlark.String))
		if k != "limit" || method != fuse.Filter {
			return nil, fmt.Errorf("%s: unexpected keyword argument %s", fn, k)
		}
		l, ok := kv[1].(starlark.Int)
		n, ok2 := l.Uint64()
		if !ok || !ok2 {
			return nil, fmt.Errorf("%s: limit = %s is not a non-negative int", fn, kv[1])
		}
		limit = n
	}
	if len(args) != len(f.params) {
		return nil, fmt.Errorf("%s: got %d spaces, want %d (one for each parameter: %s)", fn, len(args), len(f.params), strings.Join(f.params, ", "))
	}
	spaces := make([]fuse.Space, len(args))
	for i, a := range args {
		s, err := spaceOf(fn, a)
		if err != nil {
			return nil, err
		}
		if s == nil {
			if i > 0 {
				return nil, fmt.Errorf("%s: %s: got %s, want a word array, a range or subsets of the same length as the space", fn, f.params[i], a.Type())
			}
			if _, ok := a.(starlark.Iterable); !ok {
				return nil, fmt.Errorf("%s: space: got %s, want a word array, a range or a lazy value", fn, a.Type())
			}
		}
		spaces[i] = s
	}
	if spaces[0] == nil {
		if len(spaces) > 1 {
			return nil, fmt.Errorf("%s: several spaces must all be arrays, ranges or subsets; %s is only iterable", fn, args[0].Type())
		}
		return f.stream(thread, fn, method, args[0].(starlark.Iterable), limit)
	}
	n := spaces[0].Len()
	for i, s := range spaces[1:] {
		if s.Len() != n {
			return nil, fmt.Errorf("%s: %s has %d items, the space %d", fn, f.params[i+1], s.Len(), n)
		}
	}
	opt := fuse.Options{Workers: Workers(thread), Limit: limit}
	if method == fuse.Map {
		if n > 1<<27 {
			return nil, fmt.Errorf("%s: the space has %d items, more than an array holds (2^27); use chunks(space)", fn, n)
		}
		if err := CheckAlloc(thread, fn, int64(n)*8); err != nil {
			return nil, err
		}
		opt.Out = make([]uint64, n)
	}
	update, clear := progressFor(thread, true, fn)
	opt.Progress = update
	defer clear()
	ctx := Context(thread)
	var res *fuse.Result
	var err error
	switch {
	case f.gpu != nil && n >= gpuMinItems:
		res, err = f.gpu.run(ctx, spaces, method, opt)
	case f.auto != nil:
		res, err = f.auto.run(ctx, f.cpu, spaces, method, opt)
	default:
		res, err = f.cpu.run(ctx, spaces, method, opt)
	}
	if err != nil {
		return nil, f.runError(ctx, mname, err, nil)
	}
	return f.result(method, res, opt.Out, spaces[0])
}

func (f *fusedValue) runError(ctx context.Context, mname string, err error, base *uint64) error {
	var le *fuse.LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("%s.%s: more than limit = %d items pass; raise limit or count them with .count", f.fname(), mname, le.Limit)
	case ctx.Err() != nil:
		return fmt.Errorf("%s.%s: cancelled", f.fname(), mname)
	}
	return f.itemError(mname, err, base)
}

// result converts a run's result to Starlark.
func (f *fusedValue) result(method fuse.Method, res *fuse.Result, out []uint64, space fuse.Space) (starlark.Value, error) {
	switch method {
	case fuse.Map:
		return NewWords(out), nil
	case fuse.Count:
		return starlark.MakeUint64(res.Count), nil
	case fuse.Sum:
		return sum128(res.SumHi, res.SumLo), nil
	case fuse.Min, fuse.Max:
		if !res.Found {
			return starlark.None, nil
		}
		return starlark.MakeUint64(res.Value), nil
	case fuse.First:
		if !res.Found {
			return starlark.None, nil
		}
		item := make([]uint64, 1)
		space.Fill(res.Index, item)
		return starlark.MakeUint64(item[0]), nil
	case fuse.Filter:
		return NewWords(res.Items), nil
	}
	return nil, fmt.Errorf("fuse: unknown method")
}

func sum128(hi, lo uint64) starlark.Value {
	if hi == 0 {
		return starlark.MakeUint64(lo)
	}
	t := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
	return starlark.MakeBigInt(t.Add(t, new(big.Int).SetUint64(lo)))
}

// gpuMinItems: smaller spaces run on the CPU even for a GPU-fused value
// (the answer is the same; a launch and its copies cost more than the work).
const gpuMinItems = 1 << 16

// streamChunk is how many items of an iterable space are gathered before
// the workers run over them.
const streamChunk = 1 << 16

// stream runs over a space that only iteration produces: chunks of items
// gathered on this thread, each run on every worker, in order.
func (f *fusedValue) stream(thread *starlark.Thread, fn string, method fuse.Method, it starlark.Iterable, limit uint64) (starlark.Value, error) {
	ctx := Context(thread)
	iter := it.Iterate()
	defer iter.Done()
	var (
		total    fuse.Result
		out      []uint64
		base     uint64
		chunk    = make([]uint64, 0, streamChunk)
		minmax   bool
		firstHit starlark.Value = starlark.None
	)
	if method == fuse.Min {
		total.Value = ^uint64(0)
	}
	mname := fn[strings.LastIndex(fn, ".")+1:]
	flush := func() (bool, error) {
		if len(chunk) == 0 {
			return false, nil
		}
		opt := fuse.Options{Workers: Workers(thread), Limit: limit - uint64(len(total.Items))}
		if method == fuse.Map {
			if base+uint64(len(chunk)) > 1<<27 {
				return false, fmt.Errorf("%s: the space has more items than an array holds (2^27); use chunks(space)", fn)
			}
			opt.Out = make([]uint64, len(chunk))
		}
		res, err := f.cpu.run(ctx, []fuse.Space{fuse.Array(chunk)}, method, opt)
		if err != nil {
			var le *fuse.LimitError
			if errors.As(err, &le) {
				err = &fuse.LimitError{Limit: limit}
			}
			return false, f.runError(ctx, mname, err, &base)
		}
		stop := false
		switch method {
		case fuse.Map:
			out = append(out, opt.Out...)
		case fuse.Count:
			total.Count += res.Count
		case fuse.Sum:
			var cy uint64
			total.SumLo, cy = addCarry(total.SumLo, res.SumLo)
			total.SumHi += res.SumHi + cy
		case fuse.Min, fuse.Max:
			if res.Found {
				if !minmax || method == fuse.Min && res.Value < total.Value || method == fuse.Max && res.Value > total.Value {
					total.Value = res.Value
				}
				minmax = true
			}
		case fuse.First:
			if res.Found {
				firstHit = starlark.MakeUint64(chunk[res.Index])
				stop = true
			}
		case fuse.Filter:
			total.Items = append(total.Items, res.Items...)
		}
		base += uint64(len(chunk))
		chunk = chunk[:0]
		return stop, nil
	}
	var x starlark.Value
	for iter.Next(&x) {
		w, ok := compile.WordOf(x)
		if !ok {
			if _, isInt := x.(starlark.Int); isInt {
				return nil, fmt.Errorf("%s: item %d = %s does not fit in 64 bits", fn, base+uint64(len(chunk)), x)
			}
			return nil, fmt.Errorf("%s: item %d is a %s, not a word", fn, base+uint64(len(chunk)), x.Type())
		}
		chunk = append(chunk, w)
		if len(chunk) == streamChunk {
			stop, err := flush()
			if err != nil {
				return nil, err
			}
			if stop {
				return firstHit, nil
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: cancelled", fn)
	}
	if _, err := flush(); err != nil {
		return nil, err
	}
	switch method {
	case fuse.Map:
		if out == nil {
			out = []uint64{}
		}
		return NewWords(out), nil
	case fuse.Count:
		return starlark.MakeUint64(total.Count), nil
	case fuse.Sum:
		return sum128(total.SumHi, total.SumLo), nil
	case fuse.Min, fuse.Max:
		if !minmax {
			return starlark.None, nil
		}
		return starlark.MakeUint64(total.Value), nil
	case fuse.First:
		return firstHit, nil
	}
	if total.Items == nil {
		total.Items = []uint64{}
	}
	return NewWords(total.Items), nil
}

func addCarry(a, b uint64) (uint64, uint64) {
	s := a + b
	if s < a {
		return s, 1
	}
	return s, 0
}

func devicesFn(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if err := starlark.UnpackArgs(b.Name(), args, kwargs); err != nil {
		return nil, err
	}
	list := []starlark.Value{starlark.String("cpu")}
	if name, err := gpuName(); err == nil {
		list = append(list, starlark.String("gpu: "+name))
	}
	return starlark.NewList(list), nil
}

// pos returns where a node starts.
func pos(e syntax.Node) syntax.Position {
	start, _ := e.Span()
	return start
}

// plainParamsError refuses a parameter with a default or a star.
func plainParamsError(p syntax.Node) error {
	at := pos(p)
	return fmt.Errorf("fuse: %d:%d: only plain parameters are allowed in a fused function", at.Line, at.Col)
}
