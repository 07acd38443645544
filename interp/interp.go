// Package interp is the embedding API of bitsh: a Starlark interpreter
// with bitsh's builtins, its dialect (while, recursion, top-level control,
// global reassignment, set), the math, json and time modules, and loads of
// relative files and of bitsh's own stdlib.
//
// An Interp is used by one goroutine at a time; separate Interps share no
// mutable state and may run in parallel. Every run takes a context:
// cancelling it stops Starlark code between steps and native kernels at
// their next poll, within 100 ms.
package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bitsh/bitsh/builtins"
	bitshdialect "github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/stdlib"
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// StdlibPrefix is the load prefix of bitsh's embedded stdlib modules.
const StdlibPrefix = bitshdialect.StdlibPrefix

// dialect is the Starlark dialect bitsh scripts use (package dialect).
var dialect = *bitshdialect.FileOptions()

// FileOptions returns the syntax options of bitsh's dialect, for callers
// that parse bitsh code themselves (the REPL parses input with it). It is
// dialect.FileOptions.
func FileOptions() *syntax.FileOptions { return bitshdialect.FileOptions() }

// An Option configures an Interp.
type Option func(*Interp)

// WithStdout sends print output (and help()) to w instead of os.Stdout.
func WithStdout(w io.Writer) Option { return func(in *Interp) { in.stdout = w } }

// WithStderr sets where progress bars are drawn (os.Stderr by default).
func WithStderr(w io.Writer) Option { return func(in *Interp) { in.stderr = w } }

// WithMaxSteps caps the Starlark execution steps of each run (0: no cap).
// A module loaded during a run gets what remains of the run's budget.
func WithMaxSteps(n uint64) Option { return func(in *Interp) { in.maxSteps = n } }

// WithPredeclared adds names visible to every script, beside bitsh's
// builtins (which they may shadow).
func WithPredeclared(d starlark.StringDict) Option {
	return func(in *Interp) {
		for k, v := range d {
			in.predeclared[k] = v
		}
	}
}

// WithFS makes file names (of ExecFile and of loads) paths in fsys, with
// slash separators, instead of paths in the operating system's file system.
func WithFS(fsys fs.FS) Option { return func(in *Interp) { in.fsys = fsys } }

// WithWorkers caps the goroutines parallel kernels use (0: GOMAXPROCS).
func WithWorkers(n int) Option { return func(in *Interp) { in.workers = n } }

// WithInterpreted keeps every plain function in the interpreter (on): none
// runs as machine code, where bitsh otherwise runs the functions its fuse
// compiler translates exactly (docs/performance.md, "Plain functions as
// machine code").
func WithInterpreted(on bool) Option { return func(in *Interp) { in.interpreted = on } }

// WithNativeReport counts what becomes of the calls of the functions
// offered to run as machine code, and writes the report to w at the end
// of each ExecFile, whether the script succeeded, failed or was
// cancelled, in one write (nil w: none): for each function offered so
// far, whether it was compiled (or why not), its calls run as code and by
// the interpreter, and the main reasons the interpreter ran them, with
// their counts and positions (builtins.NativeStats.WriteReport;
// docs/scripting.md, "Plain functions as machine code").
// Interp.NativeReport gives the same figures as values.
func WithNativeReport(w io.Writer) Option {
	return func(in *Interp) {
		in.nativeOut = w
		if w != nil && in.nativeStats == nil {
			in.nativeStats = builtins.NewNativeStats()
		}
	}
}

// WithNativeStrict makes the interpreter refuse to run a plain function
// of the script's that is offered to run as machine code (at its first
// call where it loops, else at its 1000th) in the interpreter: where the
// function cannot be compiled, or where a call of it goes back to the
// interpreter (an argument the code does not take, an int leaving the
// words, an error), the run fails with an error naming the function, the
// construct and its position, raised in the function's frame; a call
// with keyword arguments too. Calls before the offer, the calls of a
// function whose global was rebound until it is offered again, the
// functions of @stdlib/ modules, and every call of a run with a step
// limit (WithMaxSteps), where nothing runs as code, are not checked.
func WithNativeStrict(on bool) Option { return func(in *Interp) { in.nativeStrict = on } }

