package native

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestSteadyStale: the Func's own array marked Stale is read and written
// without epochs (steady), its other own arrays are not.
func TestSteadyStale(t *testing.T) {
	f := &fuse.Func{Vars: 1, Arrays: 1, Scratch: []fuse.Scratch{{}, {Stale: true}, {Sparse: true}, {}}}
	body, _ := steadyArrays(f)
	if got, want := fmt.Sprint(body), "[true true false false]"; got != want {
		t.Errorf("steady arrays %s; want %s", got, want)
	}
}
