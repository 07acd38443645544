//go:build linux

package cuda

import (
	"context"
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// Kernel is a fused function compiled for the device (once, for the life
// of the fused value).
type Kernel struct {
	dev  *Device
	prog *fuse.Program
	cpu  *fuse.Compiled // to word the error of a failing item
	fn   uintptr
}

// Compile generates CUDA C for p, compiles it with NVRTC and loads it.
func (dev *Device) Compile(p *fuse.Program) (*Kernel, error) {
	ptx, err := dev.compilePTX(fuse.CUDASource(p))
	if err != nil {
		return nil, err
	}
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	var mod uintptr
	if err := dev.check("cuModuleLoadData", dev.d.cuModuleLoadData(&mod, &ptx[0])); err != nil {
		return nil, err
	}
	k := &Kernel{dev: dev, prog: p, cpu: fuse.Compile(p)}
	if err := dev.check("cuModuleGetFunction", dev.d.cuModuleGetFunction(&k.fn, mod, "fuse_run")); err != nil {
		return nil, err
	}
	return k, nil
}

// buffer is device memory.
type buffer struct {
	dev  *Device
	p    uint64
	size uint64
}

func (dev *Device) alloc(size uint64) (*buffer, error) {
	b := &buffer{dev: dev, size: size}
	if size == 0 {
		return b, nil
	}
	if err := dev.check("cuMemAlloc", dev.d.cuMemAlloc(&b.p, size)); err != nil {
		return nil, err
	}
	return b, nil
}

func (b *buffer) free() {
	if b != nil && b.p != 0 {
		b.dev.d.cuMemFree(b.p)
		b.p = 0
	}
}

func (b *buffer) upload(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.dev.check("cuMemcpyHtoD", b.dev.d.cuMemcpyHtoD(b.p, unsafe.Pointer(&ws[0]), uint64(len(ws))*8))
}

func (b *buffer) download(ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return b.dev.check("cuMemcpyDtoH", b.dev.d.cuMemcpyDtoH(unsafe.Pointer(&ws[0]), b.p, uint64(len(ws))*8))
}

// launch runs fuse_run once with args (eleven words), pinning what the
// driver reads.
func (k *Kernel) launch(grid uint32, args *[11]uint64) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	ptrs := make([]unsafe.Pointer, len(args))
	pin.Pin(&ptrs[0])
	for i := range args {
		pin.Pin(&args[i])
		ptrs[i] = unsafe.Pointer(&args[i])
	}
	d := k.dev.d
	if err := k.dev.check("cuLaunchKernel", d.cuLaunchKernel(k.fn, grid, 1, 1, 256, 1, 1, 0, 0, &ptrs[0], nil)); err != nil {
		return err
	}
	return k.dev.check("cuCtxSynchronize", d.cuCtxSynchronize())
}

