// Package machine is the front door of bitsh's compiler: Compile takes a
// Starlark def or lambda and gives its Code, whichever way it is to run.
//
// A fused function (Fused; fuse(fn)) computes on wrap-around 64-bit words
// over spaces of items: its Code runs one call (Code.Call) or a whole
// space (Code.Run) on a CPU engine, and on a GPU once Code.GPU prepares
// it. A plain function run as machine code (Plain; the fork of
// go.starlark.net offers it to the hook in builtins/native_calls.go) keeps
// Starlark's ints exactly, or fails, and its Code says what its calls must
// pass (lists, bools) and what it assumed of its module (tables, lists it
// writes) for the hook to check before each call.
//
// Every compilation goes one way (docs/internals/fuse.md):
//
//  1. SourceOf finds the def's syntax in the run's kept texts.
//  2. compile.Func translates it into the IR, a fuse.Func, and runs the
//     passes that need the syntax, in order (compile's pipeline).
//  3. Fused: Func.StraightLine lowers it to a straight line where it is one.
//  4. An engine makes it runnable: the block executor for a straight line,
//     package native for a Func (x86-64, WebAssembly, the evaluator),
//     package cuda on a GPU.
//
// What a compilation reads of its run comes in an Env, a plain struct:
// this package imports nothing of the bindings.
package machine

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/fuse/cuda"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Env is what a compilation reads of the run it happens in.
type Env struct {
	// Context stops a compilation (Ctrl-C, -timeout) and the runs of
	// its code.
	Context context.Context
	// Sources are the run's kept source texts (nil: none kept).
	Sources Sources
	// Reserve asks the run's memory budget for bytes outside Go's heap,
	// for what (nil: no budget).
	Reserve func(what string, bytes int64) error
	// MaxMemory is the budget of the workers a fused function makes
	// later, on other goroutines (0: none).
	MaxMemory int64
	// Workers is how many workers a fused function's runs use.
	Workers int
	// Scope lists the names a REPL or notebook session bound in its
	// earlier inputs (nil outside a session).
	Scope func() []string
	// Builtin looks up bitsh's builtin of a name: whether there is one,
	// and its value (nil for a name the compiler knows by itself).
	Builtin func(name string) (starlark.Value, bool)
	// Words gives the words of bitsh's word array (false: v is none).
	Words func(v starlark.Value) ([]uint64, bool)
	// Thread runs a fused function's candidates on probe items, where
	// several kept texts hold a def at its place (nil: the newest).
	Thread *starlark.Thread
}

// A Mode says how a function is to run: Fused, or Plain.
type Mode struct {
	plain bool
	args  starlark.Tuple
}

// Fused is the mode of fuse(fn): wrap-around 64-bit words, a space of items.
var Fused = Mode{}

// Plain is the mode of a plain function run as machine code: Starlark's
// ints exactly while they stay in the words, else a failure that the
// interpreter runs again. args are those of the call that offers the
// function: a list among them makes that parameter a list of its length
// at every call, a bool a bool.
func Plain(args starlark.Tuple) Mode { return Mode{plain: true, args: args} }

// Code is a compiled function.
type Code struct {
	Name   string   // the def's name, or "lambda"
	Where  string   // file:line:col of the def or lambda
	Params []string // the parameters' names
	Text   string   // the def or lambda's source text
	// Func is the function in the IR; Line, where it is a straight
	// line, the same as one (nil otherwise; always nil for Plain).
	Func *fuse.Func
	Line *fuse.Line
	// CPU is a fused function's engine on the CPU (nil for Plain).
	CPU CPUEngine
	// Plain is what a plain function's calls pass and check (nil for
	// Fused).
	Plain *PlainCode
}

// Compile compiles fn, a def or lambda the run has kept the text of, for
// mode.
func Compile(fn *starlark.Function, mode Mode, env Env) (*Code, error) {
	if mode.plain {
		return compilePlain(fn, mode.args, env)
	}
	return compileFused(fn, env)
}

// options are the compiler's Options for a run in env.
func (env Env) options() compile.Options {
	opts := compile.Options{
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
			if env.Sources == nil {
				return nil, fmt.Errorf("the source of %s was not kept by this interpreter", h.Name())
			}
			ss := SourceOf(env.Sources, h, env.Builtin)
			if len(ss) == 0 {
				return nil, fmt.Errorf("the source of %s (%s) was not kept by this interpreter", h.Name(), h.Position())
			}
			return &ss[0].Source, nil
		},
		Words: env.Words,
		Known: func(name string) bool {
			if env.Builtin == nil {
				return false
			}
			_, ok := env.Builtin(name)
			return ok
		},
	}
	if opts.Words == nil {
		opts.Words = func(starlark.Value) ([]uint64, bool) { return nil, false }
	}
	if env.Context != nil {
		ctx := env.Context
		opts.Stop = func() error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("compiling stopped: %w", err)
			}
			return nil
		}
	}
	if env.Reserve != nil {
		opts.Reserve = func(bytes int64) error { return env.Reserve("a table copied from a list", bytes) }
	}
	return opts
}

