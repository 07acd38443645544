package builtins

import (
	"context"
	"io"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/builtins/shard"
	"github.com/bitsh/bitsh/builtins/threadkey"
	"go.starlark.net/starlark"
)

// An Env is what one run hands the builtins it calls. The embedder
// (package interp) sets one on each thread with SetEnv; the builtins read
// it through Context, Stdout, Stderr, Workers, MaxMemory, Shard and the
// like. A zero field keeps the default that its reader states.
type Env struct {
	// Context is polled for cancellation by long-running builtins; the
	// interpreter cancels it on Ctrl-C, on timeout and when the
	// embedder's context ends (nil: context.Background).
	Context context.Context
	// Stdout is where help() prints, Stderr where progress bars draw
	// (nil: os.Stdout, os.Stderr).
	Stdout, Stderr io.Writer
	// Workers caps the goroutines of parallel kernels (0 or less:
	// GOMAXPROCS).
	Workers int
	// Random is what the random module draws from; an interpreter sets
	// one Random on all its threads so the sequence goes on from one REPL
	// input to the next (nil: the thread gets its own, seeded 0).
	Random *Random
	// Runs tells the lazy values made on the thread which thread iterates
	// them later.
	Runs *Runs
	// Sources are the source texts of the interpreter, for fuse.
	Sources Sources
	// MaxMemory is the memory budget, in bytes, that CheckAlloc enforces
	// for builtins called from the thread (0 or less: none), and for the
	// operations of go.starlark.net that can double what a script holds in
	// one step (s + s, l + l, l += l, l.extend(l), l * n), which call it
	// before they allocate a result of more than 1 MiB (with bitsh's fork
	// of go.starlark.net). The interpreter sets it from
	// interp.WithMaxMemory; its watchdog enforces the same budget on
	// everything else the run allocates.
	MaxMemory int64
	// ShardIndex and ShardCount are the shard the thread runs (shard 0 of
	// 1 when ShardCount is 0 or less); emit records into Results (nil:
	// emit is an error).
	ShardIndex, ShardCount int
	Results                *shard.Results
	// Scope lets dir() called at the top level list the names a REPL
	// session holds besides those of the running input: it receives the
	// running module's globals and returns every name to list (nil: the
	// module's globals).
	Scope func(module starlark.StringDict) []string
	// Interpreted keeps every plain function in the interpreter. Otherwise
	// (with Sources, on x86-64 Linux, and with bitsh's fork of
	// go.starlark.net) a plain function that the fuse compiler translates
	// exactly runs as machine code (docs/performance.md, "Plain functions
	// as machine code").
	Interpreted bool
	// NativeReport, if not nil, hears of each function offered to be run
	// as machine code: err nil, it runs as code; else why it stays
	// interpreted. It may be called from another goroutine (the code is
	// generated there), at most once per offer.
	NativeReport func(fn *starlark.Function, err error)
	// NativeStats, if not nil, counts the calls of the functions offered
	// to run as machine code: as code, by the interpreter, and why
	// (NativeStats.WriteReport). An interpreter sets one on all its
	// threads.
	NativeStats *NativeStats
	// NativeStrict makes a function offered to run as machine code that
	// is not compiled, or a call of it that the interpreter would run,
	// an error: the thread is cancelled with a reason that starts with
	// NativeStrictPrefix and names the function and why. Functions of
	// @stdlib/ modules are exempt.
	NativeStrict bool
	// waitForCode has every call of a function whose machine code is
	// being generated wait for it, as strict mode does, instead of running
	// in the interpreter meanwhile (nativeWait): a test that checks that
	// the code ran sets it, so that a loaded machine cannot make it fail.
	waitForCode bool
}

// The thread-local keys SetEnv sets: bitsh's own, and those that
// bitsh's fork of go.starlark.net reads (third_party/starlark/README.bitsh.md;
// upstream's ignores them), which the fork and bitsh both declare from the
// typed constants of package threadkey. TestHouseThreadLocals
// (docs/house_test.go) holds them to the keys the fork reads, and the
// tests of each feature fail where the fork is built in and the feature is
// off (internal/starlarkfork.Require).
const (
	// envKey holds a thread's *threadEnv.
	envKey = "bitsh.env"
	// allocCheckKey holds the allocation check the fork calls before +,
	// *, += and list.extend allocate a result of more than 1 MiB
	// (checkStarlarkAlloc); upstream's watchdog alone stops these, after
	// the step.
	allocCheckKey = string(threadkey.AllocCheck)
	// nativeKey holds the hook the fork offers plain functions to, to run
	// as machine code (nativeHook, native_calls.go).
	nativeKey = string(threadkey.Native)
	// nativeLoopKey holds the hook the fork offers hot loops of
	// top-level code to, to run as machine code (nativeLoopHook,
	// native_loops.go).
	nativeLoopKey = string(threadkey.NativeLoop)
	// nativeMissKey holds what hears of the calls the interpreter runs
	// without asking a function's native form: calls with keyword
	// arguments, on a thread with a step limit, and those of a function
	// whose global was rebound until it is offered again (nativeMiss,
	// native_report.go).
	nativeMissKey = string(threadkey.NativeMiss)
)

// threadEnv is one thread's Env and the state the builtins keep for it.
type threadEnv struct {
	Env
	budget  memory.Budget
	replay  printReplay   // the lines a rerun of code that printed reproduces (native_print.go)
	calling int           // calls of helpers left to the interpreter in progress on the thread (native_callouts.go)
	waited  time.Duration // the waits for code beyond nativeWait so far (native_wait.go)
}

// SetEnv sets the run environment of the builtins called from thread,
// replacing any set before.
func SetEnv(thread *starlark.Thread, env Env) {
	e := &threadEnv{Env: env, budget: memory.NewBudget(env.MaxMemory)}
	thread.SetLocal(envKey, e)
	if e.budget.Limit() > 0 {
		thread.SetLocal(allocCheckKey, checkStarlarkAlloc)
	} else {
		thread.SetLocal(allocCheckKey, nil)
	}
	if !env.Interpreted && env.Sources != nil && native.Ready(native.AMD64) == nil {
		thread.SetLocal(nativeKey, nativeHook)
		thread.SetLocal(nativeLoopKey, nativeLoopHook)
	} else {
		thread.SetLocal(nativeKey, nil)
		thread.SetLocal(nativeLoopKey, nil)
	}
	thread.SetLocal(enumerateKey, enumerateBuiltin) // collect.go
	thread.SetLocal(lenKey, lenBuiltin)             // len_key.go
	if env.NativeStats != nil || env.NativeStrict {
		thread.SetLocal(nativeMissKey, nativeMiss)
	} else {
		thread.SetLocal(nativeMissKey, nil)
	}
}

// EnvOf returns the run environment set on thread by SetEnv (the zero Env
// if none).
func EnvOf(thread *starlark.Thread) Env {
	if e := envOf(thread); e != nil {
		return e.Env
	}
	return Env{}
}

// envOf returns thread's environment, nil if none is set.
func envOf(thread *starlark.Thread) *threadEnv {
	e, _ := thread.Local(envKey).(*threadEnv)
	return e
}
