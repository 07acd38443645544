package cgen

import (
	"fmt"
	"strings"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// The statuses of the generated fused_func (FuncC): Returned with the
// result in *res, Stopped when the stop flag was seen set, NoReturn when
// the body ended without return, and Failed + c when check c failed (c may
// be -1 for an index check the IR left without a message), with the
// offending value in *res. Deep is a chain of calls that reached the cap
// the host set in the tables' last word (DepthCapAt) below f.MaxCalls():
// the item is left for the CPU to run.
const (
	Returned = 0
	Stopped  = 1
	NoReturn = 2
	Deep     = 3
	Failed   = 4
)

// StateWords returns the words of one worker's state for the code of f:
// the scratch arrays as (value, epoch) pairs, then the current epoch of
// each array. The state must be zero before its first use; it carries the
// epochs from item to item, so it is never cleared again.
func StateWords(f *fuse.Func) int { return f.ScratchWords() + len(f.Scratch) }

// TableWords returns the words the code of f reads through its tab
// pointer: the elements of every table, row after row, then for each table
// of rows the (offset, length) of each of its rows, and last, where f has
// Procs, the depth cap (at DepthCapAt): f.MaxCalls(), which a host may
// lower (a GPU thread's stack holds fewer frames; see FuncC).
func TableWords(f *fuse.Func) []uint64 {
	var out []uint64
	for _, t := range f.Tables {
		for _, r := range t.Rows {
			out = append(out, r...)
		}
	}
	off := uint64(0)
	for _, t := range f.Tables {
		for _, r := range t.Rows {
			if !t.Flat {
				out = append(out, off, uint64(len(r)))
			}
			off += uint64(len(r))
		}
	}
	if len(f.Procs) > 0 {
		out = append(out, uint64(f.MaxCalls()))
	}
	return out
}

// DepthCapAt is the index of the depth cap in TableWords(f), for a Func
// with Procs (-1 without).
func DepthCapAt(f *fuse.Func) int {
	if len(f.Procs) == 0 {
		return -1
	}
	return len(TableWords(f)) - 1
}

// flowHelpers are the C helpers of FuncC beside those of ItemFunc.
const flowHelpers = `#define FUSE_POLL_EVERY %dULL
/* fuse_index resolves index i of n elements as Starlark does (negative from
   the end); ~0 when out of range. */
FUSE_FN u64 fuse_index(u64 i, u64 n) {
	if (i < n) return i;
	u64 j = i + n;
	if ((long long)i < 0 && j < n) return j;
	return ~0ULL;
}
FUSE_FN u64 fuse_range_len(u64 a, u64 b, u64 s) {
	long long x = (long long)a, y = (long long)b, t = (long long)s;
	if (t > 0 && x < y) return (b - a - 1) / s + 1;
	if (t < 0 && x > y) return (a - b - 1) / (0 - s) + 1;
	return 0;
}
FUSE_FN u64 fuse_lowest(u64 set, u64 k) {
	u64 r = 0;
	for (; k > 0 && set != 0; k--) { r |= set & (0 - set); set &= set - 1; }
	return r;
}
/* fuse_ref is an array a helper receives by reference: the caller's
   scratch array in the worker state (v: (value, epoch) pairs, e: its
   current epoch, m: 0), or an array of the caller's frame (v: the values,
   m: the bitmap of the elements written since it was fresh, e: 0). */
typedef struct { u64 *v, *m, *e; } fuse_ref;
FUSE_FN fuse_ref fuse_mkref(u64 *v, u64 *m, u64 *e) { fuse_ref r; r.v = v; r.m = m; r.e = e; return r; }
FUSE_FN u64 fuse_ref_get(fuse_ref r, u64 j, u64 init) {
	if (r.m) return (r.m[j >> 6] >> (j & 63) & 1) ? r.v[j] : init;
	return r.v[2 * j + 1] == *r.e ? r.v[2 * j] : init;
}
FUSE_FN void fuse_ref_set(fuse_ref r, u64 j, u64 x) {
	if (r.m) { r.v[j] = x; r.m[j >> 6] |= 1ULL << (j & 63); }
	else { r.v[2 * j] = x; r.v[2 * j + 1] = *r.e; }
}
FUSE_FN void fuse_clear(u64 *m, u64 n) { for (u64 k = 0; k < n; k++) m[k] = 0; }
FUSE_FN void fuse_ref_fresh(fuse_ref r, u64 words) { if (r.m) fuse_clear(r.m, words); else ++*r.e; }
/* FUSE_CAT(fused_func, procN) names helper N after fused_func, also where
   fused_func is renamed by a #define. */
#define FUSE_CAT2(a, b) a##_##b
#define FUSE_CAT(a, b) FUSE_CAT2(a, b)
/* fuse_snoob: the next subset of set with as many bits as x (0: none). */
FUSE_FN u64 fuse_snoob(u64 x, u64 set) {
	u64 l = x & (0 - x), s = (x | ~set) + l;
	if (s < l) return 0;
	u64 r = s & set, m = set;
	for (u64 ones = x & ~r; ones & (ones - 1); ones &= ones - 1) { r |= m & (0 - m); m &= m - 1; }
	return r;
}
`

// FuncC returns C (t == C) or CUDA C source (t == CUDA) defining
//
//	int fused_func(u64 p0, u64 p1, u64 p2, u64 *state, const u64 *tab,
//		volatile int *stop, u64 *fuel, u64 *res)
//
// which runs f on one item with the semantics of FlowState.Eval: state is
// the worker's StateWords words (zero at first), tab the words of
// TableWords, fuel the worker's count of loop iterations left before the
// next poll of *stop (stop may be NULL), and the result a status (Returned,
// Stopped, NoReturn, Failed + check) with the result or the offending
// value in *res. Loops are real loops; a scratch array is fresh in O(1) by
// its epoch. The prelude is guarded, so several functions can share one
// file when fused_func is renamed by a #define before each.
//
// Each of f's Procs is a C function of its own, fused_func_procN (named
// after fused_func, also when it is renamed), and a call is a C call, so
// that recursion is C's: a frame per call on the C stack, holding the
// helper's variables and its own scratch arrays. Such an array is its
// values and a bitmap of the elements written since it was fresh (an
// element whose bit is clear reads Init): fresh clears the bitmap, len/64
// words, and needs no state that outlives the call, so StateWords does
// not grow with the depth of the recursion. (Eval's O(1) epochs would need
// each frame's epochs to survive from call to call: per-Proc frame stacks
// in the worker state, MaxCalls frames deep.) An array passed to a helper
// goes by reference (fuse_ref): the caller's array in the state or in its
// frame. A helper returns the status of fused_func, which its caller
// passes on with the value, so a failed check or a stop deep down ends
// the item as under Eval; a call polls as a loop iteration does and fails
// with its CheckDepth check (the value: the calls in progress) where the
// chain would pass f.MaxCalls().
//
// The stack a chain of calls takes is the sum of its frames, up to
// MaxCalls of them: a frame's variables, temporaries and arrays (8 bytes
// an element, a bit more for the bitmap; FrameBytes bounds it). On the CPU
// the C stack must hold that. On a GPU each thread's stack must, and the
// driver reserves the stack for every thread the card holds at once, so a
// host caps the depth lower there: the depth cap, the last word of the
// tables (DepthCapAt). A call that would pass the cap, but not
// f.MaxCalls(), ends the item with the status Deep, for the host to run it
// on the CPU; with the cap at f.MaxCalls() (TableWords' own) the code is
// Eval's.
func FuncC(f *fuse.Func, t Target) string {
	var b strings.Builder
	b.WriteString("#ifndef FUSE_FLOW_PRELUDE\n#define FUSE_FLOW_PRELUDE\n")
	if t == CUDA {
		b.WriteString(preludeCUDA)
	} else {
		b.WriteString(preludeC)
	}
	b.WriteString(helpers)
	fmt.Fprintf(&b, flowHelpers, fuse.PollEvery)
	b.WriteString("#endif\n")
	// The helpers: every prototype first, for calls in any order.
	for i := range f.Procs {
		fmt.Fprintf(&b, "FUSE_FN int %s;\n", procSignature(f, i))
	}
	for i := range f.Procs {
		g := newFlowGen(f, &f.Procs[i])
		g.stmts(f.Procs[i].Body)
		g.line("st = %d; goto done;", NoReturn)
		g.function(&b, procSignature(f, i))
	}
	g := newFlowGen(f, nil)
	g.stmts(f.Body)
	g.line("st = %d; goto done;", NoReturn)
	g.function(&b, "fused_func(u64 p0, u64 p1, u64 p2, u64 *state, const u64 *tab, volatile int *stop, u64 *fuelp, u64 *res)")
	return b.String()
}

// procName is the C name of Proc i.
func procName(i int) string { return fmt.Sprintf("FUSE_CAT(fused_func, proc%d)", i) }

// procSignature is the C declarator of Proc i: the status is the result;
// the value goes to *res, depth is the calls in progress with this one,
// tab, stop and fuelp are fused_func's, then come the word parameters and
// the arrays.
func procSignature(f *fuse.Func, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s(u64 *res, u64 depth, const u64 *tab, volatile int *stop, u64 *fuelp", procName(i))
	p := &f.Procs[i]
	for j := 0; j < p.Params; j++ {
		fmt.Fprintf(&b, ", u64 p%d", j)
	}
	for j := 0; j < p.Arrays; j++ {
		fmt.Fprintf(&b, ", fuse_ref a%d", j)
	}
	b.WriteString(")")
	return b.String()
}

// function writes the C function decl with g's body: its variables and
// temporaries, its scratch arrays made fresh, the fuel, the body and the
// exit every return, failure and stop jumps to.
func (g *flowGen) function(b *strings.Builder, decl string) {
	f, p := g.f, g.p
	fmt.Fprintf(b, "FUSE_FN int %s {\n", decl)
	vars, params := f.Vars, f.Params
	if p != nil {
		vars, params = p.Vars, p.Params
		b.WriteString("\t(void)depth; (void)tab;\n")
	} else {
		b.WriteString("\t(void)p0; (void)p1; (void)p2; (void)state; (void)tab;\n")
		params = min(params, 3)
	}
	for i := 0; i < vars; i++ {
		if i < params {
			fmt.Fprintf(b, "\tu64 v%d = p%d;\n", i, i)
		} else {
			fmt.Fprintf(b, "\tu64 v%d = 0;\n", i)
		}
	}
	if g.temps > 0 {
		b.WriteString("\tu64 ")
		for i := 0; i < g.temps; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "t%d", i)
		}
		b.WriteString(";\n")
	}
	if p == nil {
		// Every item sees fresh scratch arrays: a new epoch for each.
		for i := range f.Scratch {
			fmt.Fprintf(b, "\tu64 e%d = ++state[%d];\n", i, g.epochAt(i))
		}
	} else {
		// The frame's own arrays, fresh at the call (Eval's frames, reused
		// from call to call, read what an earlier call left until their
		// Fresh statement, which the compiler puts before any use).
		for i := p.Arrays; i < len(p.Scratch); i++ {
			n := p.Scratch[i].Len
			fmt.Fprintf(b, "\tu64 s%d[%d], m%d[%d];\n\tfuse_clear(m%d, %dULL);\n", i, max(n, 1), i, max(bitmapWords(n), 1), i, bitmapWords(n))
		}
	}
	b.WriteString("\tu64 fuel = *fuelp;\n\tint st;\n")
	b.WriteString(g.body.String())
	b.WriteString("done:\n\t*fuelp = fuel;\n\treturn st;\n}\n")
}

