package builtins

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// What became of the calls of plain functions offered to run as machine
// code (docs/scripting.md, "Plain functions as machine code"): an
// interpreter that wants a report (bitsh -native-report) sets a
// NativeStats in the Env of its threads; each offer of a function gets a
// nativeTally, whose atomic counters the calls add to, and the report
// reads them at the end of a run. Without a NativeStats a call counts
// nothing.

// NativeStats gathers, for one interpreter, the functions offered to run
// as machine code and what became of their calls: how many ran as code,
// how many the interpreter ran, and why. It is safe for concurrent use;
// an interpreter has its own (nothing is shared between interpreters).
type NativeStats struct {
	mu      sync.Mutex
	tallies []*nativeTally
	latest  map[*starlark.Function]*nativeTally // each function's last offer
}

// NewNativeStats returns an empty NativeStats.
func NewNativeStats() *NativeStats {
	return &NativeStats{latest: map[*starlark.Function]*nativeTally{}}
}

// The fork's whys (third_party/starlark/starlark/native.go) that the
// report words its own way: a call with keyword arguments, and the calls
// of a function its form gave up (nativeGaveUp there), which are the
// calls of a function whose code was switched off (fbOff).
const (
	nativeMissKeywords = "keyword arguments"
	nativeMissGaveUp   = "its native form gave it up"
)

// nativeMiss counts, on fn's last tally, a call of fn that the
// interpreter runs without asking its form, for why; in strict mode a
// call with keyword arguments is an error.
func nativeMiss(thread *starlark.Thread, fn *starlark.Function, why string) {
	env := envOf(thread)
	if env == nil {
		return
	}
	if s := env.NativeStats; s != nil {
		s.mu.Lock()
		if t := s.latest[fn]; t != nil && why == nativeMissGaveUp {
			t.why[fbOff].Add(1)
		} else if t != nil {
			if t.fork == nil {
				t.fork = map[string]int64{}
			}
			t.fork[why]++
		}
		s.mu.Unlock()
	}
	if why == nativeMissKeywords && env.NativeStrict && !strings.HasPrefix(fn.Position().Filename(), dialect.StdlibPrefix) {
		thread.Cancel(StrictError(fn, "a call ran in the interpreter: a call with keyword arguments"))
	}
}

// A fallback is why the interpreter ran a call of a function offered to
// run as code, where the reason is not one argument's nor one check's.
type fallback uint8

const (
	fbNotReady     fallback = iota // the code was still being generated
	fbOff                          // the code was switched off (nativeFunc.offWhy says why)
	fbArity                        // another number of arguments (the interpreter's error)
	fbTable                        // a global list read as a table had changed
	fbFrozen                       // a list the code writes was frozen or being iterated
	fbStopped                      // the run was cancelled while the code ran
	fbFailed                       // the code failed without a check to name
	fbRefused                      // the function was not compiled
	fbStack                        // the interpreter's stack too deep for the code's calls
	fbGlobalLength                 // a list of its module the code writes had another length
	fbGlobalElem                   // ... held values its words cannot (other values, ints out of range)
	fbGlobalShared                 // ... was passed as an argument too, or is a row of a table it reads
	fbGlobalHash                   // a set or dict of its module held what the code cannot, or was frozen
	nFallbacks
)

// An argFallback is why one argument sent a call to the interpreter.
type argFallback uint8

const (
	argNotInt  argFallback = iota // not an int (where the code takes a word)
	argNotWord                    // an int outside [0, 2^64)
	argNotList                    // not a list (where the code takes one)
	argLength                     // a list of another length
	argTwice                      // the same list as another parameter
	argElem                       // a list holding values its words cannot (other values, ints out of range)
	argInTable                    // a list the function also reads as a table
	argNotBool                    // not a bool (where the code takes one)
	argNotHash                    // not a set, or a dict, where the code takes one
	nArgFallbacks
)

