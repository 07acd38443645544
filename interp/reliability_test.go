package interp_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/memory"
	"github.com/bitsh/bitsh/internal/testscale"
	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

// An embedder confines load with WithFS: with an os.Root's file system, a
// script cannot reach files outside the root, by ../, by an absolute path
// or through a symbolic link.
func TestConfinedLoads(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(dir, "secret.star")
	write := func(name, text string) {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(secret, "x = 42\n")
	write(filepath.Join(root, "ok.star"), "x = 1\n")
	write(filepath.Join(root, "sub", "inner.star"), `load("../ok.star", "x")`+"\ny = x\n")
	if err := os.Symlink(secret, filepath.Join(root, "link.star")); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	in := interp.New(interp.WithFS(r.FS()), interp.WithStdout(io.Discard))

	// Inside the root, relative loads work, ".." included.
	if _, err := in.ExecFile(context.Background(), "sub/inner.star", nil); err != nil {
		t.Fatalf("load inside the root: %v", err)
	}
	for _, name := range []string{"../secret.star", secret, "sub/../../secret.star", "link.star"} {
		src := `load("` + filepath.ToSlash(name) + `", "x")`
		_, err := in.Exec(context.Background(), "<test>", src)
		if err == nil {
			t.Errorf("%s: loaded a file outside the root", src)
			continue
		}
		t.Logf("%s: %v", src, err)
		if _, err := in.ExecFile(context.Background(), filepath.ToSlash(name), nil); err == nil {
			t.Errorf("ExecFile(%q) read a file outside the root", name)
		}
	}
}

func TestMemoryBudgetCancelsRun(t *testing.T) {
	if testscale.Short() {
		t.Skip("fills 64 MB")
	}
	in := interp.New(interp.WithMaxMemory(64<<20), interp.WithStdout(io.Discard))
	// A list growing by append: the watchdog's case (s = s + s is refused
	// before it allocates, with bitsh's fork of go.starlark.net).
	// Whichever sees it first stops it: the watchdog (a memory.LimitError)
	// or the check list.append asks before it doubles a large array (an
	// error naming list.append).
	_, err := in.Exec(context.Background(), "<test>", "s = []\nwhile True:\n    s.append(len(s))\n")
	var me *memory.LimitError
	if errors.As(err, &me) {
		if me.Limit != 64<<20 {
			t.Fatalf("got %v, want a memory.LimitError of 64M", err)
		}
	} else if err == nil || !strings.Contains(err.Error(), "list.append: memory limit of 64M exceeded") {
		t.Fatalf("got %v, want a memory.LimitError of 64M or list.append's refusal", err)
	}
	if !strings.Contains(err.Error(), "memory limit of 64M exceeded") {
		t.Errorf("message %q does not give the budget", err)
	}
	// The session goes on once the data is dropped.
	if _, err := in.Exec(context.Background(), "<test>", "s = None\nx = 1 + 1"); err != nil {
		t.Errorf("after the budget: %v", err)
	}
}

func TestMemoryLimitErrorMessage(t *testing.T) {
	for _, c := range []struct {
		err  *memory.LimitError
		want string
	}{
		{&memory.LimitError{Limit: 128 << 20}, "memory limit of 128M exceeded"},
		{&memory.LimitError{Limit: 128 << 20, Room: 100 << 20, InUse: 70 << 20},
			"memory limit of 128M exceeded (70M in use, and only 100M of address space left under ulimit -v to grow)"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestRepeatGuard(t *testing.T) {
	// The budget bounds the process's heap, which other tests' data and
	// garbage share: set it 512M above what is live now, so that only
	// this test's allocations can reach it ([0] * 100000000 is 1.6G).
	runtime.GC()
	budget := (memory.LiveHeapBytes() + 512<<20) &^ (1<<20 - 1)
	in := interp.New(interp.WithMaxMemory(budget), interp.WithStdout(io.Discard))
	for _, src := range []string{
		"[1, 2] * 3 == [1, 2, 1, 2, 1, 2]",
		"3 * [0] == [0, 0, 0]",
		"(1,) * 3 == (1, 1, 1)",
		`"ab" * 2 == "abab"`,
		"[0] * -1 == []",
		"[x for x in range(3)] * 2 == [0, 1, 2, 0, 1, 2]",
		"len([1, 2, 3] * 100000) == 300000 and ([1, 2, 3] * 100000)[299999] == 3 and ([1, 2, 3] * 100000)[150001] == 2",
		"type((1, 2) * 100000) == 'tuple'",
		"6 * 7 == 42",
	} {
		v, err := in.Exec(context.Background(), "<test>", src)
		if err != nil || v != starlark.True {
			t.Errorf("%s: got %v, %v", src, v, err)
		}
	}
	_, err := in.Exec(context.Background(), "<test>", "x = [0] * 100000000")
	if want := "memory limit of " + memory.FormatSize(budget) + " exceeded"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("[0] * 100000000: got %v, want the budget's error", err)
	}
	_, err = in.Exec(context.Background(), "<test>", `x = [1] * "a"`)
	if err == nil || !strings.Contains(err.Error(), "unknown binary op: list * string") {
		t.Errorf(`[1] * "a": got %v`, err)
	}
	if slices.ContainsFunc(in.Names(), func(n string) bool { return strings.Contains(n, ".") }) {
		t.Errorf("Names lists the hidden repeat: %v", in.Names())
	}
}
