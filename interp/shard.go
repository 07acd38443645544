package interp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/bitsh/bitsh/builtins/shard"
)

// shardConfig is which shard an interpreter runs and where its emit
// calls record results.
type shardConfig struct {
	index, count int
	results      *shard.Results
}

// init gives the interpreter its own results unless WithResults gave it
// some.
func (c *shardConfig) init() {
	if c.results == nil {
		c.results = &shard.Results{}
	}
}

// WithShard makes the interpreter run shard index of count: shard()
// returns (index, count) and share(space) returns that part of space.
// Without it an interpreter is shard 0 of 1.
func WithShard(index, count int) Option {
	return func(in *Interp) { in.shard.index, in.shard.count = index, count }
}

// WithResults makes emit record into r instead of the interpreter's own
// results.
func WithResults(r *shard.Results) Option { return func(in *Interp) { in.shard.results = r } }

// Results returns what the scripts run so far emitted.
func (in *Interp) Results() *shard.Results {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.shard.results == nil {
		in.shard.results = &shard.Results{}
	}
	return in.shard.results
}

// A ShardError is the failure of one shard of RunShards.
type ShardError struct {
	Index int
	Err   error
}

// Error says which shard failed and how.
func (e *ShardError) Error() string { return fmt.Sprintf("shard %d: %v", e.Index, e.Err) }

// Unwrap returns the shard's error.
func (e *ShardError) Unwrap() error { return e.Err }

// RunShards runs the script src (named filename) as count shards, each in
// an interpreter of its own (built with opts) on a goroutine of its own,
// so nothing is shared between them, GOMAXPROCS of them at a time. Each shard's print output
// goes to stdout line by line, prefixed "[I] ", as does its standard
// error to stderr. It returns every shard's results, in shard order, or
// the first failure as a *ShardError, after cancelling the other shards.
// A shard that calls exit(0) has succeeded; exit(n) for n != 0 fails it.
func RunShards(ctx context.Context, count int, filename string, src []byte, stdout, stderr io.Writer, opts ...Option) ([]*shard.Results, error) {
	if count < 1 {
		return nil, fmt.Errorf("RunShards: count = %d, want at least 1", count)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var outMu, errMu sync.Mutex
	results := make([]*shard.Results, count)
	var (
		wg        sync.WaitGroup
		failMu    sync.Mutex
		firstErr  error
		unstarted error // a shard that never ran, reported only without firstErr
	)
	// At most GOMAXPROCS shards run at a time: more would not run faster,
	// and behind count busy goroutines the ones that deliver a signal and
	// cancel the runs wait to be scheduled (Ctrl-C under -j 256 of
	// endless loops took 3.5 s to stop them).
	running := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range count {
		results[i] = &shard.Results{}
		out := &prefixWriter{mu: &outMu, w: stdout, prefix: fmt.Sprintf("[%d] ", i)}
		errw := &prefixWriter{mu: &errMu, w: stderr, prefix: fmt.Sprintf("[%d] ", i)}
		in := New(append(opts[:len(opts):len(opts)],
			WithShard(i, count), WithResults(results[i]), WithStdout(out), WithStderr(errw))...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case running <- struct{}{}:
			case <-ctx.Done():
				failMu.Lock()
				defer failMu.Unlock()
				if unstarted == nil {
					unstarted = &ShardError{Index: i, Err: &CancelledError{
						Err: fmt.Errorf("shard %d did not start: %v", i, cancelReason(ctx)), Cause: context.Cause(ctx)}}
				}
				return
			}
			_, err := in.ExecFile(ctx, filename, src)
			<-running
			out.Flush()
			errw.Flush()
			var ee *ExitError
			if err == nil || errors.As(err, &ee) && ee.Code == 0 {
				return // exit(0) ends a shard successfully
			}
			failMu.Lock()
			defer failMu.Unlock()
			if firstErr == nil {
				firstErr = &ShardError{Index: i, Err: err}
				cancel(fmt.Errorf("shard %d failed", i))
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if unstarted != nil {
		return nil, unstarted
	}
	return results, nil
}

// prefixWriter writes whole lines, each prefixed, to a writer shared with
// other prefixWriters under mu, so the lines of shards never interleave.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	i := bytes.LastIndexByte(p.buf, '\n')
	if i < 0 {
		return len(b), nil
	}
	err := p.emit(p.buf[:i+1])
	p.buf = append(p.buf[:0], p.buf[i+1:]...)
	return len(b), err
}

// Flush writes a last incomplete line, ending it.
func (p *prefixWriter) Flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	err := p.emit(append(p.buf, '\n'))
	p.buf = p.buf[:0]
	return err
}

func (p *prefixWriter) emit(lines []byte) error {
	var out bytes.Buffer
	for len(lines) > 0 {
		i := bytes.IndexByte(lines, '\n')
		out.WriteString(p.prefix)
		out.Write(lines[:i+1])
		lines = lines[i+1:]
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, err := p.w.Write(out.Bytes())
	return err
}