// bitmapWords is the words of the bitmap of an array of n elements.
func bitmapWords(n int) int { return (n + 63) / 64 }

// flowGen generates the body of fused_func or of a Proc's function.
type flowGen struct {
	f       *fuse.Func
	p       *fuse.Proc // the Proc whose body this is; nil for f's own
	body    strings.Builder
	ind     int
	temps   int
	tabData []uint64 // the offset of each table's first element in tab
	tabRows []uint64 // the offset of each table of rows' (offset, length) pairs
	scrOff  []int    // the offset of each of f's scratch arrays' pairs in the state
	capAt   uint64   // the offset of the depth cap in tab
}

func newFlowGen(f *fuse.Func, p *fuse.Proc) *flowGen {
	g := &flowGen{f: f, p: p, ind: 1}
	g.tabOffsets()
	g.scrOffsets()
	return g
}

// scratch returns scratch array i of the body g generates.
func (g *flowGen) scratch(i int) *fuse.Scratch {
	if g.p != nil {
		return &g.p.Scratch[i]
	}
	return &g.f.Scratch[i]
}

// arrRead returns C for element j (an index in range) of scratch array a.
func (g *flowGen) arrRead(a int, j string) string {
	s := g.scratch(a)
	switch {
	case g.p == nil:
		off := g.scrOff[a]
		return fmt.Sprintf("(state[%d + 2 * %s] == e%d ? state[%d + 2 * %s] : %#xULL)", off+1, j, a, off, j, s.Init)
	case a < g.p.Arrays:
		return fmt.Sprintf("fuse_ref_get(a%d, %s, %#xULL)", a, j, s.Init)
	}
	return fmt.Sprintf("((m%d[%s >> 6] >> (%s & 63) & 1) ? s%d[%s] : %#xULL)", a, j, j, a, j, s.Init)
}

