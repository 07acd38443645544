// Package cgen generates C and CUDA C from fuse's IR: a straight line
// (fuse.Line) as one function of an item (ItemFunc) and the CUDA kernel
// around it (CUDASource), a function with control flow, tables, scratch
// arrays and calls (fuse.Func) as a C function (FuncC) and its CUDA kernel
// (FuncCUDASource). Every op is printed from its C spelling in fuse's op
// table (fuse.Op.CSpelling), so the generated code computes what fuse.Eval1
// does. Package builtins/fuse/cuda compiles and launches the CUDA sources;
// the tests compile the C with the system C compiler.
package cgen

import (
	"fmt"
	"strings"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Target is the dialect of generated code.
type Target int

// The targets: plain C (gcc, clang) and CUDA C (NVRTC). The function body is
// the same text; only the prelude's helpers differ.
const (
	C Target = iota
	CUDA
)

const preludeC = `typedef unsigned long long u64;
#define FUSE_FN static inline
#define FUSE_POPC(x) ((u64)__builtin_popcountll(x))
#define FUSE_CTZ(x) ((x) ? (u64)__builtin_ctzll(x) : 64ULL)
#define FUSE_CLZ(x) ((x) ? (u64)__builtin_clzll(x) : 64ULL)
#define FUSE_MULHI(a, b) ((u64)(((unsigned __int128)(a) * (b)) >> 64))
`

const preludeCUDA = `typedef unsigned long long u64;
#define FUSE_FN __device__ static inline
#define FUSE_POPC(x) ((u64)__popcll(x))
#define FUSE_CTZ(x) ((x) ? (u64)(__ffsll((long long)(x)) - 1) : 64ULL)
#define FUSE_CLZ(x) ((u64)__clzll((long long)(x)))
#define FUSE_MULHI(a, b) ((u64)__umul64hi((a), (b)))
`

// helpers are the builtins as small C functions on u64, shared by both
// targets and both generators (the C spellings of fuse's op table call
// them); each matches Eval1.
const helpers = `FUSE_FN u64 fuse_shl(u64 a, u64 b) { return b >= 64 ? 0 : a << b; }
FUSE_FN u64 fuse_shr(u64 a, u64 b) { return b >= 64 ? 0 : a >> b; }
FUSE_FN u64 fuse_div(u64 a, u64 b) { return b ? a / b : 0; }
FUSE_FN u64 fuse_mod(u64 a, u64 b) { return b ? a % b : 0; }
FUSE_FN u64 fuse_rot(u64 x, u64 k, u64 w) {
	if (w == 64) { k &= 63; return k ? (x << k | x >> (64 - k)) : x; }
	u64 m = (1ULL << w) - 1;
	k &= w - 1; x &= m;
	return k ? ((x << k | x >> (w - k)) & m) : x;
}
FUSE_FN u64 fuse_rev64(u64 x) {
	x = (x >> 1 & 0x5555555555555555ULL) | (x & 0x5555555555555555ULL) << 1;
	x = (x >> 2 & 0x3333333333333333ULL) | (x & 0x3333333333333333ULL) << 2;
	x = (x >> 4 & 0x0f0f0f0f0f0f0f0fULL) | (x & 0x0f0f0f0f0f0f0f0fULL) << 4;
	x = (x >> 8 & 0x00ff00ff00ff00ffULL) | (x & 0x00ff00ff00ff00ffULL) << 8;
	x = (x >> 16 & 0x0000ffff0000ffffULL) | (x & 0x0000ffff0000ffffULL) << 16;
	return x >> 32 | x << 32;
}
FUSE_FN u64 fuse_bswap64(u64 x) {
	x = (x >> 8 & 0x00ff00ff00ff00ffULL) | (x & 0x00ff00ff00ff00ffULL) << 8;
	x = (x >> 16 & 0x0000ffff0000ffffULL) | (x & 0x0000ffff0000ffffULL) << 16;
	return x >> 32 | x << 32;
}
FUSE_FN u64 fuse_pdep(u64 x, u64 m) {
	u64 r = 0;
	for (u64 b = 1; m; b <<= 1) { if (x & b) r |= m & (0 - m); m &= m - 1; }
	return r;
}
FUSE_FN u64 fuse_pext(u64 x, u64 m) {
	u64 r = 0;
	for (u64 b = 1; m; b <<= 1) { if (x & m & (0 - m)) r |= b; m &= m - 1; }
	return r;
}
FUSE_FN u64 fuse_delta_swap(u64 x, u64 m, u64 d) {
	if (d > 63) return x;
	u64 t = (x ^ x >> d) & m;
	return x ^ t ^ t << d;
}
FUSE_FN u64 fuse_lsb(u64 a) { return a & (0 - a); }
FUSE_FN u64 fuse_xshr(u64 a, u64 k) { return a ^ fuse_shr(a, k); }
FUSE_FN u64 fuse_xshl(u64 a, u64 k) { return a ^ fuse_shl(a, k); }
FUSE_FN u64 fuse_min(u64 a, u64 b) { return a < b ? a : b; }
FUSE_FN u64 fuse_max(u64 a, u64 b) { return a > b ? a : b; }
FUSE_FN u64 fuse_abs(u64 a) { return (long long)a < 0 ? 0 - a : a; }
FUSE_FN u64 fuse_gray_inv(u64 a) {
	a ^= a >> 1; a ^= a >> 2; a ^= a >> 4; a ^= a >> 8; a ^= a >> 16; a ^= a >> 32;
	return a;
}
`

// ItemFunc returns C (or CUDA C) source defining
//
//	u64 fused_item(u64 p0, u64 p1, u64 p2, int *err)
//
// which computes the program on one item; on a failed check it sets *err to
// the check's index + 1 and returns 0.
func ItemFunc(p *fuse.Line, t Target) string {
	var b strings.Builder
	if t == CUDA {
		b.WriteString(preludeCUDA)
	} else {
		b.WriteString(preludeC)
	}
	b.WriteString(helpers)
	b.WriteString("FUSE_FN u64 fused_item(u64 p0, u64 p1, u64 p2, int *err) {\n")
	b.WriteString("\t(void)p1; (void)p2;\n")
	v := func(x fuse.Value) string { return fmt.Sprintf("v%d", x) }
	ci := 0
	checks := func(upto int) {
		for ; ci < len(p.Checks) && p.Checks[ci].At <= upto; ci++ {
			c := p.Checks[ci]
			bad := cCheckFails(c.Kind, v(c.A), v(c.B), c.Imm)
			if bad == "" {
				continue
			}
			if c.Mask >= 0 {
				bad = fmt.Sprintf("%s != 0 && (%s)", v(c.Mask), bad)
			}
			fmt.Fprintf(&b, "\tif (%s) { *err = %d; return 0; }\n", bad, ci+1)
		}
	}
	for i, in := range p.Instrs {
		checks(i)
		args := []string{v(in.A), v(in.B), v(in.C)}[:in.Op.Arity()]
		e := cExpr(in.Op, in.Imm, args...)
		fmt.Fprintf(&b, "\tu64 v%d = %s;\n", i, e)
	}
	checks(len(p.Instrs))
	fmt.Fprintf(&b, "\treturn v%d;\n}\n", p.Result)
	return b.String()
}

// The layout of the accumulator a kernel run updates (AccWords words).
const (
	AccLo    = 0 // count, sum's low word, min or max
	AccHi    = 1 // sum's high word
	AccFirst = 2 // the least position with a non-zero result (first)
	AccErr   = 3 // the least position whose item fails a check
	AccWords = 4
)

// The space kinds of the kernel: items generated from their position
// (start + i*step) or read from a0.
const (
	KindRange = 0
	KindArray = 1
)

// kernel is the CUDA kernel around fused_item: a grid-stride loop over the
// positions base .. base+n-1 of a slice, reducing in registers and then
// with one atomic operation per thread. Every argument is a 64-bit word so
// that the host passes them uniformly.
const kernel = `
FUSE_EXTERN __global__ void fuse_run(u64 method, u64 kind, u64 start, u64 step,
		u64 a0, u64 a1, u64 a2, u64 base, u64 n, u64 out, u64 acc) {
	const u64 *x0 = (const u64 *)a0, *x1 = (const u64 *)a1, *x2 = (const u64 *)a2;
	u64 *res = (u64 *)out, *ac = (u64 *)acc;
	u64 lo = method == 3 ? ~0ULL : 0, hi = 0, first = ~0ULL, bad = ~0ULL;
	u64 stride = (u64)gridDim.x * blockDim.x;
	for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		u64 pos = base + i;
		u64 p0 = kind == 0 ? start + pos * step : x0[i];
		u64 p1 = x1 ? x1[i] : 0, p2 = x2 ? x2[i] : 0;
		int err = 0;
		u64 r = fused_item(p0, p1, p2, &err);
		if (err) { if (pos < bad) bad = pos; continue; }
		switch (method) {
		case 0: case 6: res[i] = r; break;               /* map; filter keeps the results */
		case 1: lo += r != 0; break;                     /* count */
		case 2: { u64 s = lo + r; hi += s < lo; lo = s; break; } /* sum */
		case 3: if (r < lo) lo = r; break;               /* min */
		case 4: if (r > lo) lo = r; break;               /* max */
		case 5: if (r != 0 && pos < first) first = pos; break; /* first */
		}
	}
	switch (method) {
	case 1: if (lo) atomicAdd(&ac[0], lo); break;
	case 2: { u64 old = atomicAdd(&ac[0], lo); if (old + lo < old) hi++; if (hi) atomicAdd(&ac[1], hi); break; }
	case 3: atomicMin(&ac[0], lo); break;
	case 4: atomicMax(&ac[0], lo); break;
	case 5: if (first != ~0ULL) atomicMin(&ac[2], first); break;
	}
	if (bad != ~0ULL) atomicMin(&ac[3], bad);
}
`

// CUDASource returns the CUDA C of the kernel fuse_run computing p (for
// NVRTC). Compiled as C with the shims of the tests, the same text runs on
// the CPU, which is how machines without a GPU check it.
func CUDASource(p *fuse.Line) string {
	return "#ifndef FUSE_EXTERN\n#define FUSE_EXTERN extern \"C\"\n#endif\n" + ItemFunc(p, CUDA) + kernel
}

// cExpr returns C computing op on the operands args (C expressions, each
// used once) with Imm imm, exactly as Eval1: the op's spelling in fuse's op
// table.
func cExpr(op fuse.Op, imm uint64, args ...string) string {
	c := op.CSpelling()
	if c == "" {
		panic("fuse: no C for " + op.String())
	}
	var a [3]string
	copy(a[:], args)
	return strings.NewReplacer("$a", a[0], "$b", a[1], "$c", a[2],
		"$i", fmt.Sprint(imm), "$x", fmt.Sprintf("%#xULL", imm), "$s", fmt.Sprint(64-imm)).Replace(c)
}

// cCheckFails returns C that is true when a check of kind passes not for
// the operands a and b (C names) and Imm imm, or "" when the check cannot
// fail (a width of 64 or more).
func cCheckFails(kind fuse.CheckKind, a, b string, imm uint64) string {
	if kind >= fuse.NumChecks {
		panic(fmt.Sprintf("fuse: no C for check kind %d", kind))
	}
	if kind == fuse.CheckFits && imm >= 64 {
		return ""
	}
	return strings.NewReplacer("$a", a, "$b", b, "$i", fmt.Sprint(imm)).Replace(kind.CSpelling())
}