// WithUnfrozenScript (on) has ExecFile leave the script's own globals
// unfrozen, as Exec leaves a REPL's: for a caller that runs nothing after
// the script, as bitsh's command does for a script, -c CODE or standard
// input. Freezing a module walks every value it holds (the entries of
// every dict and list, element by element), and nothing can observe it
// once nothing runs: a script's code sees its values unfrozen while it
// runs either way. The modules a script loads are frozen as always (their
// importers must not change them). Without it, ExecFile's globals are
// frozen, as go.starlark.net's ExecFileOptions leaves them, and safe to
// share between goroutines.
func WithUnfrozenScript(on bool) Option { return func(in *Interp) { in.unfrozenScript = on } }

// NativeReport returns what became of the functions offered to run as
// machine code so far, as WithNativeReport writes it; nil without
// WithNativeReport.
func (in *Interp) NativeReport() []builtins.NativeFunc {
	if in.nativeStats == nil {
		return nil
	}
	return in.nativeStats.Funcs()
}

// writeNativeReport writes the report of WithNativeReport, if any, to
// its writer.
func (in *Interp) writeNativeReport() {
	if in.nativeOut != nil {
		in.WriteNativeReport(in.nativeOut)
	}
}

// WriteNativeReport writes the report of WithNativeReport to w, in one
// write, as ExecFile does at its end (for Exec, a REPL's inputs, which
// write none): nothing without WithNativeReport or with WithInterpreted.
func (in *Interp) WriteNativeReport(w io.Writer) error {
	if in.nativeStats == nil || in.interpreted {
		return nil
	}
	return in.nativeStats.WriteReport(w)
}

// An Interp runs bitsh code. Its globals persist across Exec calls, as in
// a REPL session.
type Interp struct {
	stdout, stderr io.Writer
	maxSteps       uint64
	maxMemory      int64
	workers        int
	interpreted    bool
	nativeStats    *builtins.NativeStats // counts for WithNativeReport (nil: none)
	nativeOut      io.Writer             // where WithNativeReport writes
	nativeStrict   bool
	unfrozenScript bool // ExecFile leaves the script's globals unfrozen
	fsys           fs.FS
	predeclared    starlark.StringDict

	mu      sync.Mutex // one run at a time
	globals starlark.StringDict
	modules map[string]*module
	runs    builtins.Runs // the thread running now, for lazy values
	random  *builtins.Random
	src     sources     // every text run, for fuse (sources.go)
	shard   shardConfig // which shard this is, where emit records (shard.go)
}

type module struct {
	globals starlark.StringDict
	err     error
}

// New returns an interpreter with bitsh's builtins and the given options.
func New(opts ...Option) *Interp {
	in := &Interp{
		stdout:      os.Stdout,
		stderr:      os.Stderr,
		predeclared: Predeclared(),
		modules:     map[string]*module{},
		random:      builtins.NewRandom(),
	}
	in.predeclared[repeatName] = repeatBuiltin
	for _, o := range opts {
		o(in)
	}
	in.globals = make(starlark.StringDict, len(in.predeclared))
	for k, v := range in.predeclared {
		in.globals[k] = v
	}
	return in
}

// Predeclared returns a fresh dictionary of everything a bitsh script sees
// before it starts: bitsh's builtins, struct, and the math, json and time
// modules. Use it as the predeclared environment of a plain go.starlark.net
// thread to reuse bitsh's builtins there.
func Predeclared() starlark.StringDict {
	d := builtins.Predeclared()
	d["struct"] = starlark.NewBuiltin("struct", starlarkstruct.Make)
	d["math"] = math.Module
	d["json"] = builtins.JSON
	d["time"] = time.Module
	return d
}

// Globals returns the names the scripts run so far have defined (not the
// predeclared ones), as a new dictionary.
func (in *Interp) Globals() starlark.StringDict {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make(starlark.StringDict)
	for k, v := range in.globals {
		if p, ok := in.predeclared[k]; !ok || p != v {
			out[k] = v
		}
	}
	return out
}

// Names returns every global name visible to the next Exec, predeclared
// ones included, for completion.
func (in *Interp) Names() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return withoutHidden(in.globals.Keys())
}

// ExecFile runs the file as a script and returns its globals, which also
// become the interpreter's globals. If src is nil the file is read from
// the interpreter's file system; otherwise src (a string or []byte) is its
// text and filename only names it in errors and for relative loads.
func (in *Interp) ExecFile(ctx context.Context, filename string, src any) (starlark.StringDict, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if src == nil {
		data, err := in.readFile(ctx, filename)
		if err != nil {
			return nil, err
		}
		src = data
	}
	in.src.keep(filename, src)
	defer in.writeNativeReport()
	r := in.newRun(ctx)
	defer r.close()
	r.stack = []string{in.clean(filename)}
	thread := r.thread(filename, in.maxSteps)
	defer in.runs.Enter(thread)()
	g, err := execFile(&dialect, thread, filename, src, in.predeclared, !in.unfrozenScript)
	for k, v := range g {
		in.globals[k] = v
	}
	return g, r.wrap(err)
}

