package fuse

// What the external tests of the generated C (cgen_flow_test.go) share
// with the internal ones.
var (
	CUDAShim  = cudaShim
	CCompiler = cCompiler
)
