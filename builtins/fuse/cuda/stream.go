//go:build linux

package cuda

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The CUDA driver's devOps and streams. The caller holds dev.mu and has
// made the context current on its locked thread. Every call's status is
// checked and turned into an error naming the call (Device.check).

func (dev *Device) alloc(size uint64) (uint64, error) {
	var p uint64
	if err := dev.check("cuMemAlloc", dev.d.cuMemAlloc(&p, size)); err != nil {
		return 0, err
	}
	return p, nil
}

func (dev *Device) free(p uint64) { dev.d.cuMemFree(p) }

func (dev *Device) upload(p uint64, ws []uint64) error {
	return dev.check("cuMemcpyHtoD", dev.d.cuMemcpyHtoD(p, unsafe.Pointer(&ws[0]), uint64(len(ws))*8))
}

func (dev *Device) download(p uint64, ws []uint64) error {
	return dev.check("cuMemcpyDtoH", dev.d.cuMemcpyDtoH(unsafe.Pointer(&ws[0]), p, uint64(len(ws))*8))
}

func (dev *Device) memset0(p, size uint64) error {
	return dev.check("cuMemsetD8", dev.d.cuMemsetD8(p, 0, size))
}

func (dev *Device) stopFlag() (uint64, func(), func(), error) {
	var flagHost unsafe.Pointer
	if err := dev.check("cuMemHostAlloc", dev.d.cuMemHostAlloc(&flagHost, 8, 0x02 /* CU_MEMHOSTALLOC_DEVICEMAP */)); err != nil {
		return 0, nil, nil, err
	}
	flag := (*int32)(flagHost)
	atomic.StoreInt32(flag, 0)
	var flagDev uint64
	if err := dev.check("cuMemHostGetDevicePointer", dev.d.cuMemHostGetDevicePointer(&flagDev, flagHost, 0)); err != nil {
		dev.d.cuMemFreeHost(flagHost)
		return 0, nil, nil, err
	}
	return flagDev, func() { atomic.StoreInt32(flag, 1) }, func() { dev.d.cuMemFreeHost(flagHost) }, nil
}

// hostAlloc returns pinned host memory (cuMemHostAlloc), from the buffers
// earlier runs gave back where one fits: pinning memory costs
// milliseconds, a run's chunks microseconds.
func (dev *Device) hostAlloc(words uint64) ([]uint64, error) {
	return dev.pinned.get(words, func(size uint64) (unsafe.Pointer, error) {
		var p unsafe.Pointer
		if err := dev.check("cuMemHostAlloc", dev.d.cuMemHostAlloc(&p, size, 0)); err != nil {
			return nil, err
		}
		return p, nil
	})
}

func (dev *Device) hostFree(ws []uint64) {
	dev.pinned.put(ws, func(p unsafe.Pointer) { dev.d.cuMemFreeHost(p) })
}

// pinnedKeep bounds the pinned host memory a device keeps between runs:
// two sets of a run over two arrays with map's results (6 buffers of
// stageItems words).
const pinnedKeep = 6 * stageItems * 8

// warmWords is a set's pinned memory for one array and the results: the
// buffers warm makes.
const warmWords = 2*stageItems + 8

// warm makes the pinned buffers of a run over an array, once per device
// (the caller holds dev.mu), so that a run's first chunk, or auto's probe,
// does not pay for pinning memory; a failure is left for the run to meet.
func (dev *Device) warm() {
	if dev.warmed {
		return
	}
	dev.warmed = true
	var bufs [][]uint64
	for range 2 {
		b, err := dev.hostAlloc(warmWords)
		if err != nil {
			break
		}
		bufs = append(bufs, b)
	}
	for _, b := range bufs {
		dev.hostFree(b)
	}
}

// pinnedPool keeps pinned host buffers between runs, up to max bytes
// (pinnedKeep where 0). Its user serialises the calls (Device.mu).
type pinnedPool struct {
	max  uint64
	kept uint64
	bufs [][]uint64
}

