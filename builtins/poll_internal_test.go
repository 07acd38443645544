package builtins

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// TestMakeSlice: makeSlice returns a zeroed slice of the length asked,
// small or large, and for a large one the interruption error, naming the
// builtin, once the run is cancelled.
func TestMakeSlice(t *testing.T) {
	th := &starlark.Thread{}
	ctx, cancel := context.WithCancelCause(context.Background())
	SetEnv(th, Env{Context: ctx})
	for _, n := range []int{0, 10, asyncAllocBytes / 8, asyncAllocBytes} {
		s, err := makeSlice[uint64](th, "f", n)
		if err != nil || len(s) != n {
			t.Fatalf("makeSlice(%d) = len %d, %v", n, len(s), err)
		}
		for i, x := range s {
			if x != 0 {
				t.Fatalf("makeSlice(%d)[%d] = %d, want 0", n, i, x)
			}
		}
	}
	if s, err := makeSlice[starlark.Value](nil, "f", asyncAllocBytes); err != nil || len(s) != asyncAllocBytes {
		t.Fatalf("makeSlice without a thread: len %d, %v", len(s), err)
	}
	cancel(errors.New("stop"))
	if _, err := makeSlice[uint64](th, "f", 64); err != nil {
		t.Errorf("a small makeSlice after the cancellation: %v, want none (make takes microseconds)", err)
	}
	_, err := makeSlice[uint64](th, "f", 1<<24)
	if err == nil || !strings.Contains(err.Error(), "f: interrupted: stop") {
		t.Errorf("makeSlice of 128 MiB after the cancellation: %v, want the interruption", err)
	}
}
