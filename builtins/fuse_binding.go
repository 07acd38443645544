package builtins

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/compile"
	"github.com/bitsh/bitsh/builtins/machine"
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

// Sources gives the source texts bitsh ran under a file name (newest
// last), so that the compiler finds a function's def or lambda by its
// position: machine.Sources, which the interpreter implements
// (interp/sources.go).
type Sources = machine.Sources

// fusedValue is what fuse returns: its compiled code, and the engines it
// runs on.
type fusedValue struct {
	code   *machine.Code
	cpu    machine.CPUEngine // code.CPU (a test's stand-in)
	device string            // "cpu", "gpu" or "auto"
	gpu    machine.Engine
	auto   *autoGPU // device="auto": the GPU, prepared when a run pays for it
}

var (
	_ starlark.Callable = (*fusedValue)(nil)
	_ starlark.HasAttrs = (*fusedValue)(nil)
)

func (f *fusedValue) String() string {
	return fmt.Sprintf("<fused %s(%s) on %s>", f.code.Name, strings.Join(f.code.Params, ", "), f.device)
}
func (f *fusedValue) Type() string          { return "fused" }
func (f *fusedValue) Freeze()               {}
func (f *fusedValue) Truth() starlark.Bool  { return true }
func (f *fusedValue) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: fused") }
func (f *fusedValue) Name() string          { return f.code.Name }

// HelpText is what help(f) prints: the source the value was compiled from.
func (f *fusedValue) HelpText() string {
	return fmt.Sprintf("%s, compiled from %s:\n%s", f.String(), f.code.Where, f.code.Text)
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
	if len(kwargs) > 0 || len(args) != len(f.code.Params) {
		return nil, fmt.Errorf("%s: got %d arguments, want %d (%s)", f.fname(), len(args), len(f.code.Params), strings.Join(f.code.Params, ", "))
	}
	ws := make([]uint64, len(args))
	for i, a := range args {
		w, err := toWord(f.fname(), f.code.Params[i], a)
		if err != nil {
			return nil, err
		}
		ws[i] = uint64(w)
	}
	v, err := f.cpu.Call(Context(thread), ws)
	if err != nil {
		if ctx := Context(thread); ctx.Err() != nil {
			return nil, fmt.Errorf("%s: cancelled", f.fname())
		}
		return nil, f.itemError("call", err, nil)
	}
	return starlark.MakeUint64(v), nil
}

func (f *fusedValue) fname() string {
	if f.code.Name == "lambda" {
		return "fused lambda"
	}
	return "fused " + f.code.Name
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
		items = append(items, fmt.Sprintf("%s = %#x", f.code.Params[i], p))
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
		file = f.code.File()
	}
	return fmt.Errorf("%s.%s: %s:%d:%d: %s, for %s%s", f.fname(), method, file, ie.Check.Line, ie.Check.Col,
		msg, strings.Join(items, ", "), where)
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
	var code *machine.Code
	var err error
	switch fn := args[0].(type) {
	case *starlark.Function:
		if len(free) > 0 {
			return nil, fmt.Errorf("fuse: free names as keywords are for the source-text form; %s already has its free names", fn.Name())
		}
		code, err = machine.Compile(fn, machine.Fused, machineEnv(thread))
	case starlark.String:
		code, err = fuseText(thread, string(fn), free)
	default:
		return nil, fmt.Errorf("fuse: fn: got %s, want a def or lambda, or its source text", args[0].Type())
	}
	if err != nil {
		return nil, fmt.Errorf("fuse: %w", err)
	}
	if err := CheckAlloc(thread, "fuse", code.WorkerBytes()*int64(max(Workers(thread), 1))); err != nil {
		return nil, err
	}
	f := &fusedValue{code: code, cpu: code.CPU, device: "cpu"}
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

// prepareGPU opens the GPU and compiles f for it (machine.Code.GPU).
func (f *fusedValue) prepareGPU() (machine.Engine, error) { return f.code.GPU() }

// fuseText compiles the source text of a lambda or a def: free names
// resolve to the keywords given, then to bitsh's builtins.
func fuseText(thread *starlark.Thread, src string, free starlark.StringDict) (*machine.Code, error) {
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
	return machine.CompileText(src, lookup, callable, machineEnv(thread))
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
	if len(args) != len(f.code.Params) {
		return nil, fmt.Errorf("%s: got %d spaces, want %d (one for each parameter: %s)", fn, len(args), len(f.code.Params), strings.Join(f.code.Params, ", "))
	}
	spaces := make([]fuse.Space, len(args))
	for i, a := range args {
		s, err := spaceOf(fn, a)
		if err != nil {
			return nil, err
		}
		if s == nil {
			if i > 0 {
				return nil, fmt.Errorf("%s: %s: got %s, want a word array, a range or subsets of the same length as the space", fn, f.code.Params[i], a.Type())
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
			return nil, fmt.Errorf("%s: %s has %d items, the space %d", fn, f.code.Params[i+1], s.Len(), n)
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
		res, err = f.gpu.Run(ctx, spaces, method, opt)
	case f.auto != nil:
		res, err = f.auto.run(ctx, f.cpu, spaces, method, opt)
	default:
		res, err = f.cpu.Run(ctx, spaces, method, opt)
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
		res, err := f.cpu.Run(ctx, []fuse.Space{fuse.Array(chunk)}, method, opt)
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
	if name, err := machine.GPUName(); err == nil {
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
