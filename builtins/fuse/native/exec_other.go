//go:build !(linux && amd64)

package native

import (
	"fmt"
	"runtime"
)

func amd64Ready() error {
	return fmt.Errorf("amd64: not available on %s/%s", runtime.GOOS, runtime.GOARCH)
}

func execMemory(code []byte) ([]byte, error) { return nil, amd64Ready() }

func freeExecMemory(b []byte) {}

func workerMemory(n int) (words []uint64, free func(), err error) {
	return make([]uint64, n), func() {}, nil
}

func callCode(code []byte, mem []uint64) { panic("native: no amd64 engine here") }
