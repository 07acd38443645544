package builtins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/machine"
	"go.starlark.net/starlark"
)

// vclock is a virtual clock: the fake devices advance it by what their
// items would take, so the policy's decisions do not depend on the
// machine's load.
type vclock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *vclock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *vclock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeDevice runs slices with a real CPU runner (so the answers are real),
// records them, and advances the clock by perItem for each item. Before
// its call number waitAt it waits for the GPU's preparation (so that the
// hand-over happens at a known slice); block makes it wait for the
// context's end instead (a GPU that never finishes).
type fakeDevice struct {
	name    string
	inner   machine.CPUEngine
	clock   *vclock
	perItem time.Duration
	waitAt  int
	auto    *autoGPU
	block   bool
	later   time.Duration // from the second call on, each item takes this long (0: perItem)

	mu     sync.Mutex
	slices []string // "base+len" of each slice, base being the first item
}

func (d *fakeDevice) Name() string { return d.name }

func (d *fakeDevice) Call(ctx context.Context, ws []uint64) (uint64, error) {
	return d.inner.Call(ctx, ws)
}

func (d *fakeDevice) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	d.mu.Lock()
	calls := len(d.slices)
	first := make([]uint64, 1)
	if spaces[0].Len() > 0 {
		spaces[0].Fill(0, first)
	}
	d.slices = append(d.slices, fmt.Sprintf("%#x+%d", first[0], spaces[0].Len()))
	d.mu.Unlock()
	if d.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if d.auto != nil && calls+1 == d.waitAt {
		<-d.auto.ready
	}
	per := d.perItem
	if calls > 0 && d.later > 0 {
		per = d.later
	}
	d.clock.advance(time.Duration(spaces[0].Len()) * per)
	return d.inner.Run(ctx, spaces, method, opt)
}

func (d *fakeDevice) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.slices)
}

// testPolicy: the CPU takes 10 ns an item on the virtual clock; slices of
// 100 µs; anything over 100 µs is worth the GPU.
func testPolicy(c *vclock) *autoPolicy {
	return &autoPolicy{
		now:        c.now,
		firstSlice: 4096,
		slice:      100 * time.Microsecond,
		prepCost:   0,
		worthAt:    100 * time.Microsecond,
		handOverAt: 10 * time.Microsecond,
		probe:      20 * time.Microsecond,
		probeLimit: time.Minute,
		margin:     1.25,
	}
}

// autoCase is a fused function, a CPU for it, the spaces to run it over.
type autoCase struct {
	cpu    machine.CPUEngine
	spaces map[string]fuse.Space
}

func newAutoCase(t *testing.T, def string) autoCase {
	t.Helper()
	g, err := runStar(t, def+`
f = fuse(f, device = "cpu")
r = range(3, 3 + 5 * (1 << 17), 5)
a = words(range(1 << 17)) * 0x9e3779b97f4a7c15
s = subsets(0x3ffff)
k = subsets(0xfffff, 10)
`, 2)
	if err != nil {
		t.Fatal(err)
	}
	c := autoCase{cpu: g["f"].(*fusedValue).cpu, spaces: map[string]fuse.Space{}}
	for _, name := range []string{"r", "a", "s", "k"} {
		sp, err := spaceOf("test", g[name])
		if err != nil || sp == nil {
			t.Fatalf("space %s: %v", name, err)
		}
		c.spaces[name] = sp
	}
	return c
}

func resultString(res *fuse.Result, err error, out []uint64) string {
	if err != nil {
		var ie *fuse.ItemError
		if errors.As(err, &ie) {
			return fmt.Sprintf("item error at %d, params %x", ie.Index, ie.Params)
		}
		return "error " + err.Error()
	}
	sum := uint64(0)
	for i, v := range out {
		sum += v * uint64(i+1)
	}
	return fmt.Sprint(res.Count, res.SumHi, res.SumLo, res.Value, res.Found, res.Index, len(res.Items), res.Items[:min(len(res.Items), 5)], len(out), sum)
}

