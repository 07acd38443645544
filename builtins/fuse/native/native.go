// Package native runs a fused function with control flow (a fuse.Func) as
// machine code, with no C compiler or cgo: it emits a WebAssembly module and
// has github.com/tetratelabs/wazero compile it for the CPU (its optimizing
// compiler on amd64 and arm64; its interpreter elsewhere). Loops count
// their iterations and call back into Go every fuse.PollEvery of them, so
// that a run can be cancelled and the Go runtime (its collector above all)
// never waits long on a worker.
package native

import (
	"context"
	"crypto/sha256"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// Block is the number of items a Worker's Run takes at most: enough to
// make the cost of a call into the compiled code negligible.
const Block = 4096

// Program is a Func compiled to machine code, ready to run on workers.
type Program struct {
	f   *fuse.Func
	l   *layout
	rt  wazero.Runtime
	cm  wazero.CompiledModule
	rel *releaser
}

// releaser gives a program's hold on its compiled module back once, by
// Close or when the program is collected.
type releaser struct {
	once sync.Once
	cm   wazero.CompiledModule
}

func (r *releaser) release() { r.once.Do(func() { release(r.cm) }) }

type pollKey struct{}

// Compile compiles f. The program holds compiled code outside the Go heap
// until Close (or until the garbage collector finds it unreachable).
func Compile(f *fuse.Func) (*Program, error) {
	bin, l, err := Module(f)
	if err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	ctx := context.Background()
	rt, err := sharedRuntime()
	if err != nil {
		return nil, err
	}
	cm, err := acquire(ctx, rt, bin)
	if err != nil {
		return nil, err
	}
	p := &Program{f: f, l: l, rt: rt, cm: cm, rel: &releaser{cm: cm}}
	runtime.AddCleanup(p, (*releaser).release, p.rel)
	return p, nil
}

// wazero keeps one compiled module per distinct binary, and closing it
// closes it for every holder: two fused values of the same function share
// one, counted here, and the last to go closes it.
var (
	modulesMu sync.Mutex
	modules   = map[[32]byte]*sharedModule{}
)

type sharedModule struct {
	key  [32]byte
	cm   wazero.CompiledModule
	refs int
}

func acquire(ctx context.Context, rt wazero.Runtime, bin []byte) (wazero.CompiledModule, error) {
	key := sha256.Sum256(bin)
	modulesMu.Lock()
	defer modulesMu.Unlock()
	if m := modules[key]; m != nil {
		m.refs++
		return m.cm, nil
	}
	cm, err := rt.CompileModule(ctx, bin)
	if err != nil {
		return nil, fmt.Errorf("native: compiling the module: %w", err)
	}
	modules[key] = &sharedModule{key: key, cm: cm, refs: 1}
	return cm, nil
}

func release(cm wazero.CompiledModule) {
	modulesMu.Lock()
	defer modulesMu.Unlock()
	for k, m := range modules {
		if m.cm == cm {
			if m.refs--; m.refs == 0 {
				delete(modules, k)
				cm.Close(context.Background())
			}
			return
		}
	}
}

// The runtime that compiles and runs every program of the process: it is
// safe for concurrent use, holds no state of a program once the program's
// compiled module is closed, and costs a few milliseconds to make.
var (
	rtOnce sync.Once
	rt     wazero.Runtime
	rtErr  error
)

func sharedRuntime() (wazero.Runtime, error) {
	rtOnce.Do(func() {
		ctx := context.Background()
		r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig())
		_, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, stack []uint64) {
				stack[0] = 0
				if poll, _ := ctx.Value(pollKey{}).(func() bool); poll != nil && poll() {
					stack[0] = 1
				}
			}), nil, []api.ValueType{api.ValueTypeI32}).Export("poll").Instantiate(ctx)
		if err != nil {
			r.Close(ctx)
			rtErr = fmt.Errorf("native: %w", err)
			return
		}
		rt = r
	})
	return rt, rtErr
}

// Close releases the compiled code; the program's workers must be done.
func (p *Program) Close() {
	p.rel.release()
}

// MemoryBytes returns the bytes of memory one worker takes: its tables,
// scratch arrays and buffers.
func (p *Program) MemoryBytes() uint64 { return (uint64(p.l.size) + 65535) / 65536 * 65536 }

// A Worker runs a Program on blocks of items; one goroutine at a time.
type Worker struct {
	p      *Program
	mod    api.Module
	run    api.Function
	mem    []byte
	params [][]uint64
	out    []uint64
	stack  []uint64
	ctx    context.Context
}

func words(b []byte) []uint64 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(&b[0])), len(b)/8)
}

// NewWorker instantiates the program with its tables. poll, called every
// fuse.PollEvery loop iterations, returns true to stop the run.
func (p *Program) NewWorker(poll func() bool) (*Worker, error) {
	ctx := context.WithValue(context.Background(), pollKey{}, poll)
	mod, err := p.rt.InstantiateModule(ctx, p.cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	mem, ok := mod.Memory().Read(0, mod.Memory().Size())
	if !ok {
		mod.Close(ctx)
		return nil, fmt.Errorf("native: no memory")
	}
	w := &Worker{p: p, mod: mod, run: mod.ExportedFunction("run"), mem: mem, stack: make([]uint64, 2), ctx: ctx}
	for i := 0; i < p.f.Params; i++ {
		at := p.l.params + uint32(i)*Block*8
		w.params = append(w.params, words(mem[at:at+Block*8]))
	}
	w.out = words(mem[p.l.out : p.l.out+Block*8])
	for i, t := range p.f.Tables {
		at := p.l.tables[i]
		if t.Flat {
			copy(words(mem[at:at+8*uint32(len(t.Rows[0]))]), t.Rows[0])
			continue
		}
		hdr := unsafe.Slice((*uint32)(unsafe.Pointer(&mem[at])), 2*len(t.Rows))
		for j, r := range t.Rows {
			ra := p.l.rows[i][j]
			hdr[2*j], hdr[2*j+1] = ra, uint32(len(r))
			copy(words(mem[ra:ra+8*uint32(len(r))]), r)
		}
	}
	return w, nil
}

// Params returns the block of parameter i to fill before Run.
func (w *Worker) Params(i int) []uint64 { return w.params[i] }

// Run computes items 0 .. n-1 of the parameter blocks (n <= Block).
// With first, it stops after the first item whose result is non-zero. It
// returns how many items it computed and their results; err is a
// *fuse.FlowError (the failing item is item done) or fuse.ErrStopped.
func (w *Worker) Run(n int, first bool) (done int, res []uint64, err error) {
	w.stack[0] = uint64(n)
	w.stack[1] = 0
	if first {
		w.stack[1] = 1
	}
	if err := w.run.CallWithStack(w.ctx, w.stack); err != nil {
		return 0, nil, fmt.Errorf("native: %w", err)
	}
	done = int(uint32(w.stack[0]))
	switch status := *(*uint32)(unsafe.Pointer(&w.mem[0])); status {
	case statusOK:
		return done, w.out[:done], nil
	case statusFailed:
		check := *(*uint32)(unsafe.Pointer(&w.mem[4]))
		value := *(*uint64)(unsafe.Pointer(&w.mem[8]))
		return done, w.out[:done], &fuse.FlowError{Check: int(check), Value: value}
	case statusStopped:
		return done, w.out[:done], fuse.ErrStopped
	default:
		return 0, nil, fmt.Errorf("native: status %d", status)
	}
}

// Close releases the worker's memory.
func (w *Worker) Close() { w.mod.Close(context.Background()) }