// get returns words of the smallest kept buffer that holds them, or of a
// new one from alloc.
func (pp *pinnedPool) get(words uint64, alloc func(size uint64) (unsafe.Pointer, error)) ([]uint64, error) {
	best := -1
	for i, b := range pp.bufs {
		if n := uint64(len(b)); n >= words && (best < 0 || n < uint64(len(pp.bufs[best]))) {
			best = i
		}
	}
	if best >= 0 {
		b := pp.bufs[best]
		pp.bufs = append(pp.bufs[:best], pp.bufs[best+1:]...)
		pp.kept -= uint64(len(b)) * 8
		return b[:words], nil
	}
	p, err := alloc(words * 8)
	if err != nil {
		return nil, err
	}
	return unsafe.Slice((*uint64)(p), words), nil
}

// put keeps ws's buffer, or frees it where the pool is full.
func (pp *pinnedPool) put(ws []uint64, free func(p unsafe.Pointer)) {
	if cap(ws) == 0 {
		return
	}
	ws = ws[:cap(ws)]
	limit := pp.max
	if limit == 0 {
		limit = pinnedKeep
	}
	if size := uint64(len(ws)) * 8; pp.kept+size <= limit {
		pp.bufs = append(pp.bufs, ws)
		pp.kept += size
		return
	}
	free(unsafe.Pointer(&ws[0]))
}

// cuStream is a CUDA stream with the event recorded after its last launch.
type cuStream struct {
	dev *Device
	s   uintptr // CUstream
	ev  uintptr // CUevent
}

func (dev *Device) newStream() (stream, error) {
	var s uintptr
	// Flags 0: the stream also waits for the synchronous calls' work.
	if err := dev.check("cuStreamCreate", dev.d.cuStreamCreate(&s, 0)); err != nil {
		return nil, err
	}
	var ev uintptr
	if err := dev.check("cuEventCreate", dev.d.cuEventCreate(&ev, 0x2 /* CU_EVENT_DISABLE_TIMING */)); err != nil {
		dev.d.cuStreamDestroy(s)
		return nil, err
	}
	return &cuStream{dev: dev, s: s, ev: ev}, nil
}

func (s *cuStream) uploadAsync(p uint64, ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return s.dev.check("cuMemcpyHtoDAsync", s.dev.d.cuMemcpyHtoDAsync(p, unsafe.Pointer(&ws[0]), uint64(len(ws))*8, s.s))
}

func (s *cuStream) downloadAsync(p uint64, ws []uint64) error {
	if len(ws) == 0 {
		return nil
	}
	return s.dev.check("cuMemcpyDtoHAsync", s.dev.d.cuMemcpyDtoHAsync(unsafe.Pointer(&ws[0]), p, uint64(len(ws))*8, s.s))
}

// launchAsync waits on the device for after's event, launches fn (the
// driver copies the arguments at the call) and records the stream's event.
func (s *cuStream) launchAsync(fn uintptr, grid, block uint32, args []uint64, after stream) error {
	d := s.dev.d
	if a, ok := after.(*cuStream); ok && a != nil {
		if err := s.dev.check("cuStreamWaitEvent", d.cuStreamWaitEvent(s.s, a.ev, 0)); err != nil {
			return err
		}
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	ptrs := make([]unsafe.Pointer, len(args))
	pin.Pin(&ptrs[0])
	for i := range args {
		pin.Pin(&args[i])
		ptrs[i] = unsafe.Pointer(&args[i])
	}
	if err := s.dev.check("cuLaunchKernel", d.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, s.s, &ptrs[0], nil)); err != nil {
		return err
	}
	return s.dev.check("cuEventRecord", d.cuEventRecord(s.ev, s.s))
}

func (s *cuStream) sync() error {
	return s.dev.check("cuStreamSynchronize", s.dev.d.cuStreamSynchronize(s.s))
}

func (s *cuStream) close() {
	s.dev.d.cuEventDestroy(s.ev)
	s.dev.d.cuStreamDestroy(s.s)
}