// CheckOptions are the compiler's Options for checking a def without
// running it (bitsh check): nothing kept, nothing reserved; builtin and
// words are as in an Env.
func CheckOptions(builtin func(name string) (starlark.Value, bool), words func(starlark.Value) ([]uint64, bool)) compile.Options {
	opts := Env{Builtin: builtin, Words: words}.options()
	opts.CheckOnly = true
	return opts
}

// translate compiles src into a Func and, where that is a straight line,
// lowers it to one (line; nil where it is not one).
func translate(src *compile.Source, opts compile.Options) (line *fuse.Line, f *fuse.Func, err error) {
	f, err = compile.Func(src, opts)
	if err != nil {
		return nil, nil, err
	}
	if opts.Stop != nil {
		if err := opts.Stop(); err != nil {
			return nil, nil, err
		}
	}
	line, lerr := f.StraightLine()
	if lerr != nil {
		line = nil
	}
	return line, f, nil
}

// compileFused finds fn's def or lambda in the kept texts and compiles it
// for fuse.
func compileFused(fn *starlark.Function, env Env) (*Code, error) {
	p := fn.Position()
	if fn.HasVarargs() || fn.HasKwargs() || fn.NumKwonlyParams() > 0 {
		return nil, fmt.Errorf("%s: *args, **kwargs and keyword-only parameters are not allowed in a fused function", fn.Name())
	}
	for i := 0; i < fn.NumParams(); i++ {
		if fn.ParamDefault(i) != nil {
			name, _ := fn.Param(i)
			return nil, fmt.Errorf("%s: parameter %s has a default value; a fused function's parameters take words from the space", fn.Name(), name)
		}
	}
	notKept := fmt.Errorf("the source of %s (%s) was not kept by this interpreter; pass its text: fuse(\"lambda ...\", name=value)", fn.Name(), p)
	if env.Sources == nil {
		return nil, notKept
	}
	opts := env.options()
	// Snippets may share a file name (an embedder's, all "<stdin>"), so
	// several kept texts may hold a def or lambda of this name at this line
	// and column: keep those whose parameters and global names fit, newest
	// first, and when several remain, the first that agrees with fn on a
	// few probe items.
	var cands []*Code
	var firstErr error
	for _, src := range SourceOf(env.Sources, fn, env.Builtin) {
		c := &Code{Name: fn.Name(), Where: p.String(), Params: identNames(src.Params), Text: src.Text}
		var err error
		if c.Line, c.Func, err = translate(&src.Source, opts); err != nil {
			if firstErr == nil {
				firstErr = c.compileError(err)
			}
			continue
		}
		cands = append(cands, c)
	}
	var c *Code
	switch {
	case len(cands) == 1:
		c = cands[0]
	case len(cands) > 1:
		c = cands[0]
		for _, d := range cands {
			if env.Thread != nil && agrees(env.Thread, fn, d) {
				c = d
				break
			}
		}
	case firstErr != nil:
		return nil, firstErr
	default:
		return nil, notKept
	}
	return c, c.ready(env)
}

// CompileText compiles the source text of a lambda or a def for fuse:
// free resolves the names it does not bind, builtin reports whether a
// called name is bitsh's builtin.
func CompileText(text string, free func(string) (starlark.Value, bool), builtin func(string) bool, env Env) (*Code, error) {
	c := &Code{Where: "<fuse>:1:1", Text: text}
	var params []*syntax.Ident
	var body []syntax.Stmt
	var end syntax.Position
	opts := dialect.FileOptions()
	if e, err := opts.ParseExpr("<fuse>", text, 0); err == nil {
		lam, ok := e.(*syntax.LambdaExpr)
		if !ok {
			return nil, errors.New("fn: the text is not a lambda or a def")
		}
		if err := plainParams(lam.Params); err != nil {
			return nil, err
		}
		c.Name, params, body = "lambda", IdentParams(lam.Params), LambdaBody(lam)
		_, end = lam.Span()
	} else {
		file, err := opts.Parse("<fuse>", text, 0)
		if err != nil {
			return nil, fmt.Errorf("fn: %v", err)
		}
		if len(file.Stmts) != 1 {
			return nil, errors.New("fn: the text is not one lambda or def")
		}
		def, ok := file.Stmts[0].(*syntax.DefStmt)
		if !ok {
			return nil, errors.New("fn: the text is not a lambda or a def")
		}
		if err := plainParams(def.Params); err != nil {
			return nil, err
		}
		c.Name, params, body = def.Name.Name, IdentParams(def.Params), def.Body
		_, end = def.Span()
	}
	c.Params = identNames(params)
	src := &compile.Source{Name: c.Name, Params: params, Body: body, End: end, Free: free, Builtin: builtin}
	var err error
	if c.Line, c.Func, err = translate(src, env.options()); err != nil {
		return nil, c.compileError(err)
	}
	return c, c.ready(env)
}

