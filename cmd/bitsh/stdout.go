package main

import (
	"fmt"
	"io"
	"sync"
)

// watchedOutput is standard output that keeps its first write error, so
// that output lost to a full disk or a closed device (bitsh > /dev/full)
// makes the command fail instead of exiting 0.
type watchedOutput struct {
	w   io.Writer
	mu  sync.Mutex // shards (-j) write at once
	err error
}

func (o *watchedOutput) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil {
		o.mu.Lock()
		if o.err == nil {
			o.err = err
		}
		o.mu.Unlock()
	}
	return n, err
}

// Fd is the descriptor of the file written to (for the terminal checks
// of the REPL), or ^0 when it is not a file.
func (o *watchedOutput) Fd() uintptr {
	if f, ok := o.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// failed reports the first write error on stderr and returns the status
// to exit with: status, or exitError when status was exitOK (the exit
// statuses in docs/reliability.md).
func (o *watchedOutput) failed(status int, stderr io.Writer) int {
	o.mu.Lock()
	err := o.err
	o.mu.Unlock()
	if err == nil {
		return status
	}
	fmt.Fprintf(stderr, "%s: writing standard output: %v\n", progName, err)
	if status == exitOK {
		return exitError
	}
	return status
}
