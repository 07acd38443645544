package builtins

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/machine"
)

// device="auto": a run starts on the CPU at once. Once a run is long
// enough to pay for it, the GPU is prepared in the background (the device
// opened, the kernel taken from the kernel cache or compiled, loaded);
// when it is ready, a short probe on the GPU measures its speed for this
// function and this kind of space, and the rest of the run goes to the GPU
// only if it is clearly faster there than the CPU has been: in pieces of
// about 250 ms, each measured, so that a GPU slower on later items than
// on the probe's hands the run back to the CPU. The slices of
// one run on the two devices are combined into the answer a run on either
// would give: `first` and `filter` keep the space's order, an error is the
// first failing item's. The speeds measured stay with the fused value, so
// a later run goes to the faster device from its start. docs/fuse.md
// ("Devices") says why this keeps `auto` within 10% + 20 ms of the CPU.

// autoPolicy holds the thresholds of device="auto".
type autoPolicy struct {
	now        func() time.Time
	firstSlice uint64        // items of a run's first CPU slice, when the CPU's speed is not known yet
	slice      time.Duration // a CPU slice's length while the GPU is pending
	prepCost   time.Duration // what preparing the GPU may cost one core (NVRTC, opening the device)
	worthAt    time.Duration // a run with less CPU time left is not worth preparing or probing the GPU for
	handOverAt time.Duration // the least CPU time left that is handed over to a GPU known to be faster
	probe      time.Duration // the CPU time of the items of a probe on the GPU
	probeLimit time.Duration // a probe that runs longer is abandoned: the GPU loses here
	margin     float64       // the GPU must be this many times faster than the CPU
	gpuPiece   time.Duration // the GPU's time for a piece of a run handed over, after which its speed is measured again; 0: the rest in one piece
}

var defaultAutoPolicy = autoPolicy{
	now:        time.Now,
	firstSlice: 1 << 16,
	slice:      50 * time.Millisecond,
	prepCost:   500 * time.Millisecond,
	worthAt:    250 * time.Millisecond,
	handOverAt: 50 * time.Millisecond,
	probe:      5 * time.Millisecond,
	probeLimit: 20 * time.Millisecond,
	margin:     1.25,
	gpuPiece:   250 * time.Millisecond,
}

// prepareAt is the CPU time left from which a run starts the GPU's
// preparation: preparing takes one core for up to prepCost, which must
// cost the run's workers at most a tenth of what is left.
func (p *autoPolicy) prepareAt(workers int) time.Duration {
	return max(p.worthAt, 10*p.prepCost/time.Duration(max(workers, 1)))
}

// autoGPU is the GPU side of a value fused with device="auto".
type autoGPU struct {
	prepare func() (machine.Engine, error)
	policy  *autoPolicy

	once  sync.Once
	begun atomic.Bool
	ready chan struct{} // closed when prepare returned
	r     machine.Engine
	err   error

	mu      sync.Mutex
	cpuRate float64    // items per second on the CPU, as last measured; 0: not yet
	gpuRate [2]float64 // items per second on the GPU by gpuKind; 0: not yet, < 0: the GPU loses
}

func newAutoGPU(prepare func() (machine.Engine, error), policy *autoPolicy) *autoGPU {
	return &autoGPU{prepare: prepare, policy: policy, ready: make(chan struct{})}
}

// start prepares the GPU in the background (once).
func (a *autoGPU) start() {
	a.once.Do(func() {
		a.begun.Store(true)
		go func() {
			defer close(a.ready)
			a.r, a.err = a.prepare()
		}()
	})
}

// poll returns the prepared runner; ready is false while preparing (or
// before), and r is nil when the GPU is not usable.
func (a *autoGPU) poll() (r machine.Engine, ready bool) {
	select {
	case <-a.ready:
		if a.err != nil {
			return nil, true
		}
		return a.r, true
	default:
		return nil, false
	}
}

// gpuKind: 0 for a range generated on the card with nothing but an
// accumulator to copy back, 1 where items or results cross the bus.
func gpuKind(spaces []fuse.Space, method fuse.Method) int {
	if _, ok := spaces[0].(fuse.Range); ok && len(spaces) == 1 && method != fuse.Map && method != fuse.Filter {
		return 0
	}
	return 1
}

