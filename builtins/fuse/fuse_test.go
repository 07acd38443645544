package fuse

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// randProgram builds a random program over every op and check kind.
func randProgram(r *rand.Rand, params, size int) *Program {
	b := NewBuilder(params)
	vals := []Value{}
	for i := 0; i < params; i++ {
		vals = append(vals, b.Param(i))
	}
	pick := func() Value {
		if r.IntN(8) == 0 {
			return b.Const(randWord(r))
		}
		return vals[r.IntN(len(vals))]
	}
	widths := []uint64{8, 16, 32, 64}
	for i := 0; i < size; i++ {
		if r.IntN(5) == 0 {
			// An idiom that the CPU executor runs as one instruction.
			vals = append(vals, randIdiom(r, b, pick))
			continue
		}
		op := Op(2 + r.IntN(int(numOps)-2))
		var imm uint64
		if op == OpRotl || op == OpRotr || op == OpReverse || op == OpSwapBytes {
			imm = widths[r.IntN(4)]
		}
		v := b.Op3(op, pick(), pick(), pick(), imm)
		vals = append(vals, v)
		if r.IntN(6) == 0 {
			mask := NoMask
			if r.IntN(2) == 0 {
				mask = b.Op1(OpBool, pick(), 0)
			}
			kind := CheckKind(r.IntN(4))
			b.Check(Check{Kind: kind, A: pick(), B: pick(), Imm: widths[r.IntN(3)], Mask: mask, Msg: fmt.Sprintf("check %d", i), Line: 1, Col: i})
		}
	}
	return b.Finish(vals[len(vals)-1])
}

// randIdiom builds a pattern that peephole rewrites (or nearly: a shift
// of 64 or more, another operand), so that the random programs exercise the
// executor's own instructions.
func randIdiom(r *rand.Rand, b *Builder, pick func() Value) Value {
	x := pick()
	k := b.Const([]uint64{0, 1, 7, 33, 63, 64, uint64(r.IntN(64))}[r.IntN(7)])
	switch r.IntN(4) {
	case 0: // popcount(x & K)
		return b.Op1(OpPopcount, b.Op2(OpAnd, x, b.Const(randWord(r)), 0), 0)
	case 1: // x ^ x >> K, x << K ^ x
		if r.IntN(2) == 0 {
			return b.Op2(OpXor, x, b.Op2(OpShr, x, k, 0), 0)
		}
		return b.Op2(OpXor, b.Op2(OpShl, x, k, 0), x, 0)
	}
	// (x ^ x >> K) * y, y * (x << K ^ x), y a constant or a value; now and
	// then the xorshift has a second use.
	sh := OpShr
	if r.IntN(2) == 0 {
		sh = OpShl
	}
	xs := b.Op2(OpXor, x, b.Op2(sh, x, k, 0), 0)
	y := pick()
	if r.IntN(2) == 0 {
		y = b.Const(randWord(r) | 1)
	}
	v := b.Op2(OpMul, xs, y, 0)
	if r.IntN(2) == 0 {
		v = b.Op2(OpMul, y, xs, 0)
	}
	if r.IntN(4) == 0 {
		v = b.Op2(OpAdd, v, xs, 0)
	}
	return v
}

// randWord favours small values and edges, so that checks pass and fail.
func randWord(r *rand.Rand) uint64 {
	switch r.IntN(5) {
	case 0:
		return uint64(r.IntN(70))
	case 1:
		return -uint64(r.IntN(3))
	case 2:
		return 1 << r.IntN(64)
	}
	return r.Uint64() >> r.IntN(64)
}

