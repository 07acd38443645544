package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"

	"github.com/bitsh/bitsh/builtins/memory"
)

// MaxSourceSize is the most bytes bitsh reads of one source text (a
// script, standard input, a loaded module, a file given to bitsh check or
// bitsh fmt): parsing takes some 70 to 100 times a file's size, so a
// larger one could not be parsed on most machines anyway.
const MaxSourceSize = 64 << 20

// SourceLimit returns the most bytes ReadSource reads of a source under a
// memory budget of budget bytes (0: none): MaxSourceSize, and at most a
// quarter of the budget (at least 64 KiB), since reading a stream of
// unknown length holds up to about twice what it read while its buffer
// grows, and parsing takes many times more.
func SourceLimit(budget int64) int64 {
	if budget <= 0 {
		return MaxSourceSize
	}
	return min(MaxSourceSize, max(budget/4, 64<<10))
}

// ErrSourceTooLarge is the error (wrapped, with the source's name and the
// limit) of ReadSource for a source longer than its limit.
var ErrSourceTooLarge = errors.New("source too large")

// A sourceError says which source was too large, and why that is the limit.
type sourceError struct {
	name          string
	limit, budget int64
}

func (e *sourceError) Error() string {
	if e.limit < MaxSourceSize {
		return fmt.Sprintf("%s: longer than %s, the most bitsh reads of a source under a memory budget of %s (a quarter of it; -max-memory sets the budget)",
			e.name, memory.FormatSize(e.limit), memory.FormatSize(e.budget))
	}
	return fmt.Sprintf("%s: longer than %s, the most bitsh reads of a source", e.name, memory.FormatSize(e.limit))
}

func (e *sourceError) Unwrap() error { return ErrSourceTooLarge }

// readChunk is how much ReadSource reads at a time, polling ctx between
// reads.
const readChunk = 256 << 10

// ReadSource reads a source text from r, named name in errors, for a run
// with a memory budget of budget bytes (0: none). It reads at most
// SourceLimit(budget) bytes and fails with an error that wraps
// ErrSourceTooLarge when there are more (a file whose size is known is
// refused before it is read), and it stops with ctx's cause when ctx ends
// between two reads: an endless stream (/dev/zero, yes) ends in an error,
// not in the whole memory.
func ReadSource(ctx context.Context, r io.Reader, name string, budget int64) ([]byte, error) {
	limit := SourceLimit(budget)
	tooLarge := &sourceError{name: name, limit: limit, budget: budget}
	size := int64(-1)
	if st, ok := r.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	if size > limit {
		return nil, tooLarge
	}
	// Pieces of readChunk bytes (a regular file: one piece of its size,
	// and a byte more to see the end), joined once at the end: what it
	// holds is at most twice what it read, where a growing buffer would
	// leave its old copies to the collector too.
	piece := int64(readChunk)
	if size >= 0 {
		piece = size + 1
	}
	var pieces [][]byte
	total := int64(0)
	for {
		p, err := readAll(ctx, r, name, make([]byte, 0, piece), limit-total, tooLarge)
		if err != nil && !errors.Is(err, errPieceFull) {
			return nil, err
		}
		if err == nil && pieces == nil {
			return p, nil
		}
		pieces = append(pieces, p)
		total += int64(len(p))
		if err == nil {
			return slices.Concat(pieces...), nil
		}
		piece = readChunk
	}
}

// errPieceFull is readAll's error when buf is full before the end.
var errPieceFull = errors.New("piece full")

// readAll reads r into buf, polling ctx between reads, until the end
// (err nil), or until buf is full (errPieceFull) when buf's capacity is
// not more than limit; past limit bytes it returns tooLarge.
func readAll(ctx context.Context, r io.Reader, name string, buf []byte, limit int64, tooLarge error) ([]byte, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, context.Cause(ctx))
		}
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				return nil, tooLarge
			}
			if int64(cap(buf)) <= limit {
				return buf, errPieceFull
			}
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, tooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", name, err)
		}
	}
}
