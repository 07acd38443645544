package builtins

import "go.starlark.net/starlark"

// checkStarlarkAlloc is the allocation check SetEnv gives
// go.starlark.net: what names the operation ("list + list").
func checkStarlarkAlloc(thread *starlark.Thread, what string, bytes int64) error {
	return CheckAlloc(thread, what, bytes)
}

// MaxMemory returns the budget of thread's Env (0: none).
func MaxMemory(thread *starlark.Thread) int64 {
	if e := envOf(thread); e != nil {
		return e.budget.Limit()
	}
	return 0
}

// CheckAlloc reports an error naming fn when allocating bytes more bytes
// would exceed the memory budget of thread's Env (memory.Budget.Check).
// Collecting builtins and word arrays call it before they allocate, so
// that a request too big for the budget fails as an ordinary Starlark
// error instead of growing the heap until the watchdog (or the operating
// system) stops it. Without a budget it returns nil.
func CheckAlloc(thread *starlark.Thread, fn string, bytes int64) error {
	e := envOf(thread)
	if e == nil {
		return nil
	}
	return e.budget.Check(fn, bytes)
}