// TestAutoHandOver: a run starts on the CPU, prepares the GPU after its
// first slice, probes it when ready and hands it the rest; every method
// over every kind of space gives the answer of one CPU run: first and
// filter keep the order, errors the first failing item, map every result
// in its place.
func TestAutoHandOver(t *testing.T) {
	defs := map[string]string{
		"plain": "def f(s):\n    return popcount(s & 0x2a5a5a) == 3\n",
		// Fail on the items from 0xB000 to 0xBfff, 0xB = 0x1, 0x12 and
		// 0x30: in range(3, ..., 5) in the first CPU slice, the probe, and
		// the GPU's rest; in subsets(0x3ffff) in the second CPU slice and
		// the GPU's rest.
		"fails early":    "def f(s):\n    return 1000 // ((s >> 12) - 0x1) & 1\n",
		"fails in probe": "def f(s):\n    return 1000 // ((s >> 12) - 0x12) & 1\n",
		"fails late":     "def f(s):\n    return 1000 // ((s >> 12) - 0x30) & 1\n",
		// Hits there first.
		"hits in probe": "def f(s):\n    return s >> 12 == 0x12\n",
		"hits late":     "def f(s):\n    return s >> 12 == 0x30 and s & 7 == 6\n",
		"loop":          "def f(s):\n    n = 0\n    while s:\n        s &= s - 1\n        n += 1\n    return n == 5\n",
	}
	methods := []fuse.Method{fuse.Map, fuse.Count, fuse.Sum, fuse.Min, fuse.Max, fuse.First, fuse.Filter}
	for dname, def := range defs {
		c := newAutoCase(t, def)
		for sname, space := range c.spaces {
			for _, m := range methods {
				for _, limit := range []uint64{1 << 27, 300} {
					if limit != 1<<27 && m != fuse.Filter {
						continue
					}
					name := fmt.Sprintf("%s/%s/%d/%d", dname, sname, m, limit)
					n := space.Len()
					want := fuse.Options{Workers: 2, Limit: limit}
					if m == fuse.Map {
						want.Out = make([]uint64, n)
					}
					wres, werr := c.cpu.Run(context.Background(), []fuse.Space{space}, m, want)
					w := resultString(wres, werr, want.Out)

					clock := &vclock{}
					cpu := &fakeDevice{name: "cpu", inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
					gpu := &fakeDevice{name: "gpu", inner: c.cpu, clock: clock, perItem: time.Nanosecond}
					var prepared atomic.Int64
					a := newAutoGPU(func() (machine.Engine, error) { prepared.Add(1); return gpu, nil }, testPolicy(clock))
					cpu.auto = a
					var progress []int64
					var pmu sync.Mutex // workers report concurrently
					opt := fuse.Options{Workers: 2, Limit: limit, Progress: func(done, total int64) {
						pmu.Lock()
						defer pmu.Unlock()
						if total != int64(n) {
							t.Errorf("%s: progress total %d, want %d", name, total, n)
						}
						progress = append(progress, done)
					}}
					if m == fuse.Map {
						opt.Out = make([]uint64, n)
					}
					res, err := a.run(context.Background(), cpu, []fuse.Space{space}, m, opt)
					if got := resultString(res, err, opt.Out); got != w {
						t.Errorf("%s: auto %s, CPU %s (CPU slices %v, GPU slices %v)", name, got, w, cpu.slices, gpu.slices)
					}
					// Workers report concurrently, so only the bounds hold.
					for _, p := range progress {
						if p < 0 || p > int64(n) {
							t.Errorf("%s: progress %v goes past the end", name, progress)
							break
						}
					}
					if p := prepared.Load(); p > 1 || p == 0 && cpu.count() > 1 {
						t.Errorf("%s: prepared %d times, with %d CPU slices", name, p, cpu.count())
					}
					// The plain function runs to the end: two CPU slices,
					// the probe and the rest on the GPU.
					if dname == "plain" && m != fuse.First && (m != fuse.Filter || limit > n) && (cpu.count() != 2 || gpu.count() != 2) {
						t.Errorf("%s: CPU slices %v, GPU slices %v; want 2 and 2", name, cpu.slices, gpu.slices)
					}
				}
			}
		}
	}
}

// TestAutoGPULoses: a GPU slower than the margin is measured once by its
// probe; the rest of that run and later runs stay on the CPU, a later run
// in one piece.
func TestAutoGPULoses(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	clock := &vclock{}
	cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
	gpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 11 * time.Nanosecond}
	a := newAutoGPU(func() (machine.Engine, error) { return gpu, nil }, testPolicy(clock))
	cpu.auto = a
	space := []fuse.Space{c.spaces["a"]}
	want, _ := c.cpu.Run(context.Background(), space, fuse.Sum, fuse.Options{Workers: 2})
	for run := 0; run < 2; run++ {
		res, err := a.run(context.Background(), cpu, space, fuse.Sum, fuse.Options{Workers: 2})
		if err != nil || res.SumLo != want.SumLo || res.SumHi != want.SumHi {
			t.Fatalf("run %d: sum %v, %v; want %v", run, res, err, want)
		}
	}
	if gpu.count() != 1 {
		t.Errorf("GPU slices %v, want the probe only", gpu.slices)
	}
	if cpu.count() != 4 {
		t.Errorf("CPU slices %v, want two, the rest, and a later run in one", cpu.slices)
	}
}

