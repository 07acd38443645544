package native

import (
	"fmt"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestSteadyStale: the Func's own array marked Stale is read and written
// without epochs (steady) and is not dense (no mark, never cleared); its
// other own arrays are not steady, and the long one not Sparse is dense.
func TestSteadyStale(t *testing.T) {
	f := &fuse.Func{Vars: 1, Arrays: 1, IsExact: true, Scratch: []fuse.Scratch{{}, {Stale: true, Len: 1 << 10}, {Sparse: true, Len: 1 << 10}, {Len: 1 << 10}}}
	body, _ := steadyArrays(f)
	if got, want := fmt.Sprint(body), "[true true false false]"; got != want {
		t.Errorf("steady arrays %s; want %s", got, want)
	}
	g := &amd64Gen{f: f, proc: -1}
	g.findDense()
	if got, want := fmt.Sprint(g.dense), "[false false false true]"; got != want {
		t.Errorf("dense arrays %s; want %s", got, want)
	}
}
