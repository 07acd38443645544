package main

import (
	"bytes"
	"io"
	"sync"
	"time"

	"github.com/bitsh/bitsh/cmd/bitsh/internal/autopsy"
	"golang.org/x/term"
)

// Standard output is buffered for a script, as CPython buffers it: by
// line when it is a terminal, by block when it is a pipe or a file, where
// a program that prints 14,200 lines made 14,200 write calls. Output is
// never held long: the buffer is written out
//
//   - when it is full, and at each newline on a terminal;
//   - at most flushDelay after its first byte, so that a long search that
//     prints now and then shows its progress (bitsh x.star | tee log);
//   - before anything is written to standard error, so that a traceback
//     or a message comes after the output printed before it, as without a
//     buffer when both go to one terminal or file;
//   - when the command ends, on every path that returns: the end of the
//     script, an error, fail(), exit(n), Ctrl-C.
//
// Under the supervising parent (package autopsy) on Linux, the buffer is
// memory shared with the parent, which writes what is left in it when the
// process dies of a Go fatal error or a signal (SIGTERM, SIGKILL);
// elsewhere these lose at most the output of the last flushDelay. The
// REPL is not buffered: its prompt and echo go to standard output too.
const outBufBytes = 64 << 10

// flushDelay is how late buffered output may come. (A variable only for
// the test binary's bitsh command, main_test.go, which sets it once before
// it runs, to hold the output until the process ends.)
var flushDelay = 100 * time.Millisecond

// bufferedOutput buffers writes to w (the watched standard output) as the
// comment above says. It is safe for concurrent use: shards (-j) and the
// flush timer write at once; each Write stays whole.
type bufferedOutput struct {
	w      io.Writer
	byLine bool // a terminal: flush at each newline

	mu    sync.Mutex
	buf   []byte
	err   error // the first failed write: the later ones fail as it did
	timer *time.Timer
	armed bool // the timer runs for the bytes in buf
	// mark, when buf is shared with the supervising parent, says how
	// much of it is held and how much written (autopsy.SharedOutput).
	mark *autopsy.OutputMark
}

// newBufferedOutput buffers w, by line when w is a terminal.
func newBufferedOutput(w io.Writer) *bufferedOutput {
	b := &bufferedOutput{w: w}
	if f, ok := w.(interface{ Fd() uintptr }); ok && term.IsTerminal(int(f.Fd())) {
		b.byLine = true
	}
	return b
}

// share makes the buffer the memory that the supervising parent reads
// when this process dies (autopsy.SharedOutput), when there is one and w
// is the process's standard output, which the parent writes to.
func (b *bufferedOutput) share() {
	if fdOf(b.w) != 1 {
		return
	}
	if buf, mark := autopsy.SharedOutput(); buf != nil && len(buf) >= outBufBytes {
		b.buf, b.mark = buf[:0:outBufBytes], mark
	}
}

// Write buffers p. It returns the error of a flush that failed, this
// one's or an earlier one's, as an unbuffered write would have: print
// then stops the run (interp's print).
func (b *bufferedOutput) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil {
		return 0, b.err
	}
	if len(b.buf)+len(p) > outBufBytes {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) >= outBufBytes {
			n, err := b.w.Write(p)
			if err != nil {
				b.err = err
			}
			return n, err
		}
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, outBufBytes)
	}
	b.buf = append(b.buf, p...)
	if b.mark != nil {
		b.mark.Pending.Store(uint64(len(b.buf)))
	}
	if b.byLine && bytes.IndexByte(p, '\n') >= 0 {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if len(b.buf) > 0 && !b.armed {
		b.armed = true
		if b.timer == nil {
			b.timer = time.AfterFunc(flushDelay, b.timerFlush)
		} else {
			b.timer.Reset(flushDelay)
		}
	}
	return len(p), nil
}

// timerFlush writes out what flushDelay has kept waiting.
func (b *bufferedOutput) timerFlush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	b.flushLocked()
}

// Flush writes out the buffer and returns the first write error.
func (b *bufferedOutput) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *bufferedOutput) flushLocked() error {
	if b.err != nil {
		return b.err
	}
	if len(b.buf) == 0 {
		return nil
	}
	n, err := b.w.Write(b.buf)
	if b.mark != nil {
		b.mark.Written.Store(uint64(n))
		b.mark.Pending.Store(0)
		b.mark.Written.Store(0)
	}
	b.buf = b.buf[:0]
	if err != nil {
		b.err = err
	}
	return err
}

// stop flushes and stops the timer.
func (b *bufferedOutput) stop() {
	b.mu.Lock()
	if b.timer != nil {
		b.timer.Stop()
	}
	b.armed = false
	b.flushLocked()
	b.mu.Unlock()
}

// Fd is the descriptor of the file written to, or ^0 (see watchedOutput).
func (b *bufferedOutput) Fd() uintptr { return fdOf(b.w) }

// flushingWriter is standard error for a script: each write flushes
// standard output first, so that what goes to both keeps its order.
type flushingWriter struct {
	w   io.Writer
	out *bufferedOutput
}

func (f flushingWriter) Write(p []byte) (int, error) {
	f.out.Flush()
	return f.w.Write(p)
}

// Fd is the descriptor of the file written to, or ^0: progress bars and
// colours look for a terminal there.
func (f flushingWriter) Fd() uintptr { return fdOf(f.w) }

// fdOf returns w's descriptor when it is a file, else ^0.
func fdOf(w io.Writer) uintptr {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