// plainParams refuses a parameter with a default or a star.
func plainParams(ps []syntax.Expr) error {
	for _, p := range ps {
		if _, ok := p.(*syntax.Ident); !ok {
			at, _ := p.Span()
			return fmt.Errorf("%d:%d: only plain parameters are allowed in a fused function", at.Line, at.Col)
		}
	}
	return nil
}

// ready chooses c's CPU engine.
func (c *Code) ready(env Env) error {
	cpu, err := chooseCPU(c.Name, c.Line, c.Func, env.MaxMemory)
	if err != nil {
		return err
	}
	if fe, ok := cpu.(funcEngine); ok {
		runtime.AddCleanup(c, funcEngine.close, fe)
	} else {
		c.Func = nil // the block executor runs the straight line
	}
	c.CPU = cpu
	return nil
}

// Call runs a fused function once, on one item's words, on its CPU engine.
func (c *Code) Call(ctx context.Context, ws []uint64) (uint64, error) { return c.CPU.Call(ctx, ws) }

// Run runs a fused function over spaces of items on its CPU engine, as
// fuse.RunSpaces does.
func (c *Code) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	return c.CPU.Run(ctx, spaces, method, opt)
}

// WorkerBytes is the memory a worker of c's CPU engine maps outside Go's
// heap (0: its engine makes none).
func (c *Code) WorkerBytes() int64 {
	if fe, ok := c.CPU.(funcEngine); ok {
		return int64(fe.exe.MemoryBytes())
	}
	return 0
}

// GPU opens the GPU and compiles c for it, as chooseGPU chooses; what the
// device keeps for c is released when c is collected.
func (c *Code) GPU() (Engine, error) {
	var cpu cuda.CPURun
	if c.Func != nil {
		cpu = c.CPU.Run // the items a GPU thread's stack cannot hold
	}
	g, err := chooseGPU(c.Line, c.Func, cpu)
	if err != nil {
		return nil, err
	}
	runtime.AddCleanup(c, gpuEngine.close, g)
	return g, nil
}

// File is the file of c's def or lambda: Where without its line and
// column (a REPL's input is named "<stdin:N>").
func (c *Code) File() string {
	file := c.Where
	for range 2 {
		if i := strings.LastIndexByte(file, ':'); i >= 0 {
			file = file[:i]
		}
	}
	return file
}

// compileError is the error of a compilation of c that failed: at a
// position in another file than c's own (in a helper loaded from there),
// it names that file.
func (c *Code) compileError(err error) error {
	var ce *compile.Error
	if errors.As(err, &ce) && ce.Pos.IsValid() && ce.Pos.Filename() != c.File() {
		return fmt.Errorf("%s:%w", ce.Pos.Filename(), err)
	}
	return err
}

func identNames(ids []*syntax.Ident) []string {
	names := make([]string, len(ids))
	for j, id := range ids {
		names[j] = id.Name
	}
	return names
}

// agrees runs fn and the candidate on probe items and reports whether they
// agree wherever fn returns a word.
func agrees(thread *starlark.Thread, fn *starlark.Function, c *Code) bool {
	probes := []uint64{0, 1, 2, 3, 5, 0x80, 0xff, 0x12345, 1 << 63, ^uint64(0), 0x2a5a5a, 0xdeadbeef}
	var st *fuse.FlowState
	if c.Func != nil {
		polls := 0
		st = c.Func.NewState(func() bool { polls++; return polls > 16 })
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
		if c.Func != nil {
			got, err := st.Eval(ws)
			if errors.Is(err, fuse.ErrStopped) {
				continue
			}
			if err != nil || got != w {
				return false
			}
			continue
		}
		got, fail := c.Line.Eval(ws)
		if fail >= 0 || got != w {
			return false
		}
	}
	return true
}
