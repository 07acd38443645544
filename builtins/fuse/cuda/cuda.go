//go:build linux

// Package cuda runs fused functions on an NVIDIA GPU without cgo and
// without a build step: it loads the CUDA driver (libcuda.so.1) and the
// runtime compiler (libnvrtc) with purego when first asked, compiles the
// CUDA C that package cgen generates for the card's compute capability (or
// takes it from the kernel cache on disk, Cache), and launches it in chunks
// short enough for cancellation to hold, through one launcher for straight
// lines and searches (runSlices), whose copies go through pinned host
// buffers on two streams, overlapping the kernels. Nothing here runs until
// Open is called, so bitsh's start-up never touches CUDA.
package cuda

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"
)

// driver holds the entry points of libcuda and libnvrtc.
type driver struct {
	cuInit                   func(flags uint32) int32
	cuDeviceGet              func(dev *int32, ordinal int32) int32
	cuDeviceGetCount         func(n *int32) int32
	cuDeviceGetName          func(name *byte, n int32, dev int32) int32
	cuDeviceGetAttribute     func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain func(ctx *uintptr, dev int32) int32
	cuCtxSetCurrent          func(ctx uintptr) int32
	cuCtxSynchronize         func() int32
	cuModuleLoadData         func(mod *uintptr, image *byte) int32
	cuModuleGetFunction      func(fn *uintptr, mod uintptr, name string) int32
	cuMemAlloc               func(p *uint64, size uint64) int32
	cuMemFree                func(p uint64) int32
	cuMemsetD8               func(p uint64, v uint8, n uint64) int32
	cuMemcpyDtoH             func(dst unsafe.Pointer, src uint64, n uint64) int32
	cuMemcpyHtoD             func(dst uint64, src unsafe.Pointer, n uint64) int32
	cuLaunchKernel           func(f uintptr, gx, gy, gz, bx, by, bz, shmem uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) int32
	cuGetErrorString         func(err int32, s **byte) int32
	cuDriverGetVersion       func(v *int32) int32

	// The threads' stack, for functions whose helpers recurse (stack.go).
	cuDeviceTotalMem   func(bytes *uint64, dev int32) int32
	cuCtxSetLimit      func(limit int32, value uint64) int32
	cuCtxGetLimit      func(value *uint64, limit int32) int32
	cuFuncGetAttribute func(v *int32, attr int32, fn uintptr) int32

	// Pinned host memory, streams and events: the copies of a run's items
	// and results overlap its kernels (launch.go, stream.go).
	cuMemHostAlloc            func(p *unsafe.Pointer, size uint64, flags uint32) int32
	cuMemFreeHost             func(p unsafe.Pointer) int32
	cuMemHostGetDevicePointer func(d *uint64, p unsafe.Pointer, flags uint32) int32
	cuMemcpyHtoDAsync         func(dst uint64, src unsafe.Pointer, n uint64, stream uintptr) int32
	cuMemcpyDtoHAsync         func(dst unsafe.Pointer, src uint64, n uint64, stream uintptr) int32
	cuStreamCreate            func(s *uintptr, flags uint32) int32
	cuStreamDestroy           func(s uintptr) int32
	cuStreamSynchronize       func(s uintptr) int32
	cuStreamWaitEvent         func(s, ev uintptr, flags uint32) int32
	cuEventCreate             func(ev *uintptr, flags uint32) int32
	cuEventRecord             func(ev, s uintptr) int32
	cuEventDestroy            func(ev uintptr) int32

	nvrtcCreateProgram     func(prog *uintptr, src string, name string, n int32, headers, names *unsafe.Pointer) int32
	nvrtcCompileProgram    func(prog uintptr, n int32, opts **byte) int32
	nvrtcGetPTXSize        func(prog uintptr, size *uint64) int32
	nvrtcGetPTX            func(prog uintptr, ptx *byte) int32
	nvrtcGetProgramLogSize func(prog uintptr, size *uint64) int32
	nvrtcGetProgramLog     func(prog uintptr, log *byte) int32
	nvrtcDestroyProgram    func(prog *uintptr) int32
	nvrtcVersion           func(major, minor *int32) int32
}