// arrWrite emits the store of v to element j of scratch array a.
func (g *flowGen) arrWrite(a int, j, v string) {
	switch {
	case g.p == nil:
		off := g.scrOff[a]
		g.line("state[%d + 2 * %s] = %s; state[%d + 2 * %s] = e%d;", off, j, v, off+1, j, a)
	case a < g.p.Arrays:
		g.line("fuse_ref_set(a%d, %s, %s);", a, j, v)
	default:
		g.line("s%d[%s] = %s; m%d[%s >> 6] |= 1ULL << (%s & 63);", a, j, v, a, j, j)
	}
}

// arrFresh emits what makes scratch array a fresh.
func (g *flowGen) arrFresh(a int) {
	switch {
	case g.p == nil:
		g.line("e%d = ++state[%d];", a, g.epochAt(a))
	case a < g.p.Arrays:
		g.line("fuse_ref_fresh(a%d, %dULL);", a, bitmapWords(g.scratch(a).Len))
	default:
		g.line("fuse_clear(m%d, %dULL);", a, bitmapWords(g.scratch(a).Len))
	}
}

// arrRef returns C for a reference to scratch array a, passed to a call.
func (g *flowGen) arrRef(a int) string {
	switch {
	case g.p == nil:
		return fmt.Sprintf("fuse_mkref(state + %d, (u64 *)0, state + %d)", g.scrOff[a], g.epochAt(a))
	case a < g.p.Arrays:
		return fmt.Sprintf("a%d", a)
	}
	return fmt.Sprintf("fuse_mkref(s%d, m%d, (u64 *)0)", a, a)
}

