// bitsh fork: tests of inTable's probe of a small index (README.bitsh.md,
// change 46).

package starlark

import (
	"testing"

	"go.starlark.net/syntax"
)

// TestInTableSmallIndex checks inTable against Binary's IN on sets and
// dicts of small ints, and floats equal to ints, grown past the tables
// without an index and shrunk again by deletes (deleted slots on the
// probes), as a backtracking search's sets are: every int in [-50, 50]
// looked up after each step of a xorshift-driven mix of inserts and
// deletes.
func TestInTableSmallIndex(t *testing.T) {
	x := uint64(88172645463325252)
	next := func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
	indexed := 0
	for round := 0; round < 40; round++ {
		set, dict := new(Set), NewDict(0)
		for step := 0; step < 200; step++ {
			var k Value = MakeInt(next(81) - 40)
			if next(10) == 0 {
				k = Float(next(81) - 40) // equal to the int of its value
			}
			if next(3) == 0 || set.Len() > 10+round%30 {
				set.ht.delete(k)
				dict.ht.delete(k)
			} else {
				set.ht.insert(k, None)
				dict.ht.insert(k, None)
			}
			if set.ht.index != nil && !set.ht.spread {
				indexed++
			}
			for _, table := range []Value{set, dict} {
				for i := -50; i <= 50; i++ {
					k := MakeInt(i)
					want, err := Binary(syntax.IN, k, table)
					got, ok := inTable(k, table)
					if !ok || err != nil || got != want {
						t.Fatalf("round %d step %d: %v in %v: inTable %v (%v), Binary %v (%v)", round, step, k, table, got, ok, want, err)
					}
				}
			}
		}
	}
	if indexed == 0 {
		t.Fatal("no table had a small index")
	}
}