// Run computes method over the spaces on the GPU, with the same answers as
// the CPU executor. Ranges are generated on the card; other spaces are
// generated on the host, a slice at a time, and copied. Each launch covers
// a slice that takes at most ~50 ms, between which ctx is polled.
func (k *Kernel) Run(ctx context.Context, spaces []fuse.Space, method fuse.Method, opt fuse.Options) (*fuse.Result, error) {
	dev := k.dev
	dev.mu.Lock()
	defer dev.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dev.current(); err != nil {
		return nil, err
	}
	n := spaces[0].Len()
	r, isRange := spaces[0].(fuse.Range)
	const maxSlice = 1 << 24 // items per copied slice (128 MiB per array)
	needOut := method == fuse.Map || method == fuse.Filter
	var bufs [3]*buffer
	defer func() {
		for _, b := range bufs {
			b.free()
		}
	}()
	copied := !isRange || len(spaces) > 1
	sliceCap := uint64(maxSlice)
	if !copied && !needOut {
		sliceCap = 1 << 40
	}
	for i := range spaces {
		if i == 0 && isRange {
			continue
		}
		b, err := dev.alloc(min(n, maxSlice) * 8)
		if err != nil {
			return nil, err
		}
		bufs[i] = b
	}
	var out *buffer
	if needOut {
		var err error
		if out, err = dev.alloc(min(n, maxSlice) * 8); err != nil {
			return nil, err
		}
		defer out.free()
	}
	acc, err := dev.alloc(fuse.AccWords * 8)
	if err != nil {
		return nil, err
	}
	defer acc.free()
	init := [fuse.AccWords]uint64{fuse.AccFirst: ^uint64(0), fuse.AccErr: ^uint64(0)}
	if method == fuse.Min {
		init[fuse.AccLo] = ^uint64(0)
	}
	if err := acc.upload(init[:]); err != nil {
		return nil, err
	}
	res := &fuse.Result{}
	host := make([]uint64, 0)
	grid := uint32(max(dev.sms, 1) * 16)
	slice := uint64(1 << 22) // the first slice; then sized to ~20 ms
	for base := uint64(0); base < n; {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		m := min(slice, n-base, sliceCap)
		if copied || needOut {
			m = min(m, maxSlice)
		}
		args := [11]uint64{uint64(method), fuse.KindRange, r.Start, r.Step, 0, 0, 0, base, m, 0, acc.p}
		for i, s := range spaces {
			if bufs[i] == nil {
				continue
			}
			if cap(host) < int(m) {
				host = make([]uint64, m)
			}
			host = host[:m]
			s.Fill(base, host)
			if err := bufs[i].upload(host); err != nil {
				return nil, err
			}
			args[4+i] = bufs[i].p
			if i == 0 {
				args[1] = fuse.KindArray
			}
		}
		if out != nil {
			args[9] = out.p
		}
		t0 := time.Now()
		if err := k.launch(grid, &args); err != nil {
			return nil, err
		}
		el := time.Since(t0)
		done, err := absorbLaunch(acc, out, needOut, spaces, method, opt, res, base, m, k.itemError)
		if err != nil {
			return nil, err
		}
		if done {
			return res, nil
		}
		base += m
		if opt.Progress != nil {
			opt.Progress(int64(base), int64(n))
		}
		// Aim at ~20 ms per launch, well inside the 50 ms the cancellation
		// promise allows.
		if el > 0 {
			next := uint64(float64(m) * float64(20*time.Millisecond) / float64(el))
			slice = max(1<<16, min(next, 2*slice))
		}
	}
	if err := finish(acc, method, n, res); err != nil {
		return nil, err
	}
	return res, nil
}

// itemError recomputes the failing item on the CPU to word its error.
func (k *Kernel) itemError(spaces []fuse.Space, pos uint64) error {
	params := make([]uint64, len(spaces))
	one := make([]uint64, 1)
	for i, s := range spaces {
		s.Fill(pos, one)
		params[i] = one[0]
	}
	if _, err := k.cpu.Call(params); err != nil {
		if ie, ok := err.(*fuse.ItemError); ok {
			ie.Index = pos
			return ie
		}
		return err
	}
	return fmt.Errorf("gpu: item %d failed on the GPU but not on the CPU", pos)
}

// absorbLaunch takes what a launch over items [base, base+m) left in acc
// (and in out, when the method needs each result) into res. done is true
// when First found its item; an item that failed is worded by itemError.
func absorbLaunch(acc, out *buffer, needOut bool, spaces []fuse.Space, method fuse.Method, opt fuse.Options,
	res *fuse.Result, base, m uint64, itemError func([]fuse.Space, uint64) error) (done bool, err error) {
	var a [fuse.AccWords]uint64
	if err := acc.download(a[:]); err != nil {
		return false, err
	}
	if a[fuse.AccErr] != ^uint64(0) && (method != fuse.First || a[fuse.AccFirst] > a[fuse.AccErr]) {
		return false, itemError(spaces, a[fuse.AccErr])
	}
	if needOut {
		rs := make([]uint64, m)
		if err := out.download(rs); err != nil {
			return false, err
		}
		if method == fuse.Map {
			copy(opt.Out[base:], rs)
		} else {
			items := make([]uint64, m)
			spaces[0].Fill(base, items)
			for i, v := range rs {
				if v != 0 {
					if uint64(len(res.Items)) >= opt.Limit {
						return false, &fuse.LimitError{Limit: opt.Limit}
					}
					res.Items = append(res.Items, items[i])
				}
			}
		}
	}
	if method == fuse.First && a[fuse.AccFirst] != ^uint64(0) {
		res.Found, res.Index = true, a[fuse.AccFirst]
		return true, nil
	}
	return false, nil
}

// finish reads the accumulator of a run of n items into res.
func finish(acc *buffer, method fuse.Method, n uint64, res *fuse.Result) error {
	var a [fuse.AccWords]uint64
	if err := acc.download(a[:]); err != nil {
		return err
	}
	switch method {
	case fuse.Count:
		res.Count = a[fuse.AccLo]
	case fuse.Sum:
		res.SumLo, res.SumHi = a[fuse.AccLo], a[fuse.AccHi]
	case fuse.Min, fuse.Max:
		res.Value, res.Found = a[fuse.AccLo], n > 0
	}
	return nil
}