// call emits the call e of a Proc and returns the temporary holding its
// result, in Eval's order: the depth check, the poll, the word arguments
// left to right, the call, whose failure or stop ends this function too.
func (g *flowGen) call(e *fuse.Expr) string {
	p := &g.f.Procs[e.Imm]
	depth := "0ULL" // f's own body: no call in progress, within any limit
	if g.p != nil {
		depth = "depth"
		// Past the cap the host set: Eval's depth failure where the cap
		// is f.MaxCalls(), else the item is left for the CPU (Deep).
		g.line("if (depth >= tab[%d]) { if (depth >= %dULL) %s *res = depth; st = %d; goto done; }", g.capAt, g.f.MaxCalls(), g.fail(e.Check, "depth"), Deep)
	}
	g.tick()
	args := make([]string, 0, len(e.Args))
	for _, a := range e.Args[:p.Params] {
		args = append(args, g.materialize(g.expr(a)))
	}
	for _, a := range e.Args[p.Params:] {
		args = append(args, g.arrRef(int(a.Imm)))
	}
	r := g.temp()
	var list strings.Builder
	for _, a := range args {
		list.WriteString(", ")
		list.WriteString(a)
	}
	g.line("st = %s(&%s, %s + 1, tab, stop, &fuel%s);", procName(int(e.Imm)), r, depth, list.String())
	g.line("if (st != %d) { if (st > %d) *res = %s; goto done; }", Returned, NoReturn, r) // a failure's value
	if g.p == nil {
		// A helper may have made an array of f's fresh: its epoch moved.
		for _, a := range e.Args[p.Params:] {
			g.line("e%d = state[%d];", a.Imm, g.epochAt(int(a.Imm)))
		}
	}
	return r
}

func (g *flowGen) tabOffsets() {
	off := uint64(0)
	for _, t := range g.f.Tables {
		g.tabData = append(g.tabData, off)
		off += uint64(t.Words())
	}
	for _, t := range g.f.Tables {
		g.tabRows = append(g.tabRows, off)
		if !t.Flat {
			off += 2 * uint64(len(t.Rows))
		}
	}
	g.capAt = off
}