// TestAutoNoGPU: where the GPU cannot be prepared, the run goes on on the
// CPU, and later runs run in one piece.
func TestAutoNoGPU(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	clock := &vclock{}
	cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
	prepared := 0
	a := newAutoGPU(func() (machine.Engine, error) { prepared++; return nil, errors.New("no GPU: libcuda.so.1 not found") }, testPolicy(clock))
	cpu.auto = a
	space := []fuse.Space{c.spaces["r"]}
	want, _ := c.cpu.Run(context.Background(), space, fuse.Count, fuse.Options{Workers: 2})
	for run := 0; run < 2; run++ {
		res, err := a.run(context.Background(), cpu, space, fuse.Count, fuse.Options{Workers: 2})
		if err != nil || res.Count != want.Count {
			t.Fatalf("run %d: count %v, %v; want %d", run, res, err, want.Count)
		}
	}
	if prepared != 1 || cpu.count() != 4 {
		t.Errorf("prepared %d times, CPU slices %v; want once, and 2 + rest + 1 whole", prepared, cpu.slices)
	}
}

// TestAutoShortRuns: runs too short to pay for the GPU never prepare it
// and run in one piece (a space under gpuMinItems without even a slice).
func TestAutoShortRuns(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	clock := &vclock{}
	cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond}
	prepared := 0
	p := testPolicy(clock)
	p.worthAt = time.Second // 2^17 items take 1.3 ms
	a := newAutoGPU(func() (machine.Engine, error) { prepared++; return nil, errors.New("unused") }, p)
	for _, sp := range []fuse.Space{fuse.Range{Step: 1, N: 1000}, c.spaces["r"], c.spaces["r"]} {
		if _, err := a.run(context.Background(), cpu, []fuse.Space{sp}, fuse.Count, fuse.Options{Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if prepared != 0 || a.begun.Load() {
		t.Errorf("the GPU was prepared for short runs")
	}
	// One call for the small space; a first slice and the rest for the
	// first long run (the CPU's speed unknown); one for the second.
	if cpu.count() != 4 {
		t.Errorf("CPU slices %v, want 4", cpu.slices)
	}
}

// TestAutoProbeAbandoned: a probe that outruns probeLimit is abandoned;
// its items are redone on the CPU and the GPU is not used again.
func TestAutoProbeAbandoned(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	clock := &vclock{}
	cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
	gpu := &fakeDevice{inner: c.cpu, clock: clock, block: true}
	p := testPolicy(clock)
	p.probeLimit = 5 * time.Millisecond
	a := newAutoGPU(func() (machine.Engine, error) { return gpu, nil }, p)
	cpu.auto = a
	space := []fuse.Space{c.spaces["s"]}
	opt := fuse.Options{Workers: 2, Out: make([]uint64, space[0].Len())}
	want := fuse.Options{Workers: 2, Out: make([]uint64, space[0].Len())}
	c.cpu.Run(context.Background(), space, fuse.Map, want)
	res, err := a.run(context.Background(), cpu, space, fuse.Map, opt)
	if got, w := resultString(res, err, opt.Out), resultString(&fuse.Result{}, nil, want.Out); got != w {
		t.Fatalf("auto %s, CPU %s", got, w)
	}
	if gpu.count() != 1 || cpu.count() != 3 {
		t.Errorf("GPU slices %v, CPU slices %v; want the probe, and 2 + the rest", gpu.slices, cpu.slices)
	}
}

// TestAutoCancel: a cancelled run stops with the context's error.
func TestAutoCancel(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	clock := &vclock{}
	cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond}
	never := make(chan struct{})
	defer close(never)
	a := newAutoGPU(func() (machine.Engine, error) { <-never; return nil, errors.New("ended") }, testPolicy(clock)) // not ready during the test
	ctx, cancel := context.WithCancel(context.Background())
	cpu.inner = cancelAfter{c.cpu, cancel}
	_, err := a.run(ctx, cpu, []fuse.Space{c.spaces["r"]}, fuse.Count, fuse.Options{Workers: 2})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want cancelled", err)
	}
}