// subSpace is items [base, base+m) of s, of s's own type where the engines
// treat that type specially.
func subSpace(s fuse.Space, base, m uint64) fuse.Space {
	switch s := s.(type) {
	case fuse.Range:
		return fuse.Range{Start: s.Start + base*s.Step, Step: s.Step, N: m}
	case fuse.Array:
		return s[base : base+m]
	case fuse.Subsets:
		seek := s.Seek
		return fuse.Subsets{D: s.D, K: s.K, N: m, Seek: func(i uint64) uint64 { return seek(base + i) }}
	}
	return shiftedSpace{s, base, m}
}

type shiftedSpace struct {
	s       fuse.Space
	base, n uint64
}

func (s shiftedSpace) Len() uint64                     { return s.n }
func (s shiftedSpace) Fill(start uint64, dst []uint64) { s.s.Fill(s.base+start, dst) }

// partial combines the results of consecutive slices of a run.
type partial struct {
	method fuse.Method
	opt    fuse.Options
	n      uint64
	res    fuse.Result
}

// slice runs items [base, base+m) with run and takes its result in; done
// is true when the run's answer is known (First found its item).
func (p *partial) slice(ctx context.Context, run func(context.Context, []fuse.Space, fuse.Method, fuse.Options) (*fuse.Result, error),
	spaces []fuse.Space, base, m uint64) (done bool, err error) {
	sub := make([]fuse.Space, len(spaces))
	for i, s := range spaces {
		sub[i] = subSpace(s, base, m)
	}
	opt := fuse.Options{Workers: p.opt.Workers, Limit: p.opt.Limit - uint64(len(p.res.Items))}
	if p.opt.Out != nil {
		opt.Out = p.opt.Out[base : base+m]
	}
	if pr := p.opt.Progress; pr != nil {
		n := int64(p.n)
		opt.Progress = func(done, _ int64) { pr(int64(base)+done, n) }
	}
	r, err := run(ctx, sub, p.method, opt)
	if err != nil {
		var ie *fuse.ItemError
		var le *fuse.LimitError
		switch {
		case errors.As(err, &ie):
			ie.Index += base
		case errors.As(err, &le):
			return false, &fuse.LimitError{Limit: p.opt.Limit}
		}
		return false, err
	}
	switch p.method {
	case fuse.Count:
		p.res.Count += r.Count
	case fuse.Sum:
		var cy uint64
		p.res.SumLo, cy = addCarry(p.res.SumLo, r.SumLo)
		p.res.SumHi += r.SumHi + cy
	case fuse.Min, fuse.Max:
		if r.Found {
			if !p.res.Found || p.method == fuse.Min && r.Value < p.res.Value || p.method == fuse.Max && r.Value > p.res.Value {
				p.res.Value = r.Value
			}
			p.res.Found = true
		}
	case fuse.First:
		if r.Found {
			p.res.Found, p.res.Index = true, base+r.Index
			return true, nil
		}
	case fuse.Filter:
		p.res.Items = append(p.res.Items, r.Items...)
	}
	return false, nil
}

// seconds is how long m items take at rate items per second.
func seconds(m uint64, rate float64) time.Duration {
	return time.Duration(float64(m) / rate * float64(time.Second))
}

// autoStep is what a run with device="auto" does next.
type autoStep int

const (
	stepCPUSlice autoStep = iota // a slice on the CPU, measuring its speed (the GPU pending)
	stepCPURest                  // the rest on the CPU
	stepGPURest                  // the rest on the GPU
	stepProbe                    // a few milliseconds' items on the GPU, measuring its speed
)

// decide chooses the next step of a run with rest items left: cpuRate and
// gpuRate are the speeds measured (items per second; 0 not yet, gpuRate < 0
// where the GPU lost), ready and usable the state of the GPU's
// preparation, started whether it began. start asks to begin it.
func (p *autoPolicy) decide(rest uint64, workers int, cpuRate, gpuRate float64, ready, usable, started bool) (step autoStep, start bool) {
	switch {
	case ready && !usable, gpuRate < 0:
		return stepCPURest, false
	case cpuRate <= 0:
		return stepCPUSlice, false
	}
	cpuLeft := seconds(rest, cpuRate)
	switch {
	case cpuLeft < p.handOverAt:
		return stepCPURest, false
	case ready && gpuRate > 0:
		if float64(seconds(rest, gpuRate))*p.margin < float64(cpuLeft) {
			return stepGPURest, false
		}
		return stepCPURest, false
	case ready && cpuLeft >= p.worthAt:
		return stepProbe, false
	case ready:
		return stepCPURest, false
	case started && cpuLeft >= p.worthAt:
		return stepCPUSlice, false
	case !started && cpuLeft >= p.prepareAt(workers):
		return stepCPUSlice, true
	}
	return stepCPURest, false
}