// Exec runs a snippet against the interpreter's globals, which persist
// from one call to the next and are not frozen (as in a REPL). When the
// snippet is a single expression, Exec returns its value, otherwise None.
// filename names the snippet in errors ("<stdin>", say).
func (in *Interp) Exec(ctx context.Context, filename, src string) (starlark.Value, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	// As in a REPL, a load binds its names for later snippets too.
	opts := dialect
	opts.LoadBindsGlobally = true
	f, err := parse(&opts, filename, src)
	if err != nil {
		return nil, explainHabit(err, func(string) string { return src })
	}
	guardRepeats(f)
	in.src.keep(filename, src)
	r := in.newRun(ctx)
	defer r.close()
	thread := r.thread(filename, in.maxSteps)
	in.setScope(thread)
	defer in.runs.Enter(thread)()
	if len(f.Stmts) == 1 {
		if e, ok := f.Stmts[0].(*syntax.ExprStmt); ok {
			v, err := starlark.EvalExprOptions(&opts, thread, e.X, in.globals)
			return v, r.wrap(err)
		}
	}
	if err := starlark.ExecREPLChunk(f, thread, in.globals); err != nil {
		return nil, r.wrap(err)
	}
	return starlark.None, nil
}

// Eval evaluates an expression against the interpreter's globals.
func (in *Interp) Eval(ctx context.Context, expr string) (starlark.Value, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	r := in.newRun(ctx)
	defer r.close()
	thread := r.thread("<expr>", in.maxSteps)
	defer in.runs.Enter(thread)()
	in.src.keep("<expr>", expr)
	e, err := dialect.ParseExpr("<expr>", expr, 0)
	if err != nil {
		return nil, err
	}
	if err := CheckNesting(e); err != nil {
		return nil, err
	}
	v, err := starlark.EvalExprOptions(&dialect, thread, e, in.globals)
	return v, r.wrap(err)
}

// A run is one call into the interpreter: its context, and every thread
// (the main one and one per loaded module) that cancellation must reach.
type run struct {
	in      *Interp
	ctx     context.Context
	cancel  context.CancelCauseFunc // cancels ctx (a print that cannot write)
	mu      sync.Mutex
	threads []*starlark.Thread
	stop    func() bool
	unwatch func()   // ends the memory watchdog
	stack   []string // modules being loaded, for cycle reports
}

func (in *Interp) newRun(ctx context.Context) *run {
	ctx, unwatch := in.watchMemory(ctx)
	ctx, cancel := context.WithCancelCause(ctx)
	r := &run{in: in, ctx: ctx, cancel: cancel, unwatch: unwatch}
	r.stop = context.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		for _, t := range r.threads {
			t.Cancel(cancelReason(ctx))
		}
	})
	return r
}

func (r *run) close() {
	r.stop()
	r.cancel(nil)
	r.unwatch()
}

func cancelReason(ctx context.Context) string {
	if c := context.Cause(ctx); c != nil {
		return c.Error()
	}
	return "cancelled"
}