func (g *flowGen) scrOffsets() {
	off := 0
	for _, s := range g.f.Scratch {
		g.scrOff = append(g.scrOff, off)
		off += 2 * s.Len
	}
}

func (g *flowGen) epochAt(i int) int { return g.f.ScratchWords() + i }

func (g *flowGen) line(format string, args ...any) {
	g.body.WriteString(strings.Repeat("\t", g.ind))
	fmt.Fprintf(&g.body, format, args...)
	g.body.WriteByte('\n')
}

func (g *flowGen) temp() string {
	g.temps++
	return fmt.Sprintf("t%d", g.temps-1)
}

// fail ends the function with check c failed on the value v.
func (g *flowGen) fail(c int, v string) string {
	return fmt.Sprintf("{ *res = %s; st = %d; goto done; }", v, Failed+c)
}

// tick counts a loop iteration and polls the stop flag now and then.
func (g *flowGen) tick() {
	g.line("if (--fuel == 0) { fuel = FUSE_POLL_EVERY; if (stop && *stop) { st = %d; goto done; } }", Stopped)
}

func (g *flowGen) stmts(ss []fuse.Stmt) {
	for i := range ss {
		g.stmt(&ss[i])
	}
}

// loop emits the body of a loop with its continue label and the tick.
func (g *flowGen) loop(s *fuse.Stmt) {
	g.ind++
	g.stmts(s.Body)
	g.line("cont%d: ;", s.Label)
	g.tick()
	g.ind--
}

func (g *flowGen) stmt(s *fuse.Stmt) {
	switch s.Kind {
	case fuse.SAssign:
		g.line("v%d = %s;", s.Var, g.expr(s.X))
	case fuse.SStore:
		i := g.materialize(g.expr(s.X))
		j := g.temp()
		g.line("%s = fuse_index(%s, %dULL);", j, i, g.scratch(s.Arr).Len)
		g.line("if (%s == ~0ULL) %s", j, g.fail(s.Check, i))
		g.arrWrite(s.Arr, j, g.expr(s.Y))
	case fuse.SFresh:
		g.arrFresh(s.Arr)
	case fuse.SIf:
		g.line("if (%s) {", g.expr(s.X))
		g.ind++
		g.stmts(s.Body)
		g.ind--
		if len(s.Else) > 0 {
			g.line("} else {")
			g.ind++
			g.stmts(s.Else)
			g.ind--
		}
		g.line("}")
	case fuse.SWhile:
		// The condition may need statements: evaluate it in the loop.
		g.line("for (;;) {")
		g.ind++
		g.line("if (!(%s)) break;", g.expr(s.X))
		g.ind--
		g.loop(s)
		g.line("}")
		g.line("brk%d: ;", s.Label)
	case fuse.SForRange:
		a := g.materialize(g.expr(s.X))
		b := g.materialize(g.expr(s.Y))
		c := g.materialize(g.expr(s.Z))
		g.line("if (%s == 0) %s", c, g.fail(s.Check, "0"))
		n, x := g.temp(), g.temp()
		g.line("%s = fuse_range_len(%s, %s, %s); %s = %s;", n, a, b, c, x, a)
		g.line("for (; %s > 0; %s--) {", n, n)
		g.line("\tv%d = %s; %s += %s;", s.Var, x, x, c)
		g.loop(s)
		g.line("}")
		g.line("brk%d: ;", s.Label)
	case fuse.SForSubsets:
		m := g.materialize(g.expr(s.X))
		x := g.temp()
		if s.Y == nil {
			g.line("%s = 0;", x)
			g.line("for (;;) {")
			g.line("\tv%d = %s; %s = (%s - %s) & %s;", s.Var, x, x, x, m, m)
			g.loop(s)
			g.line("\tif (%s == 0) break;", x)
			g.line("}")
			g.line("brk%d: ;", s.Label)
			break
		}
		k := g.materialize(g.expr(s.Y))
		more := g.temp()
		// k == 0 runs the body once with the empty set; k > popcount(m)
		// not at all; else the k-subsets in ascending order (snoob).
		g.line("%s = %s <= FUSE_POPC(%s); %s = fuse_lowest(%s, %s);", more, k, m, x, m, k)
		g.line("while (%s) {", more)
		g.line("\tv%d = %s; if (%s) { %s = fuse_snoob(%s, %s); %s = %s != 0; } else %s = 0;", s.Var, x, k, x, x, m, more, x, more)
		g.loop(s)
		g.line("}")
		g.line("brk%d: ;", s.Label)
	case fuse.SForBits:
		b := g.temp()
		g.line("%s = %s;", b, g.expr(s.X))
		g.line("while (%s) {", b)
		g.line("\tv%d = FUSE_CTZ(%s); %s &= %s - 1;", s.Var, b, b, b)
		g.loop(s)
		g.line("}")
		g.line("brk%d: ;", s.Label)
	case fuse.SLabeled:
		g.line("{")
		g.ind++
		g.stmts(s.Body)
		g.ind--
		g.line("}")
		g.line("brk%d: ;", s.Label)
	case fuse.SBreak:
		g.line("goto brk%d;", s.Label)
	case fuse.SContinue:
		g.line("goto cont%d;", s.Label)
	case fuse.SReturn:
		g.line("*res = %s; st = %d; goto done;", g.expr(s.X), Returned)
	case fuse.SFail:
		v := "0"
		if s.X != nil {
			v = g.expr(s.X)
		}
		g.line("%s", g.fail(s.Check, v))
	default:
		panic(fmt.Sprintf("fuse: no C for statement %d", s.Kind))
	}
}

