package builtins

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/starlarkfork"
	"github.com/bitsh/bitsh/internal/testscale"
)

// TestNativeRandomListOps: random functions of randfunc.ListOps give, as code
// and through the fork's hook, the interpreter's answer or its error on
// every pair of edge ints.
func TestNativeRandomListOps(t *testing.T) {
	if native.Ready(native.AMD64) != nil {
		t.Skip("no x86-64 code on this machine")
	}
	n, forked := 120, 8
	if testscale.Short() {
		n, forked = 40, 4
	}
	sum, refused := edgeSweep(t, 0, n, forked, 0x115705, randfunc.ListOps)
	t.Logf("%d functions (%d refused): %d calls as code, %d calls through the fork as code", n, refused, sum.coded, sum.forkCoded)
	if refused > n/10 || sum.coded < 20*n || sum.forkCoded == 0 && starlarkfork.InUse() {
		t.Errorf("%d calls as code, %d through the fork, %d functions refused: the test tests little", sum.coded, sum.forkCoded, refused)
	}
}
