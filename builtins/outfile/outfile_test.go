package outfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/bitsh/bitsh/builtins/outfile"
)

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func isLink(t *testing.T, path string) bool {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Mode()&fs.ModeSymlink != 0
}

func TestWriteRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new.json")
	if err := outfile.Write(path, []byte("one"), 0o640); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "one" || info.Mode().Perm() != 0o640 {
		t.Errorf("new file: %q, mode %v; want \"one\", -rw-r-----", got, info.Mode().Perm())
	}
	// An existing file keeps its permissions.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(path, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, _ = os.Stat(path)
	if got := read(t, path); got != "two" || info.Mode().Perm() != 0o600 {
		t.Errorf("existing file: %q, mode %v; want \"two\", -rw-------", got, info.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory; want the one written, no temporary left", len(entries))
	}
}

func TestWriteThroughLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "sub", "real.json")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// link -> sub/real.json (relative), chain -> link (absolute).
	link, chain := filepath.Join(dir, "link"), filepath.Join(dir, "chain")
	if err := os.Symlink("sub/real.json", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(link, chain); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, chain} {
		if err := outfile.Write(p, []byte("via "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := read(t, real); got != "via "+filepath.Base(p) {
			t.Errorf("written through %s: the target holds %q", filepath.Base(p), got)
		}
		if !isLink(t, link) || !isLink(t, chain) {
			t.Errorf("written through %s: a link was replaced by a file", filepath.Base(p))
		}
	}
	// A dangling link: the file is made where it points.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("sub/later.json", dangling); err != nil {
		t.Fatal(err)
	}
	if err := outfile.Write(dangling, []byte("made"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "sub", "later.json")); got != "made" || !isLink(t, dangling) {
		t.Errorf("through a dangling link: target %q, link kept %v; want \"made\", true", got, isLink(t, dangling))
	}
	// A cycle of links is an error.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := outfile.Write(a, []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a cycle of links: %v; want an error about symbolic links", err)
	}
}

func TestWriteFifo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no fifo:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(path)
		got <- string(b)
	}()
	if err := outfile.Write(path, []byte("through the pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through the pipe" {
		t.Errorf("the fifo's reader got %q; want \"through the pipe\"", s)
	}
	if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the fifo was replaced: %v, %v", info.Mode(), err)
	}
}

func TestWriteDevices(t *testing.T) {
	if err := outfile.Write(os.DevNull, []byte("gone"), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(os.DevNull); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v, %v", os.DevNull, info.Mode(), err)
	}
	if _, err := os.Stat("/dev/full"); err == nil {
		err := outfile.Write("/dev/full", []byte("x"), 0o644)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("writing /dev/full: %v; want no space left on device", err)
		}
		if info, err := os.Lstat("/dev/full"); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("/dev/full is no longer a device: %v, %v", info.Mode(), err)
		}
	}
	if err := outfile.Write(t.TempDir(), []byte("x"), 0o644); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("writing a directory: %v; want an error saying it is one", err)
	}
}