type cancelAfter struct {
	machine.CPUEngine
	cancel func()
}

func (c cancelAfter) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	res, err := c.CPUEngine.Run(ctx, spaces, method, opt)
	c.cancel()
	return res, err
}

// TestAutoDecide: the policy's choices, step by step.
func TestAutoDecide(t *testing.T) {
	p := defaultAutoPolicy
	const cpu = 1e9 // items per second
	sec := uint64(cpu)
	cases := []struct {
		name                   string
		rest                   uint64
		workers                int
		cpuRate, gpuRate       float64
		ready, usable, started bool
		want                   autoStep
		start                  bool
	}{
		{"the CPU's speed unknown", sec, 16, 0, 0, false, false, false, stepCPUSlice, false},
		{"no GPU", 100 * sec, 16, cpu, 0, true, false, true, stepCPURest, false},
		{"the GPU lost", 100 * sec, 16, cpu, -1, true, true, true, stepCPURest, false},
		{"little left", sec / 100, 16, cpu, 100 * cpu, true, true, true, stepCPURest, false},
		{"not worth preparing, 16 workers", sec / 5, 16, cpu, 0, false, false, false, stepCPURest, false},
		{"worth preparing, 16 workers", sec / 2, 16, cpu, 0, false, false, false, stepCPUSlice, true},
		{"not worth preparing, 2 workers", sec, 2, cpu, 0, false, false, false, stepCPURest, false},
		{"worth preparing, 2 workers", 3 * sec, 2, cpu, 0, false, false, false, stepCPUSlice, true},
		{"preparing", sec, 16, cpu, 0, false, false, true, stepCPUSlice, false},
		{"preparing, little left", sec / 10, 16, cpu, 0, false, false, true, stepCPURest, false},
		{"ready, worth a probe", sec, 16, cpu, 0, true, true, true, stepProbe, false},
		{"ready, not worth a probe", sec / 10, 16, cpu, 0, true, true, true, stepCPURest, false},
		{"the GPU faster", sec / 10, 16, cpu, 2 * cpu, true, true, true, stepGPURest, false},
		{"the GPU not faster by the margin", sec, 16, cpu, 1.2 * cpu, true, true, true, stepCPURest, false},
	}
	for _, c := range cases {
		step, start := p.decide(c.rest, c.workers, c.cpuRate, c.gpuRate, c.ready, c.usable, c.started)
		if step != c.want || start != c.start {
			t.Errorf("%s: step %d, start %v; want %d, %v", c.name, step, start, c.want, c.start)
		}
	}
}