func TestEvalOps(t *testing.T) {
	cases := []struct {
		op      Op
		a, b, c uint64
		imm     uint64
		want    uint64
	}{
		{OpShl, 1, 64, 0, 0, 0},
		{OpShl, 1, 63, 0, 0, 1 << 63},
		{OpShr, 1 << 63, 200, 0, 0, 0},
		{OpSub, 0, 1, 0, 0, ^uint64(0)},
		{OpDiv, 7, 0, 0, 0, 0},
		{OpMod, 7, 3, 0, 0, 1},
		{OpRotl, 0x81, 1, 0, 8, 0x03},
		{OpRotr, 0x81, 1, 0, 8, 0xc0},
		{OpRotl, 1, ^uint64(0), 0, 64, 1 << 63}, // k = -1
		{OpReverse, 1, 0, 0, 16, 0x8000},
		{OpSwapBytes, 0x1234, 0, 0, 16, 0x3412},
		{OpPdep, 0b101, 0xf0, 0, 0, 0x50},
		{OpPext, 0x50, 0xf0, 0, 0, 0b101},
		{OpDeltaSwap, 0b01, 0b01, 1, 0, 0b10},
		{OpGrayInv, 0b110, 0, 0, 0, 0b100},
		{OpGray, 0b100, 0, 0, 0, 0b110},
		{OpBsr, 0, 0, 0, 0, ^uint64(0)},
		{OpSelect, 2, 5, 6, 0, 5},
		{OpSelect, 0, 5, 6, 0, 6},
		{opXorShrK, 0xf0, 0, 0, 4, 0xff},
		{opXorShlK, 0x0f, 0, 0, 4, 0xff},
		{opXorShrMul, 0xf0, 3, 0, 4, 0x2fd},
		{opXorShlMul, 0x0f, 3, 0, 4, 0x2fd},
		{opXorShrMul, 1 << 63, 1, 0, 63, 1<<63 | 1},
		{opXorShlMul, 1, ^uint64(0), 0, 63, 1<<63 - 1},
		{opPopAndK, 0xff, 0, 0, 0x0f0f, 4},
	}
	for _, c := range cases {
		if got := Eval1(Instr{Op: c.op, Imm: c.imm}, c.a, c.b, c.c); got != c.want {
			t.Errorf("%s(%#x, %#x, %#x; %d) = %#x, want %#x", c.op, c.a, c.b, c.c, c.imm, got, c.want)
		}
	}
	for i := 0; i < 1000; i++ {
		x, m := rand.Uint64(), rand.Uint64()
		if Eval1(Instr{Op: OpPext}, Eval1(Instr{Op: OpPdep}, x, m, 0), m, 0) != x&(uint64(1)<<bits.OnesCount64(m)-1) && bits.OnesCount64(m) < 64 {
			t.Fatalf("pext(pdep(%#x, %#x)) wrong", x, m)
		}
		if g := Eval1(Instr{Op: OpGrayInv}, Eval1(Instr{Op: OpGray}, x, 0, 0), 0, 0); g != x {
			t.Fatalf("gray_inverse(gray(%#x)) = %#x", x, g)
		}
	}
}

// naive runs method by calling Eval on each item in order.
func naive(p *Program, items [][]uint64, method Method, limit uint64) (*Result, error) {
	res := &Result{}
	if method == Min {
		res.Value = ^uint64(0)
	}
	for i, it := range items {
		v, f := p.Eval(it)
		if f >= 0 {
			return nil, &ItemError{Index: uint64(i), Params: it, Check: &p.Checks[f]}
		}
		switch method {
		case Count:
			if v != 0 {
				res.Count++
			}
		case Sum:
			var cy uint64
			res.SumLo, cy = bits.Add64(res.SumLo, v, 0)
			res.SumHi += cy
		case Min:
			res.Value, res.Found = min(res.Value, v), true
		case Max:
			res.Value, res.Found = max(res.Value, v), true
		case First:
			if v != 0 {
				res.Found, res.Index = true, uint64(i)
				return res, nil
			}
		case Filter, Map:
			if method == Map {
				res.Items = append(res.Items, v)
			} else if v != 0 {
				res.Items = append(res.Items, it[0])
				if uint64(len(res.Items)) > limit {
					return nil, &LimitError{limit}
				}
			}
		}
	}
	return res, nil
}

func sameOutcome(t *testing.T, what string, got *Result, gotErr error, want *Result, wantErr error, method Method) {
	t.Helper()
	if (gotErr != nil) != (wantErr != nil) {
		t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
	}
	if wantErr != nil {
		var ge, we *ItemError
		if errors.As(wantErr, &we) {
			if !errors.As(gotErr, &ge) || ge.Index != we.Index || ge.Check != we.Check {
				t.Fatalf("%s: error %v, want %v", what, gotErr, wantErr)
			}
		}
		return
	}
	var g, w any
	switch method {
	case Count:
		g, w = got.Count, want.Count
	case Sum:
		g, w = [2]uint64{got.SumHi, got.SumLo}, [2]uint64{want.SumHi, want.SumLo}
	case Min, Max:
		g, w = fmt.Sprint(got.Found, got.Value), fmt.Sprint(want.Found, want.Value)
	case First:
		g, w = fmt.Sprint(got.Found, got.Index), fmt.Sprint(want.Found, want.Index)
	case Filter, Map:
		g, w = fmt.Sprint(got.Items), fmt.Sprint(want.Items)
	}
	if fmt.Sprint(g) != fmt.Sprint(w) {
		t.Fatalf("%s: got %v, want %v", what, g, w)
	}
}