// Device is the first GPU of the machine, with its primary context.
type Device struct {
	d     *driver
	dev   int32
	ctx   uintptr
	name  string
	major int32
	minor int32
	sms   int32
	// threadsPerSM and mem size the threads' stack (stack.go): the
	// driver reserves it for every thread the card can hold at once.
	threadsPerSM int32
	mem          uint64
	stack        uint64     // the threads' stack as last raised; under mu
	mu           sync.Mutex // one launch sequence at a time
	pinned       pinnedPool // staging buffers kept between runs; under mu
	warmed       bool       // warm ran; under mu

	cache         *Cache // compiled kernels on disk; nil for none
	nvrtcVersion  string // "13.0"
	driverVersion string // "13000"
	compiles      atomic.Int64
	cacheHits     atomic.Int64
	// compiler compiles CUDA C to PTX: NVRTC (nil), or a stand-in in tests.
	compiler func(src string, opts []string) ([]byte, error)
}

// The driver is loaded once per process: the CUDA driver itself is process
// state (cuInit, primary contexts), so a second load would share it anyway.
var (
	openOnce sync.Once
	opened   *Device
	openErr  error
)

// Open loads the driver and the runtime compiler and opens the first GPU.
// The error says what was looked for and where.
func Open() (*Device, error) {
	openOnce.Do(func() { opened, openErr = open() })
	return opened, openErr
}

// libDirs are the folders searched for the CUDA libraries after the
// loader's own path: CUDA_PATH's lib64 first, then the usual prefixes.
func libDirs() []string {
	var dirs []string
	for _, env := range []string{"CUDA_PATH", "CUDA_HOME"} {
		if p := os.Getenv(env); p != "" {
			dirs = append(dirs, filepath.Join(p, "lib64"), filepath.Join(p, "lib"))
		}
	}
	dirs = append(dirs, "/usr/local/cuda/lib64")
	versioned, _ := filepath.Glob("/usr/local/cuda-*/lib64")
	sort.Sort(sort.Reverse(sort.StringSlice(versioned))) // newest first
	dirs = append(dirs, versioned...)
	dirs = append(dirs, "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib")
	return dirs
}

// load dlopens the first of the candidates that loads; tried lists them.
func load(names []string) (uintptr, []string, error) {
	var tried []string
	var last error
	for _, n := range names {
		tried = append(tried, n)
		h, err := purego.Dlopen(n, purego.RTLD_NOW|purego.RTLD_GLOBAL)
		if err == nil {
			return h, tried, nil
		}
		last = err
	}
	return 0, tried, last
}