// printLine writes msg and a newline to w: a short line in one write, a
// long one without the copy that appending the newline (or
// fmt.Fprintln's buffer) would make of it.
func printLine(w io.Writer, msg string) error {
	if len(msg) < 1<<16 {
		_, err := io.WriteString(w, msg+"\n")
		return err
	}
	if _, err := io.WriteString(w, msg); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// thread returns a new thread for running the module called name.
func (r *run) thread(name string, maxSteps uint64) *starlark.Thread {
	in := r.in
	t := &starlark.Thread{
		Name: name,
		Print: func(t *starlark.Thread, msg string) {
			// Output that cannot be written stops the run, as print
			// fails in Python: a loop of prints to a full disk ends.
			if err := printLine(in.stdout, msg); err != nil {
				t.Cancel("print: " + err.Error())
				// The run's context too: a function running as
				// machine code, whose prints come here, polls it.
				r.cancel(fmt.Errorf("print: %w", err))
			}
		},
		Load: func(t *starlark.Thread, module string) (starlark.StringDict, error) {
			return r.load(t, name, module)
		},
	}
	in.shard.init()
	builtins.SetEnv(t, builtins.Env{
		Context:      r.ctx,
		Stdout:       in.stdout,
		Stderr:       in.stderr,
		Workers:      in.workers,
		Random:       in.random,
		Runs:         &in.runs,
		Sources:      &in.src,
		MaxMemory:    in.maxMemory,
		ShardIndex:   in.shard.index,
		ShardCount:   max(in.shard.count, 1),
		Results:      in.shard.results,
		Interpreted:  in.interpreted,
		NativeStats:  in.nativeStats,
		NativeStrict: in.nativeStrict,
	})
	if maxSteps > 0 {
		t.SetMaxExecutionSteps(maxSteps)
	}
	r.mu.Lock()
	r.threads = append(r.threads, t)
	r.mu.Unlock()
	if r.ctx.Err() != nil {
		t.Cancel(cancelReason(r.ctx))
	}
	return t
}

// wrap makes a run's error say it was cancelled when it was, keeping the
// Starlark error (and its backtrace) as the message.
func (r *run) wrap(err error) error {
	if err == nil {
		return nil
	}
	err = explainStrict(err)
	err = r.in.explainLoad(err)
	err = explainLoadChain(err)
	err = explainHabit(err, r.in.newestSource)
	if r.ctx.Err() != nil {
		return &CancelledError{Err: err, Cause: context.Cause(r.ctx)}
	}
	return err
}

// A CancelledError reports a run stopped by its context. errors.Is finds
// the context's cause (context.Canceled, context.DeadlineExceeded or the
// cause given to context.WithCancelCause) in it.
type CancelledError struct {
	Err   error // the Starlark error, with its backtrace
	Cause error
}

// Error returns the Starlark error's message.
func (e *CancelledError) Error() string { return e.Err.Error() }

// Unwrap returns the Starlark error and the cause.
func (e *CancelledError) Unwrap() []error { return []error{e.Err, e.Cause} }

// MaxLoadDepth is how deeply loads may nest (a loads b, which loads c...).
// Each level nests a Go call and go.starlark.net prefixes the error of a
// failed load with "cannot load NAME: " at every level, so a chain of
// 8,000 files failing at its end used to take 13 s to report and print a
// 223 KB message.
const MaxLoadDepth = 1000

// load is the Load of a thread running the module from: it loads the
// module name, resolved against from.
func (r *run) load(thread *starlark.Thread, from, name string) (starlark.StringDict, error) {
	in := r.in
	key, err := in.resolve(from, name)
	if err != nil {
		return nil, err
	}
	if slices.Contains(r.stack, key) {
		return nil, fmt.Errorf("load cycle: %s -> %s", abbreviateChain(r.stack), key)
	}
	if len(r.stack) >= MaxLoadDepth {
		return nil, fmt.Errorf("loads nested more than %d deep (%s -> ... -> %s -> %s)", MaxLoadDepth, r.stack[0], r.stack[len(r.stack)-1], key)
	}
	if m, ok := in.modules[key]; ok {
		return m.globals, m.err
	}
	src, err := in.moduleSource(r.ctx, key)
	if err != nil {
		return nil, err
	}
	predeclared := in.PredeclaredFor(key)
	in.src.keep(key, src)
	m := &module{}
	r.stack = append(r.stack, key)
	var budget uint64
	if in.maxSteps > 0 {
		budget = in.maxSteps - min(in.maxSteps-1, thread.ExecutionSteps())
	}
	t := r.thread(key, budget)
	leave := in.runs.Enter(t)
	m.globals, m.err = execFile(&dialect, t, key, src, predeclared, true)
	if m.err != nil {
		m.err = newLoadError(key, m.err)
	}
	leave()
	r.stack = r.stack[:len(r.stack)-1]
	if m.err == nil || r.ctx.Err() == nil {
		// A cancelled load is not a property of the module: don't cache it.
		in.modules[key] = m
	}
	return m.globals, m.err
}

// ModuleSource returns what load(name) in the module from (a file name,
// or "<stdin>" for a snippet) would run, by the same rules and with the
// same errors as a load at run time: the module's key (its path, or
// "@stdlib/x.star") and its source. It runs nothing. Source tools (bitsh
// check, the language server) follow loads with it.
func (in *Interp) ModuleSource(from, name string) (key string, src []byte, err error) {
	key, err = in.resolve(from, name)
	if err != nil {
		return "", nil, err
	}
	src, err = in.moduleSource(context.Background(), key)
	return key, src, err
}

// moduleSource reads the module of a key resolve returned.
func (in *Interp) moduleSource(ctx context.Context, key string) ([]byte, error) {
	if file, ok := strings.CutPrefix(key, StdlibPrefix); ok {
		return fs.ReadFile(stdlib.FS, file)
	}
	return in.readFile(ctx, key)
}

// PredeclaredFor returns the names predeclared to the module of key, as a
// new dictionary: the interpreter's, and for stdlib modules also the
// private helpers they are written with.
func (in *Interp) PredeclaredFor(key string) starlark.StringDict {
	if strings.HasPrefix(key, StdlibPrefix) {
		return stdlibPredeclared(in.predeclared)
	}
	d := make(starlark.StringDict, len(in.predeclared))
	for k, v := range in.predeclared {
		d[k] = v
	}
	return d
}

// resolve turns a load argument into a module key: "@stdlib/x.star" as is,
// other names as paths relative to the loading module's directory.
func (in *Interp) resolve(from, name string) (string, error) {
	if strings.HasPrefix(name, StdlibPrefix) {
		if _, err := fs.Stat(stdlib.FS, strings.TrimPrefix(name, StdlibPrefix)); err != nil {
			return "", fmt.Errorf("no stdlib module %q", name)
		}
		return name, nil
	}
	if strings.HasPrefix(name, "@") {
		return "", fmt.Errorf("unknown module prefix in %q (bitsh knows %q)", name, StdlibPrefix)
	}
	if strings.HasPrefix(from, "<") || strings.HasPrefix(from, StdlibPrefix) {
		from = "" // snippets and stdlib modules load relative to the working directory
	}
	if in.fsys != nil {
		p := path.Join(path.Dir(from), name)
		if !fs.ValidPath(p) {
			return "", fmt.Errorf("invalid module path %q", name)
		}
		return p, nil
	}
	if filepath.IsAbs(name) || from == "" {
		return filepath.Clean(name), nil
	}
	return filepath.Join(filepath.Dir(from), name), nil
}

// clean puts a file name in the form resolve gives module keys.
func (in *Interp) clean(name string) string {
	if in.fsys != nil {
		return path.Clean(name)
	}
	return filepath.Clean(name)
}

// readFile reads a script, polling ctx, through ReadSource: at most
// SourceLimit of the budget, a longer file refused (load("/dev/zero", ...)
// used to read on, without polling, far past the budget).
func (in *Interp) readFile(ctx context.Context, name string) ([]byte, error) {
	var f fs.File
	var err error
	if in.fsys != nil {
		f, err = in.fsys.Open(name)
	} else {
		f, err = os.Open(name)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadSource(ctx, f, name, in.maxMemory)
}

// stdlibPredeclared adds the private helpers stdlib modules are written
// with (assert.star catches errors and matches them).
func stdlibPredeclared(base starlark.StringDict) starlark.StringDict {
	d := make(starlark.StringDict, len(base)+1)
	for k, v := range base {
		d[k] = v
	}
	d["_bitsh"] = starlarkstruct.FromStringDict(starlark.String("_bitsh"), starlark.StringDict{
		"catch":   starlark.NewBuiltin("catch", catch),
		"matches": starlark.NewBuiltin("matches", matches),
	})
	return d
}

// catch calls f() and returns its error message, or None if it succeeded.
func catch(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f starlark.Callable
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &f); err != nil {
		return nil, err
	}
	_, err := starlark.Call(thread, f, nil, nil)
	if err == nil {
		return starlark.None, nil
	}
	if builtins.Context(thread).Err() != nil {
		return nil, err // a cancellation is not the error under test
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return starlark.String(ee.Msg), nil
	}
	return starlark.String(err.Error()), nil
}

func matches(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, s string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &pattern, &s); err != nil {
		return nil, err
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("matches: pattern %q: %w", pattern, err)
	}
	return starlark.Bool(re.MatchString(s)), nil
}

// explainStrict gives the error of a run that strict mode
// (WithNativeStrict) stopped the reason alone: the interpreter words it as
// a cancellation ("Starlark computation cancelled: native-strict: f
// (x.star:1:5): ..."), which it is not.
func explainStrict(err error) error {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		const cancelled = "Starlark computation cancelled: "
		if msg, ok := strings.CutPrefix(ee.Msg, cancelled+builtins.NativeStrictPrefix); ok {
			ee.Msg = builtins.NativeStrictPrefix + msg
		}
	}
	return err
}
