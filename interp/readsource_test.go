package interp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/interp"
)

// endless is a stream that never ends (as /dev/zero or yes), counting
// the bytes it gave.
type endless struct{ given int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	e.given += int64(len(p))
	return len(p), nil
}

// TestReadSourceEndless: an endless stream is read up to the limit a
// budget gives, not on, and the error names the source; without a budget
// MaxSourceSize bounds it.
func TestReadSourceEndless(t *testing.T) {
	for _, budget := range []int64{4 << 20, 0} {
		r := &endless{}
		_, err := interp.ReadSource(context.Background(), r, "zero.star", budget)
		limit := interp.SourceLimit(budget)
		if !errors.Is(err, interp.ErrSourceTooLarge) || !strings.HasPrefix(err.Error(), "zero.star: longer than") {
			t.Errorf("budget %d: %v; want the source too large, by name", budget, err)
		}
		if r.given > limit+1<<20 {
			t.Errorf("budget %d: read %d bytes of a limit of %d", budget, r.given, limit)
		}
	}
	if got, want := interp.SourceLimit(4<<20), int64(1<<20); got != want {
		t.Errorf("SourceLimit(4M) = %d; want %d, a quarter", got, want)
	}
}

// TestReadSourceExact: a source of the limit's length is read whole, byte
// for byte, from a stream or a file; one byte more is refused.
func TestReadSourceExact(t *testing.T) {
	const budget = 1 << 20
	limit := interp.SourceLimit(budget)
	text := bytes.Repeat([]byte("x = 1\n"), int(limit)/6+1)[:limit]
	fsys := fstest.MapFS{"ok.star": {Data: text}, "long.star": {Data: append(text, '\n')}}
	for name, want := range map[string]bool{"ok.star": true, "long.star": false} {
		f, err := fsys.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := fs.ReadFile(fsys, name)
		for _, r := range []io.Reader{f, bytes.NewReader(data)} {
			got, err := interp.ReadSource(context.Background(), r, name, budget)
			if want && (err != nil || !bytes.Equal(got, data)) {
				t.Errorf("%s from %T: %d bytes, %v; want its %d bytes", name, r, len(got), err, len(data))
			}
			if !want && !errors.Is(err, interp.ErrSourceTooLarge) {
				t.Errorf("%s from %T: %d bytes, %v; want too large", name, r, len(got), err)
			}
		}
		f.Close()
	}
}

// TestReadSourceCancelled: a read in a cancelled run stops with the cause.
func TestReadSourceCancelled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("timeout after 1ms")
	cancel(cause)
	if _, err := interp.ReadSource(ctx, &endless{}, "zero.star", 0); !errors.Is(err, cause) {
		t.Errorf("cancelled: %v; want %v", err, cause)
	}
}

// endlessFS holds one endless file, zero.star, and counts the bytes read
// of it.
type endlessFS struct{ file *endlessFile }

func (e endlessFS) Open(name string) (fs.File, error) {
	if name != "zero.star" {
		return nil, fs.ErrNotExist
	}
	return e.file, nil
}

type endlessFile struct{ endless }

func (*endlessFile) Stat() (fs.FileInfo, error) { return endlessInfo{}, nil }
func (*endlessFile) Close() error               { return nil }

type endlessInfo struct{}

func (endlessInfo) Name() string       { return "zero.star" }
func (endlessInfo) Size() int64        { return 0 }
func (endlessInfo) Mode() fs.FileMode  { return fs.ModeCharDevice | fs.ModeDevice | 0o444 }
func (endlessInfo) ModTime() time.Time { return time.Time{} }
func (endlessInfo) IsDir() bool        { return false }
func (endlessInfo) Sys() any           { return nil }

// TestLoadEndless: load of an endless file (load("/dev/zero", ...)) stops
// at the limit of its budget with an error naming the file.
func TestLoadEndless(t *testing.T) {
	// Room above what the test process holds (other tests' heap counts
	// too): the watchdog must not stop the load before the limit does.
	budget := memory.InUse() + 128<<20
	fsys := endlessFS{&endlessFile{}}
	in := interp.New(interp.WithFS(fsys), interp.WithMaxMemory(budget), interp.WithStdout(io.Discard))
	_, err := in.Exec(context.Background(), "main.star", `load("zero.star", "x")`)
	if err == nil || !strings.Contains(err.Error(), "zero.star: longer than") {
		t.Errorf("load of an endless file: %v; want it too large", err)
	}
	if limit := interp.SourceLimit(budget); fsys.file.given > limit+1<<20 {
		t.Errorf("read %d bytes of an endless file; want about the limit, %d", fsys.file.given, limit)
	}
}