// checkProgram compares the block executor on 1, 2 and 3 workers with the
// item-by-item evaluation, for every method, over arrays of items.
func checkProgram(t *testing.T, p *Program, r *rand.Rand, n int) {
	t.Helper()
	c := Compile(p)
	cols := make([]Array, p.Params)
	for i := range cols {
		cols[i] = make(Array, n)
		for j := range cols[i] {
			cols[i][j] = randWord(r)
		}
	}
	items := make([][]uint64, n)
	for j := range items {
		for i := range cols {
			items[j] = append(items[j], cols[i][j])
		}
	}
	spaces := make([]Space, len(cols))
	for i := range cols {
		spaces[i] = cols[i]
	}
	for method := Map; method <= Filter; method++ {
		limit := uint64(n)
		if method == Filter && r.IntN(3) == 0 {
			limit = uint64(r.IntN(n + 1))
		}
		want, wantErr := naive(p, items, method, limit)
		for workers := 1; workers <= 3; workers++ {
			opt := Options{Workers: workers, Limit: limit}
			if method == Map {
				opt.Out = make([]uint64, n)
			}
			got, err := c.Run(context.Background(), spaces, method, opt)
			if method == Map && err == nil {
				got.Items = opt.Out
			}
			sameOutcome(t, fmt.Sprintf("method %d, %d workers\n%s", method, workers, p), got, err, want, wantErr, method)
		}
	}
}

func TestRandomPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rounds := 120
	if testing.Short() {
		rounds = 60
	}
	for i := 0; i < rounds; i++ {
		p := randProgram(r, 1+r.IntN(3), 1+r.IntN(30))
		checkProgram(t, p, r, []int{0, 1, 5, 300, 3000}[r.IntN(5)])
	}
}

func FuzzProgram(f *testing.F) {
	f.Add(uint64(1), uint8(10), uint16(100))
	f.Fuzz(func(t *testing.T, seed uint64, size uint8, n uint16) {
		r := rand.New(rand.NewPCG(seed, 7))
		p := randProgram(r, 1+r.IntN(3), 1+int(size%40))
		checkProgram(t, p, r, int(n%2000))
	})
}

func TestSpaces(t *testing.T) {
	b := NewBuilder(1)
	p := Compile(b.Finish(b.Param(0))) // identity
	d := uint64(0xf0f1)
	var all, k3 []uint64
	for x := uint64(0); ; x = (x - d) & d {
		all = append(all, x)
		if bits.OnesCount64(x) == 3 {
			k3 = append(k3, x)
		}
		if x == d {
			break
		}
	}
	seek := func(list []uint64) func(uint64) uint64 { return func(i uint64) uint64 { return list[i] } }
	for _, c := range []struct {
		name  string
		space Space
		want  []uint64
	}{
		{"range", Range{Start: 5, Step: ^uint64(2), N: 1000}, func() []uint64 {
			var w []uint64
			for i := 0; i < 1000; i++ {
				w = append(w, 5+uint64(i)*^uint64(2))
			}
			return w
		}()},
		{"subsets", Subsets{D: d, K: -1, N: uint64(len(all)), Seek: seek(all)}, all},
		{"k-subsets", Subsets{D: d, K: 3, N: uint64(len(k3)), Seek: seek(k3)}, k3},
	} {
		for workers := 1; workers <= 3; workers++ {
			out := make([]uint64, c.space.Len())
			if _, err := p.Run(context.Background(), []Space{c.space}, Map, Options{Workers: workers, Out: out}); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(out) != fmt.Sprint(c.want) {
				t.Errorf("%s, %d workers: %v, want %v", c.name, workers, out[:min(10, len(out))], c.want[:min(10, len(c.want))])
			}
		}
	}
}