// A nativeTally counts the calls of one function after one offer.
type nativeTally struct {
	fn     *starlark.Function
	code   atomic.Int64                  // calls run as code
	why    [nFallbacks]atomic.Int64      // calls run by the interpreter, by fallback
	args   [][nArgFallbacks]atomic.Int64 // ... by parameter and argFallback
	checks []atomic.Int64                // ... by the check of the code that failed
	// callouts count the calls of each callout of the code (fuse.Func.Callouts)
	// that calls a helper which stays interpreted (native_callouts.go).
	callouts []atomic.Int64
	refused  atomic.Pointer[string]     // why it is not run as code (nil: compiled)
	fork     map[string]int64           // ... by the fork's why (nativeMiss; NativeStats.mu)
	nf       atomic.Pointer[nativeFunc] // the compiled function, for its checks
	// loop is the position of a loop of top-level code (nativeLoopHook),
	// "" for a function; params are the globals its code takes, in the
	// order of its parameters.
	loop   string
	params atomic.Pointer[[]string]
}

// offered records an offer of fn and returns its tally; s may be nil (no
// report: nil tally).
func (s *NativeStats) offered(fn *starlark.Function) *nativeTally {
	if s == nil {
		return nil
	}
	t := &nativeTally{fn: fn, args: make([][nArgFallbacks]atomic.Int64, fn.NumParams())}
	s.mu.Lock()
	s.tallies = append(s.tallies, t)
	s.latest[fn] = t
	s.mu.Unlock()
	return t
}

// offeredLoop records an offer of a loop of top-level code, at pos, in
// fn's module, and returns its tally; s may be nil.
func (s *NativeStats) offeredLoop(fn *starlark.Function, pos syntax.Position) *nativeTally {
	var params []string
	if s == nil {
		return nil
	}
	t := &nativeTally{fn: fn, loop: pos.String(), args: make([][nArgFallbacks]atomic.Int64, compile.MaxExactParams)}
	t.params.Store(&params)
	s.mu.Lock()
	s.tallies = append(s.tallies, t)
	s.mu.Unlock()
	return t
}

// name returns the name and position the report gives the tally's
// function, or loop.
func (t *nativeTally) name() (name, pos string) {
	if t.loop != "" {
		return loopName, t.loop
	}
	return t.fn.Name(), t.fn.Position().String()
}

// param returns the name of the tally's parameter p: a loop's global.
func (t *nativeTally) param(p int) string {
	if t.loop != "" {
		if ps := *t.params.Load(); p < len(ps) {
			return "global " + ps[p]
		}
		return "its range"
	}
	name, _ := t.fn.Param(p)
	return "argument " + name
}

// refuse records why the function stays interpreted.
func (t *nativeTally) refuse(fn *starlark.Function, err error) {
	if t != nil {
		msg := withFile(fn, err.Error())
		t.refused.Store(&msg)
	}
}

// compiled records nf as the tally's function.
func (t *nativeTally) compiled(nf *nativeFunc) {
	if t != nil {
		t.checks = make([]atomic.Int64, len(nf.f.Checks))
		t.callouts = make([]atomic.Int64, len(nf.f.Callouts))
		t.nf.Store(nf)
	}
}

