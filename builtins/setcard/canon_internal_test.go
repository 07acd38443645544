package setcard

import (
	"os"
	"os/exec"
	"testing"
)

// TestCanonBuildsLittle checks, in a fresh process, that Canon of a few
// cards leaves the search's symmetry table unbuilt and fills only the
// value-permutation rows it needs (at most 16 per card).
func TestCanonBuildsLittle(t *testing.T) {
	if os.Getenv("BITSH_CANON_FRESH") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCanonBuildsLittle$", "-test.v")
		cmd.Env = append(os.Environ(), "BITSH_CANON_FRESH=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		t.Logf("fresh process:\n%s", out)
		return
	}
	if groupTab != nil || canonTab != nil {
		t.Fatal("tables built before the first Canon")
	}
	c, auts := Canon(HandOf(5, 17))
	if want := HandOf(0, 4); c != want || auts != 32 {
		t.Errorf("Canon(5, 17) = %v, %d; want %v, 32", c.Cards(), auts, want.Cards())
	}
	if groupTab != nil {
		t.Error("Canon built the whole symmetry table")
	}
	rows := 0
	for v := range canonTab.values {
		if canonTab.values[v] != [NumCards]Card{} {
			rows++
		}
	}
	if rows > 32 {
		t.Errorf("Canon of 2 cards filled %d value rows; want at most 32", rows)
	}
	t.Logf("%d of 1296 value rows built", rows)
}