func TestCancel(t *testing.T) {
	b := NewBuilder(1)
	p := Compile(b.Finish(b.Op1(OpPopcount, b.Param(0), 0)))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Run(ctx, []Space{Range{N: 1 << 40, Step: 1}}, Count, Options{Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

// TestGeneratedC compiles the C generated for random programs with the
// system C compiler and compares it with the CPU executor item by item.
func TestGeneratedC(t *testing.T) {
	cc := cCompiler()
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang) found: the generated C is not checked")
	}
	r := rand.New(rand.NewPCG(3, 4))
	rounds := 40
	if testing.Short() {
		rounds = 12
	}
	// One C file holding every program, to pay the compiler once.
	var src strings.Builder
	var progs []*Program
	var inputs [][][3]uint64
	for i := 0; i < rounds; i++ {
		p := randProgram(r, 1+r.IntN(3), 1+r.IntN(30))
		progs = append(progs, p)
		body := ItemFunc(p, C)
		if i > 0 {
			// The prelude once; then only the function, renamed.
			body = body[strings.Index(body, "FUSE_FN u64 fused_item"):]
		}
		src.WriteString(strings.Replace(body, "fused_item", fmt.Sprintf("fused_item%d", i), 1))
		var in [][3]uint64
		for j := 0; j < 200; j++ {
			in = append(in, [3]uint64{randWord(r), randWord(r), randWord(r)})
		}
		inputs = append(inputs, in)
	}
	src.WriteString("#include <stdio.h>\nint main(void) {\n\tint err; u64 v;\n")
	for i, in := range inputs {
		for _, x := range in {
			fmt.Fprintf(&src, "\terr = 0; v = fused_item%d(%#xULL, %#xULL, %#xULL, &err); printf(\"%%d %%llu\\n\", err, v);\n", i, x[0], x[1], x[2])
		}
	}
	src.WriteString("\treturn 0;\n}\n")
	out := runC(t, cc, src.String())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	k := 0
	for i, p := range progs {
		c := Compile(p)
		for _, x := range inputs[i] {
			var errC int
			var vC uint64
			fmt.Sscanf(lines[k], "%d %d", &errC, &vC)
			k++
			v, err := c.Call(x[:p.Params])
			wantErr := 0
			var ie *ItemError
			if errors.As(err, &ie) {
				for ci := range p.Checks {
					if &p.Checks[ci] == ie.Check {
						wantErr = ci + 1
					}
				}
				v = 0
			}
			if errC != wantErr || vC != v {
				t.Fatalf("program %d on %#x: C gives (err %d, %#x), executor (err %d, %#x)\n%s\n%s", i, x, errC, vC, wantErr, v, p, ItemFunc(p, C))
			}
		}
	}
}

func cCompiler() string {
	for _, cc := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if cc == "" {
			continue
		}
		if path, err := exec.LookPath(cc); err == nil {
			return path
		}
	}
	return ""
}

