//go:build !(linux && cgo)

package autopsy

import "os"

// forkedInit: only Linux builds with cgo fork before Go's runtime starts
// (fork_linux.go); the others supervise from init.
func forkedInit() bool { return false }

func forkedCrashOutput() *os.File { return nil }

func forkedOutput() ([]byte, *OutputMark) { return nil, nil }