// materialize returns x as a temporary or a name, so that reading it again
// costs nothing and happens after the statements emitted so far.
func (g *flowGen) materialize(x string) string {
	if isCName(x) {
		return x
	}
	t := g.temp()
	g.line("%s = %s;", t, x)
	return t
}

// isCName reports whether s is a name or a constant (0x...ULL).
func isCName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == 'U' || r == 'L') {
			return false
		}
	}
	return true
}

// pure reports whether e can be computed as a C expression without
// statements: no check can fail in it, it has no lazy operands and no
// calls.
func pure(e *fuse.Expr) bool {
	switch e.Op {
	case fuse.OpLoad, fuse.OpLoad2, fuse.OpRowLen, fuse.OpScratch, fuse.OpAndThen, fuse.OpOrElse, fuse.OpCond, fuse.OpCall:
		return false
	}
	if e.Check >= 0 && e.Op < fuse.OpVar {
		return false
	}
	for _, a := range e.Args {
		if !pure(a) {
			return false
		}
	}
	return true
}

// expr returns C for e, emitting before it the statements it needs (in the
// order Eval runs them: operands left to right, each check before its op).
func (g *flowGen) expr(e *fuse.Expr) string {
	switch e.Op {
	case fuse.OpConst:
		return fmt.Sprintf("%#xULL", e.Imm)
	case fuse.OpVar:
		return fmt.Sprintf("v%d", e.Imm)
	case fuse.OpLoad:
		i := g.materialize(g.expr(e.Args[0]))
		t := &g.f.Tables[e.Imm]
		j := g.temp()
		g.line("%s = fuse_index(%s, %dULL);", j, i, len(t.Rows[0]))
		g.line("if (%s == ~0ULL) %s", j, g.fail(e.Check, i))
		return fmt.Sprintf("tab[%d + %s]", g.tabData[e.Imm], j)
	case fuse.OpLoad2, fuse.OpRowLen:
		off, n := g.row(e)
		if e.Op == fuse.OpRowLen {
			return n
		}
		i := g.materialize(g.expr(e.Args[1]))
		j := g.temp()
		g.line("%s = fuse_index(%s, %s);", j, i, n)
		g.line("if (%s == ~0ULL) %s", j, g.fail(e.Check, i))
		return fmt.Sprintf("tab[%s + %s]", off, j)
	case fuse.OpScratch:
		i := g.materialize(g.expr(e.Args[0]))
		j := g.temp()
		g.line("%s = fuse_index(%s, %dULL);", j, i, g.scratch(int(e.Imm)).Len)
		g.line("if (%s == ~0ULL) %s", j, g.fail(e.Check, i))
		return g.arrRead(int(e.Imm), j)
	case fuse.OpCall:
		return g.call(e)
	case fuse.OpDepth:
		if g.p != nil {
			return "depth"
		}
		return "0ULL"
	case fuse.OpAndThen, fuse.OpOrElse, fuse.OpCond:
		r := g.temp()
		g.line("%s = %s;", r, g.expr(e.Args[0]))
		switch e.Op {
		case fuse.OpAndThen:
			g.line("if (%s != 0) {", r)
			g.sub(r, e.Args[1])
		case fuse.OpOrElse:
			g.line("if (%s == 0) {", r)
			g.sub(r, e.Args[1])
		default:
			g.line("if (%s != 0) {", r)
			g.sub(r, e.Args[1])
			g.line("} else {")
			g.sub(r, e.Args[2])
		}
		g.line("}")
		return r
	}
	args := make([]string, len(e.Args))
	checked := e.Check >= 0 && e.Check < len(g.f.Checks) && e.Op < fuse.OpVar
	for i, a := range e.Args {
		args[i] = g.expr(a)
		if checked || !pure(e) {
			args[i] = g.materialize(args[i])
		}
	}
	if checked {
		c := &g.f.Checks[e.Check]
		if x, y, v, ok := fuse.Guarded(e.Op, c.Kind, args); ok {
			if bad := cCheckFails(c.Kind, x, y, c.Imm); bad != "" {
				g.line("if (%s) %s", bad, g.fail(e.Check, v))
			}
		}
	}
	return "(" + cExpr(e.Op, e.Imm, args...) + ")"
}