func runC(t *testing.T, cc, src string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "f")
	if out, err := exec.Command(cc, "-O1", "-w", "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestSumExact(t *testing.T) {
	b := NewBuilder(1)
	p := Compile(b.Finish(b.Op1(OpNot, b.Param(0), 0))) // ~s: near 2^64
	n := uint64(100000)
	for workers := 1; workers <= 3; workers++ {
		res, err := p.Run(context.Background(), []Space{Range{Step: 1, N: n}}, Sum, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := new(big.Int).Lsh(new(big.Int).SetUint64(res.SumHi), 64)
		got.Add(got, new(big.Int).SetUint64(res.SumLo))
		want := new(big.Int)
		for i := uint64(0); i < n; i++ {
			want.Add(want, new(big.Int).SetUint64(^i))
		}
		if got.Cmp(want) != 0 {
			t.Fatalf("%d workers: sum %s, want %s", workers, got, want)
		}
	}
}

// TestProgress: a run reports its progress, ending at the space's size.
func TestProgress(t *testing.T) {
	b := NewBuilder(1)
	p := Compile(b.Finish(b.Op1(OpPopcount, b.Param(0), 0)))
	var last, calls int64
	var mu sync.Mutex // workers report concurrently
	n := uint64(1 << 20)
	opt := Options{Workers: 2, Progress: func(done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if total != int64(n) {
			t.Errorf("total %d, want %d", total, n)
		}
		calls++
		last = max(last, done)
	}}
	if _, err := p.Run(context.Background(), []Space{Range{Step: 1, N: n}}, Count, opt); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != int64(n) {
		t.Fatalf("%d progress calls, last done %d, want up to %d", calls, last, n)
	}
}

// TestPeephole: the fused passes (popcount(x & K), x ^ x >> K, x ^ x << K)
// give what the plain instructions give.
func TestPeephole(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, k := range []uint64{0, 1, 7, 63, 64, 100} {
		b := NewBuilder(2)
		s, u := b.Param(0), b.Param(1)
		kk := b.Const(k)
		v1 := b.Op2(OpXor, s, b.Op2(OpShr, s, kk, 0), 0)
		v2 := b.Op2(OpXor, b.Op2(OpShl, s, kk, 0), s, 0)
		v3 := b.Op2(OpXor, s, b.Op2(OpShr, u, kk, 0), 0) // not the pattern: another operand
		v4 := b.Op1(OpPopcount, b.Op2(OpAnd, s, b.Const(k*0x9e3779b97f4a7c15), 0), 0)
		p := b.Finish(b.Op2(OpAdd, b.Op2(OpAdd, v1, v2, 0), b.Op2(OpMul, v3, v4, 0), 0))
		c := Compile(p)
		for i := 0; i < 1000; i++ {
			in := []uint64{r.Uint64(), r.Uint64()}
			want, _ := p.Eval(in)
			if got, err := c.Call(in); err != nil || got != want {
				t.Fatalf("k = %d, %#x: %#x, want %#x", k, in, got, want)
			}
		}
	}
}

// TestPeepholeRewrites: which instructions the CPU executor runs for the
// patterns peephole knows, and for near misses; the results agree with Eval.
func TestPeepholeRewrites(t *testing.T) {
	const k = 0x9e3779b97f4a7c15
	xs := func(b *Builder, op Op, x Value, n uint64) Value {
		return b.Op2(OpXor, x, b.Op2(op, x, b.Const(n), 0), 0)
	}
	cases := []struct {
		name string
		f    func(b *Builder, s, u Value) Value
		want string // the executor's instructions, in order
	}{
		{"popcount(s & K)", func(b *Builder, s, u Value) Value {
			return b.Op1(OpPopcount, b.Op2(OpAnd, s, b.Const(k), 0), 0)
		}, "pop_and_k"},
		{"s ^ s >> 7", func(b *Builder, s, u Value) Value { return xs(b, OpShr, s, 7) }, "xor_shr_k"},
		{"(s ^ s >> 7) * K", func(b *Builder, s, u Value) Value {
			return b.Op2(OpMul, xs(b, OpShr, s, 7), b.Const(k), 0)
		}, "xor_shr_mul"},
		{"K * (s ^ s << 0)", func(b *Builder, s, u Value) Value {
			return b.Op2(OpMul, b.Const(k), xs(b, OpShl, s, 0), 0)
		}, "xor_shl_mul"},
		{"(s ^ s >> 63) * u", func(b *Builder, s, u Value) Value {
			return b.Op2(OpMul, xs(b, OpShr, s, 63), u, 0)
		}, "xor_shr_mul"},
		{"splitmix64's steps", func(b *Builder, s, u Value) Value {
			z := b.Op2(OpMul, xs(b, OpShr, s, 30), b.Const(0xbf58476d1ce4e5b9), 0)
			z = b.Op2(OpMul, xs(b, OpShr, z, 27), b.Const(0x94d049bb133111eb), 0)
			return xs(b, OpShr, z, 31)
		}, "xor_shr_mul xor_shr_mul xor_shr_k"},
		{"an xorshift used twice", func(b *Builder, s, u Value) Value {
			x := xs(b, OpShr, s, 7)
			return b.Op2(OpAdd, b.Op2(OpMul, x, b.Const(k), 0), x, 0)
		}, "xor_shr_k mul add"},
		{"(s ^ s >> 64) * K", func(b *Builder, s, u Value) Value {
			return b.Op2(OpMul, xs(b, OpShr, s, 64), b.Const(k), 0)
		}, "shr xor mul"},
		{"(s ^ u >> 7) * K", func(b *Builder, s, u Value) Value {
			return b.Op2(OpMul, b.Op2(OpXor, s, b.Op2(OpShr, u, b.Const(7), 0), 0), b.Const(k), 0)
		}, "shr xor mul"},
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, c := range cases {
		b := NewBuilder(2)
		p := b.Finish(c.f(b, b.Param(0), b.Param(1)))
		comp := Compile(p)
		var ops []string
		for _, x := range comp.pl.code {
			ops = append(ops, x.op.String())
		}
		if got := strings.Join(ops, " "); got != c.want {
			t.Errorf("%s: the executor runs %q, want %q", c.name, got, c.want)
		}
		for i := 0; i < 1000; i++ {
			in := []uint64{randWord(r), randWord(r)}
			want, _ := p.Eval(in)
			if got, err := comp.Call(in); err != nil || got != want {
				t.Fatalf("%s of %#x = %#x, want %#x", c.name, in, got, want)
			}
		}
	}
}