func candidates(patterns ...string) []string {
	var out []string
	out = append(out, patterns[0]) // the bare name: the loader's own path
	for _, dir := range libDirs() {
		for _, p := range patterns {
			matches, _ := filepath.Glob(filepath.Join(dir, p))
			sort.Sort(sort.Reverse(sort.StringSlice(matches)))
			for _, m := range matches {
				if !strings.Contains(filepath.Base(m), "builtins") {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

func bind(h uintptr, fptr any, name string) error {
	sym, err := purego.Dlsym(h, name)
	if err != nil {
		return fmt.Errorf("symbol %s: %w", name, err)
	}
	purego.RegisterFunc(fptr, sym)
	return nil
}

func open() (*Device, error) {
	if runtime.GOOS != "linux" {
		return nil, fmt.Errorf("no GPU: the CUDA loader supports Linux only")
	}
	cudaLib, _, err := load(candidates("libcuda.so.1", "libcuda.so"))
	if err != nil {
		return nil, fmt.Errorf("no GPU: the CUDA driver libcuda.so.1 was not found (looked on the loader's path and in %s): %v", strings.Join(libDirs(), ", "), err)
	}
	d := &driver{}
	for _, s := range []struct {
		f    any
		name string
	}{
		{&d.cuInit, "cuInit"}, {&d.cuDeviceGet, "cuDeviceGet"}, {&d.cuDeviceGetCount, "cuDeviceGetCount"},
		{&d.cuDeviceGetName, "cuDeviceGetName"}, {&d.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
		{&d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"}, {&d.cuCtxSetCurrent, "cuCtxSetCurrent"},
		{&d.cuCtxSynchronize, "cuCtxSynchronize"}, {&d.cuModuleLoadData, "cuModuleLoadData"},
		{&d.cuModuleGetFunction, "cuModuleGetFunction"}, {&d.cuMemAlloc, "cuMemAlloc_v2"},
		{&d.cuMemFree, "cuMemFree_v2"}, {&d.cuMemsetD8, "cuMemsetD8_v2"}, {&d.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&d.cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&d.cuLaunchKernel, "cuLaunchKernel"}, {&d.cuGetErrorString, "cuGetErrorString"},
		{&d.cuDriverGetVersion, "cuDriverGetVersion"},
		{&d.cuDeviceTotalMem, "cuDeviceTotalMem_v2"}, {&d.cuCtxSetLimit, "cuCtxSetLimit"},
		{&d.cuCtxGetLimit, "cuCtxGetLimit"}, {&d.cuFuncGetAttribute, "cuFuncGetAttribute"},
		{&d.cuMemHostAlloc, "cuMemHostAlloc"}, {&d.cuMemFreeHost, "cuMemFreeHost"},
		{&d.cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2"},
		{&d.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2"}, {&d.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2"},
		{&d.cuStreamCreate, "cuStreamCreate"}, {&d.cuStreamDestroy, "cuStreamDestroy_v2"},
		{&d.cuStreamSynchronize, "cuStreamSynchronize"}, {&d.cuStreamWaitEvent, "cuStreamWaitEvent"},
		{&d.cuEventCreate, "cuEventCreate"}, {&d.cuEventRecord, "cuEventRecord"}, {&d.cuEventDestroy, "cuEventDestroy_v2"},
	} {
		if err := bind(cudaLib, s.f, s.name); err != nil {
			return nil, fmt.Errorf("no GPU: libcuda: %w", err)
		}
	}
	if r := d.cuInit(0); r != 0 {
		return nil, fmt.Errorf("no GPU: cuInit: %s", d.errString(r))
	}
	var n int32
	if r := d.cuDeviceGetCount(&n); r != 0 || n == 0 {
		return nil, fmt.Errorf("no GPU: the CUDA driver sees no device")
	}
	nvrtc, tried, err := load(candidates("libnvrtc.so", "libnvrtc.so.*"))
	if err != nil {
		return nil, fmt.Errorf("no usable GPU: the CUDA runtime compiler libnvrtc was not found (tried %s; set CUDA_PATH to the CUDA toolkit): %v", strings.Join(tried, ", "), err)
	}
	for _, s := range []struct {
		f    any
		name string
	}{
		{&d.nvrtcCreateProgram, "nvrtcCreateProgram"}, {&d.nvrtcCompileProgram, "nvrtcCompileProgram"},
		{&d.nvrtcGetPTXSize, "nvrtcGetPTXSize"}, {&d.nvrtcGetPTX, "nvrtcGetPTX"},
		{&d.nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize"}, {&d.nvrtcGetProgramLog, "nvrtcGetProgramLog"},
		{&d.nvrtcDestroyProgram, "nvrtcDestroyProgram"}, {&d.nvrtcVersion, "nvrtcVersion"},
	} {
		if err := bind(nvrtc, s.f, s.name); err != nil {
			return nil, fmt.Errorf("no usable GPU: libnvrtc: %w", err)
		}
	}
	dev := &Device{d: d}
	var drv, major, minor int32
	if d.cuDriverGetVersion(&drv) == 0 && d.nvrtcVersion(&major, &minor) == 0 {
		// Without both versions a cached kernel could be another
		// compiler's: no cache then.
		dev.driverVersion = fmt.Sprint(drv)
		dev.nvrtcVersion = fmt.Sprintf("%d.%d", major, minor)
		dev.cache = DefaultCache()
	}
	if r := d.cuDeviceGet(&dev.dev, 0); r != 0 {
		return nil, fmt.Errorf("no GPU: cuDeviceGet: %s", d.errString(r))
	}
	name := make([]byte, 256)
	d.cuDeviceGetName(&name[0], int32(len(name)), dev.dev)
	dev.name = strings.TrimRight(string(name), "\x00")
	const (
		attrSMs     = 16 // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
		attrMajor   = 75 // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
		attrMinor   = 76
		attrThreads = 39 // CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR
	)
	d.cuDeviceGetAttribute(&dev.major, attrMajor, dev.dev)
	d.cuDeviceGetAttribute(&dev.minor, attrMinor, dev.dev)
	d.cuDeviceGetAttribute(&dev.sms, attrSMs, dev.dev)
	d.cuDeviceGetAttribute(&dev.threadsPerSM, attrThreads, dev.dev)
	d.cuDeviceTotalMem(&dev.mem, dev.dev)
	if r := d.cuDevicePrimaryCtxRetain(&dev.ctx, dev.dev); r != 0 {
		return nil, fmt.Errorf("no GPU: cuDevicePrimaryCtxRetain: %s", d.errString(r))
	}
	return dev, nil
}

func (d *driver) errString(r int32) string {
	var s *byte
	if d.cuGetErrorString != nil && d.cuGetErrorString(r, &s) == 0 && s != nil {
		return cString(s)
	}
	return fmt.Sprintf("CUDA error %d", r)
}

func cString(p *byte) string {
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// Name is the card's name ("NVIDIA H100 80GB HBM3").
func (dev *Device) Name() string { return dev.name }

// check turns a CUDA status into an error naming the call.
func (dev *Device) check(what string, r int32) error {
	if r == 0 {
		return nil
	}
	return fmt.Errorf("gpu: %s: %s", what, dev.d.errString(r))
}

// current makes the primary context current on this OS thread; the caller
// holds dev.mu and has locked the goroutine to its thread.
func (dev *Device) current() error {
	return dev.check("cuCtxSetCurrent", dev.d.cuCtxSetCurrent(dev.ctx))
}

// Compiles returns how many kernels this process compiled with NVRTC and
// how many it took from the kernel cache instead.
func (dev *Device) Compiles() (compiled, cached int64) {
	return dev.compiles.Load(), dev.cacheHits.Load()
}

// compilePTX returns the PTX of CUDA C for the card's compute capability:
// from the kernel cache (DefaultCache) when it holds it, else compiled
// with NVRTC and stored there.
func (dev *Device) compilePTX(src string) ([]byte, error) {
	opts := []string{fmt.Sprintf("--gpu-architecture=compute_%d%d", dev.major, dev.minor), "-default-device"}
	key := KernelKey(src, opts, fmt.Sprintf("%d%d", dev.major, dev.minor), dev.nvrtcVersion, dev.driverVersion)
	compile := dev.nvrtc
	if dev.compiler != nil {
		compile = dev.compiler
	}
	ptx, hit, err := dev.cache.Load(key, func() ([]byte, error) {
		dev.compiles.Add(1)
		return compile(src, opts)
	})
	if err != nil {
		return nil, err
	}
	if hit {
		dev.cacheHits.Add(1)
	}
	if len(ptx) == 0 || ptx[len(ptx)-1] != 0 {
		ptx = append(ptx, 0) // cuModuleLoadData reads a C string
	}
	return ptx, nil
}

// nvrtc compiles CUDA C to PTX with NVRTC.
func (dev *Device) nvrtc(src string, opts []string) ([]byte, error) {
	d := dev.d
	var prog uintptr
	if r := d.nvrtcCreateProgram(&prog, src, "fused.cu", 0, nil, nil); r != 0 {
		return nil, fmt.Errorf("gpu: nvrtcCreateProgram failed (%d)", r)
	}
	defer d.nvrtcDestroyProgram(&prog)
	cs := make([]*byte, len(opts))
	keep := make([][]byte, len(opts))
	for i, o := range opts {
		keep[i] = append([]byte(o), 0)
		cs[i] = &keep[i][0]
	}
	r := d.nvrtcCompileProgram(prog, int32(len(cs)), &cs[0])
	runtime.KeepAlive(keep)
	if r != 0 {
		var n uint64
		d.nvrtcGetProgramLogSize(prog, &n)
		log := make([]byte, n+1)
		d.nvrtcGetProgramLog(prog, &log[0])
		return nil, fmt.Errorf("gpu: NVRTC could not compile the fused function (%d): %s", r, strings.TrimRight(string(log), "\x00"))
	}
	var n uint64
	d.nvrtcGetPTXSize(prog, &n)
	ptx := make([]byte, n+1)
	if r := d.nvrtcGetPTX(prog, &ptx[0]); r != 0 {
		return nil, errors.New("gpu: nvrtcGetPTX failed")
	}
	return ptx, nil
}