// sub emits, indented, the statements of the lazy operand x and assigns it to r.
func (g *flowGen) sub(r string, x *fuse.Expr) {
	g.ind++
	g.line("%s = %s;", r, g.expr(x))
	g.ind--
}

// row resolves the row Args[0] of the table of e (checking it) and returns
// C for the row's offset in tab and its length.
func (g *flowGen) row(e *fuse.Expr) (off, n string) {
	i := g.materialize(g.expr(e.Args[0]))
	t := &g.f.Tables[e.Imm]
	j := g.temp()
	g.line("%s = fuse_index(%s, %dULL);", j, i, len(t.Rows))
	g.line("if (%s == ~0ULL) %s", j, g.fail(e.Check, i))
	if t.Flat {
		// A flat table read as rows (not made by the compiler): one row.
		return fmt.Sprint(g.tabData[e.Imm]), fmt.Sprintf("%dULL", len(t.Rows[0]))
	}
	return fmt.Sprintf("tab[%d + 2 * %s]", g.tabRows[e.Imm], j), fmt.Sprintf("tab[%d + 2 * %s]", g.tabRows[e.Imm]+1, j)
}

// funcKernel is the CUDA kernel around fused_func: the grid-stride loop of
// kernel, with each thread's state at state + thread * StateWords words,
// the tables at tab and the stop flag at stop (host memory the card reads).
// Under first, a thread stops at the first position after the least hit
// found so far by any thread. An item whose calls pass the depth cap
// (status Deep) is counted in deep[0] and marked in the bitmap after it
// (bit i for the launch's item i), for the host to run on the CPU.
const funcKernel = `
FUSE_EXTERN __global__ void fuse_run_func(u64 method, u64 kind, u64 start, u64 step,
		u64 a0, u64 a1, u64 a2, u64 base, u64 n, u64 out, u64 acc, u64 state, u64 tab, u64 stopp, u64 deepp) {
	const u64 *x0 = (const u64 *)a0, *x1 = (const u64 *)a1, *x2 = (const u64 *)a2;
	u64 *res = (u64 *)out, *ac = (u64 *)acc;
	u64 lo = method == 3 ? ~0ULL : 0, hi = 0, first = ~0ULL, bad = ~0ULL;
	u64 stride = (u64)gridDim.x * blockDim.x;
	u64 tid = (u64)blockIdx.x * blockDim.x + threadIdx.x;
	u64 *sc = state ? (u64 *)state + tid * FUSE_STATE_WORDS : (u64 *)0;
	u64 fuel = FUSE_POLL_EVERY;
	volatile int *stop = (volatile int *)stopp;
	for (u64 i = tid; i < n; i += stride) {
		u64 pos = base + i;
		if (method == 5 && pos > ((volatile u64 *)ac)[2]) break;
		u64 p0 = kind == 0 ? start + pos * step : x0[i];
		u64 p1 = x1 ? x1[i] : 0, p2 = x2 ? x2[i] : 0;
		u64 r = 0;
		int s = fused_func(p0, p1, p2, sc, (const u64 *)tab, stop, &fuel, &r);
		if (s == 1) break; /* stopped: the host knows why */
		if (s == 3 && deepp) { /* too deep for this stack: the CPU's */
			u64 *dp = (u64 *)deepp;
			atomicAdd(&dp[0], 1ULL);
			atomicOr(&dp[1 + (i >> 6)], 1ULL << (i & 63));
			continue;
		}
		if (s != 0) { if (pos < bad) bad = pos; continue; }
		switch (method) {
		case 0: case 6: res[i] = r; break;               /* map; filter keeps the results */
		case 1: lo += r != 0; break;                     /* count */
		case 2: { u64 s2 = lo + r; hi += s2 < lo; lo = s2; break; } /* sum */
		case 3: if (r < lo) lo = r; break;               /* min */
		case 4: if (r > lo) lo = r; break;               /* max */
		case 5: if (r != 0 && pos < first) { first = pos; atomicMin(&ac[2], first); } break; /* first */
		}
	}
	switch (method) {
	case 1: if (lo) atomicAdd(&ac[0], lo); break;
	case 2: { u64 old = atomicAdd(&ac[0], lo); if (old + lo < old) hi++; if (hi) atomicAdd(&ac[1], hi); break; }
	case 3: atomicMin(&ac[0], lo); break;
	case 4: atomicMax(&ac[0], lo); break;
	}
	if (bad != ~0ULL) atomicMin(&ac[3], bad);
}
`

