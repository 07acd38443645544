package native

import (
	"github.com/bitsh/bitsh/builtins/fuse"
)

// The Eval engine runs a Func with fuse.FlowState.Eval, item by item: for
// what the machine-code engines refuse (WebAssembly compiles calls of
// helpers; it refuses frames of helpers too large for its memory), so that
// every function that fuses runs, with the answers and errors every engine
// gives.

func compileEval(f *fuse.Func) *Executable {
	return &Executable{f: f, engine: Eval, rel: &releaser{free: func() {}}}
}

// evalBytes is the memory an Eval worker takes: its buffers, its frame,
// and its scratch arrays at the deepest chain of calls allowed.
func evalBytes(f *fuse.Func) uint64 {
	n := uint64(f.Params+1)*Batch + uint64(f.Vars) + uint64(f.ScratchWords())
	deepest := 0
	for i := range f.Procs {
		deepest = max(deepest, f.Procs[i].FrameWords()+f.Procs[i].Vars)
	}
	if len(f.Procs) > 0 {
		n += uint64(f.MaxCalls()) * uint64(deepest)
	}
	return 8 * n
}

// evalWorker is a Worker on the evaluator: its state.
type evalWorker struct{ st *fuse.FlowState }

func newEvalWorker(p *Executable, poll func() bool) *Worker {
	w := &Worker{p: p, poll: poll, out: make([]uint64, Batch), eng: &evalWorker{st: p.f.NewState(poll)}}
	for i := 0; i < p.f.Params; i++ {
		w.params = append(w.params, make([]uint64, Batch))
	}
	return w
}

func (e *evalWorker) repoll(poll func() bool) { e.st.SetPoll(poll) }

func (e *evalWorker) close(*Worker) {}

func (e *evalWorker) run(w *Worker, n int, first bool) (int, []uint64, error) {
	ps := make([]uint64, w.p.f.Params)
	for i := 0; i < n; i++ {
		for j := range ps {
			ps[j] = w.params[j][i]
		}
		r, err := e.st.Eval(ps)
		if err != nil {
			return i, w.out[:i], err
		}
		w.out[i] = r
		if first && r != 0 {
			return i + 1, w.out[:i+1], nil
		}
	}
	return n, w.out[:n], nil
}
