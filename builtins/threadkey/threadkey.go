// Package threadkey names the thread-local keys under which bitsh hands
// its fork of go.starlark.net (third_party/starlark, README.bitsh.md) the
// hooks the fork calls, and the key under which the fork hands bitsh a
// function of its own (HashInsertWords). The fork and bitsh both declare
// their keys from these constants, so that the two sides cannot drift
// apart; each hook's type and contract are documented in the fork,
// beside the key's use. Upstream go.starlark.net reads none of them.
//
// The package imports nothing: the fork imports it.
package threadkey

// Key is a thread-local key, the string given to starlark.Thread's
// SetLocal and Local.
type Key string

// The keys of the hooks the fork reads.
const (
	// Native holds the hook the fork offers plain functions to, to run
	// as machine code (the fork's starlark/native.go).
	Native Key = "go.starlark.net/native"
	// NativeLoop holds the hook the fork offers hot loops of top-level
	// code to (the fork's starlark/native_loop.go).
	NativeLoop Key = "go.starlark.net/native.loop"
	// NativeMiss holds what hears of the calls the interpreter runs
	// without asking a function's native form (the fork's
	// starlark/native.go).
	NativeMiss Key = "go.starlark.net/native.miss"
	// AllocCheck holds the check the fork calls before an operation
	// allocates a large result (the fork's starlark/alloc.go).
	AllocCheck Key = "go.starlark.net/alloc-check"
	// Enumerate holds the enumerate builtin whose loops the fork runs
	// without building the pairs (the fork's starlark/loops.go).
	Enumerate Key = "go.starlark.net/enumerate"
	// Len holds the len builtin whose calls the fork computes in its
	// loop for lists, tuples, strings, dicts and sets (the fork's
	// starlark/builtins_fast.go).
	Len Key = "go.starlark.net/len"
)

// The key under which the fork answers with a function of its own, where
// the application stored nothing (Thread.Local).
const (
	// HashInsertWords gives the fork's func(v starlark.Value, keys,
	// vals []uint64) bool, which inserts many ints into a dict or set as
	// inserting them one by one would, its table grown once and the
	// entries placed in the order of its buckets (the fork's
	// starlark/hashtable_bulk.go).
	HashInsertWords Key = "go.starlark.net/hashtable.insert-words"
)