// TestAutoUntouched: fuse's default device touches nothing of CUDA until
// a run is long enough, and says "auto".
func TestAutoUntouched(t *testing.T) {
	g, err := runStar(t, "f = fuse(lambda s: s & 1)\nn = f.count(range(1 << 16))\n", 2)
	if err != nil {
		t.Fatal(err)
	}
	f := g["f"].(*fusedValue)
	if f.auto == nil || f.auto.begun.Load() || f.String() != "<fused lambda(s) on auto>" {
		t.Fatalf("%s: the GPU's preparation began for a short run", f)
	}
	if g["n"].String() != "32768" {
		t.Fatalf("count = %s", g["n"])
	}
}

// TestAutoThroughStarlark: a value fused with device="auto" whose GPU
// takes over part way words an item's error with its position in the
// whole space, and its answers are the CPU's.
func TestAutoThroughStarlark(t *testing.T) {
	g, err := runStar(t, `
def f(s):
    return 1000 // ((s >> 12) - 0x30)
f = fuse(f)
r = range(3, 3 + 5 * (1 << 17), 5)
r2 = range(0x31000, 0x31000 + (1 << 18))
`, 2)
	if err != nil {
		t.Fatal(err)
	}
	f := g["f"].(*fusedValue)
	if f.auto == nil {
		t.Fatal("fuse's default device is not auto")
	}
	clock := &vclock{}
	cpu := &fakeDevice{inner: f.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
	gpu := &fakeDevice{inner: f.cpu, clock: clock, perItem: time.Nanosecond}
	auto := *f
	auto.cpu, auto.auto = cpu, newAutoGPU(func() (machine.Engine, error) { return gpu, nil }, testPolicy(clock))
	cpu.auto = auto.auto
	thread := &starlark.Thread{Name: "auto"}
	SetEnv(thread, Env{Workers: 2})
	call := func(f *fusedValue, method string, space starlark.Value) (starlark.Value, error) {
		m, _ := f.Attr(method)
		return starlark.Call(thread, m, starlark.Tuple{space}, nil)
	}
	want := (0x30000 - 3 + 4) / 5 // the position of the first failing item
	if _, err := call(&auto, "sum", g["r"]); err == nil ||
		!strings.Contains(err.Error(), fmt.Sprintf("(position %d in the space)", want)) {
		t.Fatalf("err = %v, want the item at position %d", err, want)
	}
	if gpu.count() != 2 {
		t.Fatalf("GPU slices %v: the failing item was not on the GPU", gpu.slices)
	}
	for _, m := range []string{"count", "sum", "min", "max", "first"} {
		got, err := call(&auto, m, g["r2"])
		exp, err2 := call(f, m, g["r2"])
		if err != nil || err2 != nil || got.String() != exp.String() {
			t.Errorf("%s: auto %v (%v), CPU %v (%v)", m, got, err, exp, err2)
		}
	}
}

// TestAutoRecursion: a function whose helpers recurse goes to the GPU
// under device="auto" by the measures of any other: its preparation
// reaches the driver (no refusal before it: on a machine without a GPU,
// the driver's absence is the reason), a GPU slower than the CPU on it (as
// hand-written recursive CUDA was on a De Bruijn count, 1.9 s on an H200
// against 1.44 s on its 16 cores) runs the probe only and the runs stay
// on the CPU, and one faster takes the rest; the answers are the CPU's.
func TestAutoRecursion(t *testing.T) {
	src := "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\ndef f(s):\n    return fib(s % 12) + (s & 1)\n"
	g, err := runStar(t, src+"a = fuse(f, device = \"auto\")\n", 2)
	if err != nil {
		t.Fatal(err)
	}
	fa := g["a"].(*fusedValue)
	if fa.auto == nil || fa.code.Func == nil || len(fa.code.Func.Procs) == 0 {
		t.Fatalf("%s: not a recursive function fused with device=\"auto\"", fa)
	}
	if _, err := fa.prepareGPU(); err != nil && !strings.HasPrefix(err.Error(), "no GPU") {
		t.Fatalf("preparing the GPU for recursion: %v; want it prepared, or no GPU", err)
	}
	c := newAutoCase(t, src)
	for _, tc := range []struct {
		gpuPerItem time.Duration
		wins       bool
	}{{13 * time.Nanosecond, false}, {2 * time.Nanosecond, true}} {
		for _, m := range []fuse.Method{fuse.Sum, fuse.Map, fuse.First} {
			space := []fuse.Space{c.spaces["r"]}
			n := space[0].Len()
			wopt, opt := fuse.Options{Workers: 2, Limit: n}, fuse.Options{Workers: 2, Limit: n}
			if m == fuse.Map {
				wopt.Out, opt.Out = make([]uint64, n), make([]uint64, n)
			}
			wres, werr := c.cpu.Run(context.Background(), space, m, wopt)
			clock := &vclock{}
			cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
			gpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: tc.gpuPerItem}
			a := newAutoGPU(func() (machine.Engine, error) { return gpu, nil }, testPolicy(clock))
			cpu.auto = a
			res, err := a.run(context.Background(), cpu, space, m, opt)
			if got, want := resultString(res, err, opt.Out), resultString(wres, werr, wopt.Out); got != want {
				t.Errorf("GPU wins %v, method %d: auto %s, CPU %s", tc.wins, m, got, want)
			}
			if m == fuse.First {
				continue // found in the first slice, on the CPU
			}
			switch {
			case !tc.wins && gpu.count() != 1:
				t.Errorf("a GPU that loses, method %d: GPU slices %v, want the probe only", m, gpu.slices)
			case tc.wins && gpu.count() < 2:
				t.Errorf("a GPU that wins, method %d: GPU slices %v, want the probe and the rest", m, gpu.slices)
			}
		}
	}
}