// measured keeps the GPU's speed over m items that took el (err: it was
// abandoned): -1, the GPU loses, where it was abandoned or was not faster
// than the CPU by the margin. An item's error says nothing of the speed.
func (a *autoGPU) measured(kind int, m uint64, el time.Duration, err error, cpuRate float64) {
	rate := -1.0
	if err == nil && el > 0 && float64(m)/el.Seconds() > cpuRate*a.policy.margin {
		rate = float64(m) / el.Seconds()
	}
	a.mu.Lock()
	a.gpuRate[kind] = rate
	a.mu.Unlock()
}

// measuredSlice runs items [base, base+m) on the GPU g, abandoning them
// (for the CPU to redo) when they take longer than limit, and records how
// fast the GPU went where it finished or was abandoned.
func (a *autoGPU) measuredSlice(ctx context.Context, part *partial, g machine.Engine, kind int, spaces []fuse.Space, base, m uint64,
	limit time.Duration, cpuRate float64) (done, abandoned bool, err error) {
	pctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(limit, cancel)
	t0 := a.policy.now()
	done, err = part.slice(pctx, g.Run, spaces, base, m)
	el := a.policy.now().Sub(t0)
	timer.Stop()
	cancel()
	abandoned = err != nil && ctx.Err() == nil && pctx.Err() != nil
	if err == nil || abandoned {
		a.measured(kind, m, el, err, cpuRate)
	}
	return done, abandoned, err
}

// run computes method over the spaces with cpu, and with the GPU where the
// policy finds it pays (see above).
func (a *autoGPU) run(ctx context.Context, cpu machine.CPUEngine, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	n := spaces[0].Len()
	if g, ready := a.poll(); n < gpuMinItems || ready && g == nil {
		return cpu.Run(ctx, spaces, method, opt)
	}
	p := a.policy
	kind := gpuKind(spaces, method)
	part := &partial{method: method, opt: opt, n: n}
	for base := uint64(0); base < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rest := n - base
		a.mu.Lock()
		cpuRate, gpuRate := a.cpuRate, a.gpuRate[kind]
		a.mu.Unlock()
		g, ready := a.poll()
		step, start := p.decide(rest, opt.Workers, cpuRate, gpuRate, ready, g != nil, a.begun.Load())
		if start {
			a.start()
		}
		switch step {
		case stepCPURest:
			if _, err := part.slice(ctx, cpu.Run, spaces, base, rest); err != nil {
				return nil, err
			}
			return &part.res, nil
		case stepGPURest, stepProbe:
			if step == stepGPURest && p.gpuPiece <= 0 {
				if _, err := part.slice(ctx, g.Run, spaces, base, rest); err != nil {
					return nil, err
				}
				return &part.res, nil
			}
			// The probe; or a piece of gpuPiece on the GPU, measured: the
			// rest goes on there only while the GPU stays faster, as items
			// late in a space may cost the card more than the probe's did.
			// A piece that takes longer than the CPU would have is
			// abandoned and its items are redone on the CPU.
			m := min(rest, max(uint64(cpuRate*p.probe.Seconds()), 1))
			limit := p.probeLimit
			if step == stepGPURest {
				m = min(rest, max(uint64(gpuRate*p.gpuPiece.Seconds()), 1))
				limit += seconds(m, cpuRate)
			}
			done, abandoned, err := a.measuredSlice(ctx, part, g, kind, spaces, base, m, limit, cpuRate)
			switch {
			case abandoned:
				continue // the CPU redoes these items
			case err != nil:
				return nil, err
			case done:
				return &part.res, nil
			}
			base += m
		case stepCPUSlice:
			m := p.firstSlice
			if cpuRate > 0 {
				m = max(uint64(cpuRate*p.slice.Seconds()), 1)
			}
			m = min(m, rest)
			t0 := p.now()
			done, err := part.slice(ctx, cpu.Run, spaces, base, m)
			el := p.now().Sub(t0)
			if err != nil {
				return nil, err
			}
			if done {
				return &part.res, nil
			}
			if el > 0 {
				a.mu.Lock()
				a.cpuRate = float64(m) / el.Seconds()
				a.mu.Unlock()
			}
			base += m
		}
	}
	return &part.res, nil
}