// FuncCUDASource returns the CUDA C of the kernel fuse_run_func running f
// over a slice of a space (for NVRTC). Its arguments are words: method,
// kind (KindRange or KindArray), start and step of a range, the three
// parameter arrays (0 where absent), base (the position of the slice's
// first item), n, the results (map, filter), the accumulator (AccWords
// words, as for CUDASource's fuse_run), the states (StateWords(f) words per
// thread of the grid, zero at first), the tables (TableWords, the depth cap
// last where f has Procs), the stop flag (an int the host sets to end the
// run; 0 for none) and the items left to the CPU (DeepWords(n) words, zero
// at first: their count, then a bit per item; 0 where f has no Procs). A
// failing item's position goes to the accumulator's AccErr; the host
// recomputes its error.
// Compiled as C with the shims of the tests, the same text runs on the CPU.
func FuncCUDASource(f *fuse.Func) string {
	return "#ifndef FUSE_EXTERN\n#define FUSE_EXTERN extern \"C\"\n#endif\n" +
		FuncC(f, CUDA) + fmt.Sprintf("#define FUSE_STATE_WORDS %dULL\n", StateWords(f)) + funcKernel
}

// frameSlack is the fixed words of a Proc's frame in FrameBytes: the
// pointers and counters every call passes or keeps (res, depth, tab, stop,
// fuelp, fuel, st) and the return address.
const frameSlack = 8

// FrameBytes bounds the bytes one call of any of f's Procs takes on a
// thread's stack in the code of FuncC (0 where f has no Procs). What a
// frame keeps while it calls on is at most its words: its parameters, its
// variables, the temporaries of its expressions (FuncC names every value
// that lives across a call: a call's arguments and result are
// temporaries), three pointers per array it was passed, and the fixed
// words of every call (frameSlack). Each is 8 bytes, in the frame or in a
// register that the callee saves in its own; they are counted twice, for
// the copies a register allocator may keep. Its own arrays (values and
// bitmap) come on top, and the whole is rounded up to 16 bytes. A host
// sizes a GPU thread's stack as the frames of the depth it allows (the
// compiler of the card cannot size the stack of recursive code).
func FrameBytes(f *fuse.Func) uint64 {
	most := uint64(0)
	for i := range f.Procs {
		p := &f.Procs[i]
		g := newFlowGen(f, p)
		g.stmts(p.Body)
		words := uint64(p.Params+p.Vars+g.temps+3*p.Arrays) + frameSlack
		arrays := uint64(0)
		for j := p.Arrays; j < len(p.Scratch); j++ {
			n := p.Scratch[j].Len
			arrays += 8 * uint64(max(n, 1)+max(bitmapWords(n), 1))
		}
		most = max(most, (16*words+arrays+15)&^15)
	}
	return most
}

// DeepWords is the words of fuse_run_func's record of the items of a
// launch of n items that passed the depth cap: their count and a bit each.
func DeepWords(n uint64) uint64 { return 1 + (n+63)/64 }