// TestAutoGPUSlowsDown: the rest of a run handed to the GPU goes in
// pieces, each measured: a GPU that won the probe but loses on the items
// after it hands the run back to the CPU after one piece, and the answers
// stay the CPU's; one that stays faster takes the rest in pieces.
func TestAutoGPUSlowsDown(t *testing.T) {
	c := newAutoCase(t, "def f(s):\n    return s & 3\n")
	for _, later := range []time.Duration{20 * time.Nanosecond, 0} {
		for _, m := range []fuse.Method{fuse.Map, fuse.Sum, fuse.Filter} {
			space := []fuse.Space{c.spaces["a"]}
			n := space[0].Len()
			wopt, opt := fuse.Options{Workers: 2, Limit: n}, fuse.Options{Workers: 2, Limit: n}
			if m == fuse.Map {
				wopt.Out, opt.Out = make([]uint64, n), make([]uint64, n)
			}
			wres, werr := c.cpu.Run(context.Background(), space, m, wopt)
			clock := &vclock{}
			cpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: 10 * time.Nanosecond, waitAt: 2}
			gpu := &fakeDevice{inner: c.cpu, clock: clock, perItem: time.Nanosecond, later: later}
			policy := testPolicy(clock)
			policy.gpuPiece = 20 * time.Microsecond // 20000 items at the probe's speed
			a := newAutoGPU(func() (machine.Engine, error) { return gpu, nil }, policy)
			cpu.auto = a
			res, err := a.run(context.Background(), cpu, space, m, opt)
			if g, w := resultString(res, err, opt.Out), resultString(wres, werr, wopt.Out); g != w {
				t.Errorf("later %v, method %d: auto %s, CPU %s (CPU slices %v, GPU slices %v)", later, m, g, w, cpu.slices, gpu.slices)
			}
			if later > 0 && (gpu.count() != 2 || cpu.count() != 3) {
				t.Errorf("a GPU slowing down, method %d: CPU slices %v, GPU slices %v; want the probe and one piece on the GPU, the rest on the CPU", m, cpu.slices, gpu.slices)
			}
			if later == 0 && (gpu.count() < 3 || cpu.count() != 2) {
				t.Errorf("a GPU staying fast, method %d: CPU slices %v, GPU slices %v; want the rest on the GPU in pieces", m, cpu.slices, gpu.slices)
			}
		}
	}
}
