package cgen

// What the external tests of the generated C (flow_test.go) share
// with the internal ones.
var (
	CUDAShim  = cudaShim
	CCompiler = cCompiler
)