// lineCol matches the "line:col: " a compile error starts with.
var lineCol = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+:\d+: )`) }) // compiled when first used

// withFile puts fn's file name before the line and column a compile
// error of fn starts with ("12:5: x" -> "f.star:12:5: x").
func withFile(fn *starlark.Function, msg string) string {
	if lineCol().MatchString(msg) {
		return fn.Position().Filename() + ":" + msg
	}
	return msg
}

// A NativeFunc is what a NativeStats reports of one function: its name
// and position, its calls run as code and by the interpreter, and why.
type NativeFunc struct {
	Name     string // the function's name ("<toplevel loop>" for a loop of top-level code)
	Loop     bool   // a loop of top-level code: its calls are its runs as code
	Position string // where its def is, "file:line:col"
	// Refused says why the function is not run as code ("" where it
	// is); Compiled counts the times it was compiled (a global it reads
	// rebound, or its def run again, makes it compiled again).
	Refused  string
	Compiled int
	// Code and Interpreted count its calls since it was first offered:
	// those run as code and those run by the interpreter.
	Code, Interpreted int64
	Reasons           []NativeReason // why the interpreter ran calls, most calls first
	// Callouts are the helpers its code leaves to the interpreter (a
	// callout each: docs/machine-code.md), each with the calls its code
	// made of it, in the order of the code's callouts; none is a
	// fallback: the calls run as code count them.
	Callouts []NativeReason
}

// A NativeReason is a reason the interpreter ran calls of a function, and
// how many.
type NativeReason struct {
	Why   string
	Calls int64
}

// Funcs returns what became of each function offered so far, in the
// order of their first offers.
func (s *NativeStats) Funcs() []NativeFunc {
	s.mu.Lock()
	tallies := slices.Clone(s.tallies)
	fork := make([]map[string]int64, len(tallies))
	for i, t := range tallies {
		fork[i] = maps.Clone(t.fork)
	}
	s.mu.Unlock()
	var out []NativeFunc
	// One entry for each def: the functions a def makes each time it
	// runs (a nested def) are one, as are a function's offers.
	type def struct{ name, pos string }
	index := map[def]int{}
	reasons := map[def]map[string]int64{}
	for ti, t := range tallies {
		name, pos := t.name()
		d := def{name, pos}
		i, ok := index[d]
		if !ok {
			i = len(out)
			index[d] = i
			out = append(out, NativeFunc{Name: name, Position: pos, Loop: t.loop != ""})
			reasons[d] = map[string]int64{}
		}
		f := &out[i]
		rs := reasons[d]
		f.Refused = ""
		if r := t.refused.Load(); r != nil {
			f.Refused = *r
		} else {
			f.Compiled++
		}
		f.Code += t.code.Load()
		add := func(why string, n int64) {
			if n > 0 {
				rs[why] += n
				f.Interpreted += n
			}
		}
		nf := t.nf.Load()
		for k := range t.why {
			add(fallbackText(fallback(k), t, nf), t.why[k].Load())
		}
		for p := range t.args {
			name := t.param(p)
			for k := range t.args[p] {
				add(argText(argFallback(k), name, nf, p), t.args[p][k].Load())
			}
		}
		if nf != nil { // (checks and callouts are set before nf is stored)
			for c := range t.checks {
				add(checkText(t.fn, nf, c), t.checks[c].Load())
			}
			for k := range t.callouts {
				f.Callouts = addCallout(f.Callouts, nf.f.Callouts[k].Name, nf.f.Callouts[k].Callee != nil, t.callouts[k].Load())
			}
		}
		for why, n := range fork[ti] {
			if why == nativeMissKeywords {
				why = "a call with keyword arguments"
			}
			add(why, n)
		}
	}
	for d, i := range index {
		for why, n := range reasons[d] {
			out[i].Reasons = append(out[i].Reasons, NativeReason{Why: why, Calls: n})
		}
		slices.SortFunc(out[i].Reasons, func(a, b NativeReason) int {
			return cmp.Or(cmp.Compare(b.Calls, a.Calls), strings.Compare(a.Why, b.Why))
		})
	}
	return out
}

// WriteReport writes the report of the functions offered so far to w,
// one paragraph a function (or loop of top-level code):
//
//	native: fib (fib.star:1:5): machine code, 1 call as code, 0 by the interpreter
//	native: g (g.star:4:5): machine code, 12 calls as code, 1000 by the interpreter:
//	    1000 calls: an int beyond 64 bits (<<) at g.star:7:13
//	native: <toplevel loop> (t.star:8:1): machine code, 1 run as code, 3 back edges in the interpreter:
//	    3 back edges: its machine code was still being generated
//
// or "native: no function was offered to run as machine code".
func (s *NativeStats) WriteReport(w io.Writer) error {
	var b strings.Builder
	funcs := s.Funcs()
	if len(funcs) == 0 {
		b.WriteString("native: no function was offered to run as machine code\n")
	}
	for _, f := range funcs {
		fmt.Fprintf(&b, "native: %s (%s): ", f.Name, f.Position)
		calls := calls
		if f.Loop {
			calls = backEdges
		}
		if f.Refused != "" && f.Code == 0 && len(f.Reasons) <= 1 {
			if f.Loop {
				fmt.Fprintf(&b, "interpreted: not compiled: %s\n", f.Refused)
				continue
			}
			fmt.Fprintf(&b, "interpreted, %s: not compiled: %s\n", calls(f.Interpreted), f.Refused)
			continue
		}
		b.WriteString("machine code")
		if f.Compiled > 1 {
			fmt.Fprintf(&b, " (compiled %d times: a global it reads was rebound, or its def ran again)", f.Compiled)
		}
		if f.Refused != "" {
			b.WriteString(" (last offer not compiled: " + f.Refused + ")")
		}
		if f.Loop {
			fmt.Fprintf(&b, ", %s as code, %s", runs(f.Code), edges(f.Interpreted))
		} else {
			fmt.Fprintf(&b, ", %s as code, %d by the interpreter", calls(f.Code), f.Interpreted)
		}
		for i, c := range f.Callouts {
			sep := ", "
			if i == 0 {
				sep = ", calling in the interpreter "
			}
			n := fmt.Sprintf("%d calls", c.Calls) // (calls, not a loop's back edges)
			if c.Calls == 1 {
				n = "1 call"
			}
			fmt.Fprintf(&b, "%s%s (%s)", sep, c.Why, n)
		}
		if len(f.Reasons) == 0 {
			b.WriteString("\n")
			continue
		}
		b.WriteString(":\n")
		for _, r := range f.Reasons {
			fmt.Fprintf(&b, "    %s: %s\n", calls(r.Calls), r.Why)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// addCallout adds n calls of the helper name to cs, where call says the
// callout calls a helper (not a print or an emit).
func addCallout(cs []NativeReason, name string, call bool, n int64) []NativeReason {
	if !call {
		return cs
	}
	for i := range cs {
		if cs[i].Why == name {
			cs[i].Calls += n
			return cs
		}
	}
	return append(cs, NativeReason{Why: name, Calls: n})
}

// calls says "1 call" or "n calls".
func calls(n int64) string {
	if n == 1 {
		return "1 call"
	}
	return fmt.Sprintf("%d calls", n)
}

// runs says "1 run" or "n runs": a loop's runs as code, each the rest
// of the loop from a back edge.
func runs(n int64) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// edges says "1 back edge in the interpreter" or "n back edges ...": a
// loop's back edges at which its code was not run.
func edges(n int64) string {
	return backEdges(n) + " in the interpreter"
}

// backEdges says "1 back edge" or "n back edges".
func backEdges(n int64) string {
	if n == 1 {
		return "1 back edge"
	}
	return fmt.Sprintf("%d back edges", n)
}

// fallbackText says why the interpreter ran a call, for k.
func fallbackText(k fallback, t *nativeTally, nf *nativeFunc) string {
	switch k {
	case fbNotReady:
		return "its machine code was still being generated"
	case fbOff:
		why := "off"
		if nf != nil {
			if w := nf.offWhy.Load(); w != nil {
				why = *w
			}
		}
		return "its code was switched off: " + why
	case fbArity:
		return "another number of arguments (the interpreter's error)"
	case fbTable:
		return "a global list it reads as a table had changed"
	case fbFrozen:
		return "a list it writes was frozen or being iterated"
	case fbStopped:
		return "the run was cancelled while its code ran"
	case fbFailed:
		return "its code failed"
	case fbStack:
		return "the call came too deep in the interpreter's stack for its code's calls"
	case fbGlobalLength:
		return "a list of its module that it writes or loops over had another length"
	case fbGlobalElem:
		return "a list of its module that it writes or loops over held a value its code cannot"
	case fbGlobalShared:
		return "a list of its module that it writes or loops over was passed as an argument too, or is a row of a list it reads as a table"
	case fbGlobalHash:
		return "a set or dict of its module held other keys or values than ints in [0, 2^64) or too many entries, or was frozen or being iterated where it writes it"
	case fbRefused:
		if r := t.refused.Load(); r != nil {
			return "not compiled: " + *r
		}
		return "not compiled"
	}
	return fmt.Sprintf("fallback %d", k)
}

// argText says why the interpreter ran a call, for argument p (named
// name) and k.
func argText(k argFallback, name string, nf *nativeFunc, p int) string {
	switch k {
	case argNotInt:
		return name + " not an int"
	case argNotBool:
		return name + " not a bool"
	case argNotHash:
		return name + " not the set or dict the code takes"
	case argNotWord:
		return name + " an int outside [0, 2^64)"
	case argNotList:
		return name + " not a list"
	case argLength:
		if nf != nil && nf.pc.Lists != nil {
			return fmt.Sprintf("%s a list of another length than %d", name, nf.pc.Lists[p])
		}
		return name + " a list of another length"
	case argTwice:
		return name + " the same list as another parameter"
	case argElem:
		return name + " a list holding other values than the ints its code holds"
	case argInTable:
		return name + " a list it also reads as a table"
	}
	return fmt.Sprintf("%s: fallback %d", name, k)
}

// checkText says why the interpreter ran a call whose code failed at
// check c: the check's message at its position (in fn's file unless the
// check names another).
func checkText(fn *starlark.Function, nf *nativeFunc, c int) string {
	ch := nf.f.Checks[c]
	if ch.Line > 0 {
		file := ch.File
		if file == "" {
			file = fn.Position().Filename()
		}
		return fmt.Sprintf("%s at %s:%d:%d", ch.Msg, file, ch.Line, ch.Col)
	}
	return ch.Msg
}

// miss counts a call of nf that the interpreter runs, for k, and in
// strict mode cancels the thread with why, naming the function. It
// returns the call's (nil, false).
func (nf *nativeFunc) miss(thread *starlark.Thread, k fallback) (starlark.Value, bool) {
	if t := nf.tally; t != nil {
		t.why[k].Add(1)
	}
	if nf.strict && k != fbStopped {
		nf.strictFail(thread, func() string { return fallbackText(k, nf.tally, nf) })
	}
	return nil, false
}

// missArg is miss for argument p and k.
func (nf *nativeFunc) missArg(thread *starlark.Thread, p int, k argFallback) (starlark.Value, bool) {
	if t := nf.tally; t != nil && p < len(t.args) {
		t.args[p][k].Add(1)
	}
	if nf.strict {
		nf.strictFail(thread, func() string {
			name, _ := nf.fn.Param(p)
			return argText(k, "argument "+name, nf, p)
		})
	}
	return nil, false
}

// missCheck is miss for the code's failed check c.
func (nf *nativeFunc) missCheck(thread *starlark.Thread, c int) (starlark.Value, bool) {
	if c < 0 || c >= len(nf.f.Checks) {
		return nf.miss(thread, fbFailed)
	}
	if t := nf.tally; t != nil && c < len(t.checks) {
		t.checks[c].Add(1)
	}
	if nf.strict {
		nf.strictFail(thread, func() string { return checkText(nf.fn, nf, c) })
	}
	return nil, false
}

// strictFail cancels thread: in strict mode (bitsh -native-strict) a call
// of a function offered to run as code that the interpreter would run is
// an error, which the interpreter raises at its next step, in the
// function's frame.
func (nf *nativeFunc) strictFail(thread *starlark.Thread, why func() string) {
	thread.Cancel(StrictError(nf.fn, "a call ran in the interpreter: "+why()))
}

// NativeStrictPrefix starts the reason with which strict mode cancels a
// thread: the interpreter's error is "Starlark computation cancelled: "
// and that reason, which the embedder may show alone.
const NativeStrictPrefix = "native-strict: "

// StrictError returns the reason strict mode gives for fn: its name and
// position, then why.
func StrictError(fn *starlark.Function, why string) string {
	return fmt.Sprintf("%s%s (%s): %s", NativeStrictPrefix, fn.Name(), fn.Position(), why)
}
