// bitsh fork: this file is not part of go.starlark.net (README.bitsh.md).

package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

const reserveKey = "go.starlark.net/hashtable.reserve"

// TestHashReserve: the function Thread.Local gives under
// go.starlark.net/hashtable.reserve changes nothing a program sees: a
// dict and a set filled after it hold the entries, in the order, of those
// filled without it; a frozen dict and one being iterated are left alone
// (their inserts fail as before); an application's own value under the
// key is returned as stored.
func TestHashReserve(t *testing.T) {
	thread := new(starlark.Thread)
	reserve, ok := thread.Local(reserveKey).(func(starlark.Value, int))
	if !ok {
		t.Fatalf("Local(%q) = %T; want func(starlark.Value, int)", reserveKey, thread.Local(reserveKey))
	}
	key := func(i int) starlark.Value {
		if i%3 == 0 {
			return starlark.String(strings.Repeat("k", i%7) + string(rune('a'+i%26)))
		}
		return starlark.MakeInt(i * 7919 % 10007)
	}
	for _, start := range []int{0, 1, 7, 8, 52, 53, 300} {
		for _, more := range []int{0, 1, 9, 100, 5000} {
			plain, fast := starlark.NewDict(0), starlark.NewDict(0)
			ps, fs := starlark.NewSet(0), starlark.NewSet(0)
			fill := func(from, to int, reserved bool) {
				if reserved {
					reserve(fast, to-from)
					reserve(fs, to-from)
				}
				for i := from; i < to; i++ {
					for _, d := range []*starlark.Dict{plain, fast} {
						if (d == fast) == reserved {
							if err := d.SetKey(key(i), starlark.MakeInt(i)); err != nil {
								t.Fatal(err)
							}
						}
					}
					for _, s := range []*starlark.Set{ps, fs} {
						if (s == fs) == reserved {
							if err := s.Insert(key(i)); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
			}
			fill(0, start, false)
			fill(0, start, true)
			// Deleted entries keep the order of what remains.
			for i := 0; i < start; i += 5 {
				for _, d := range []*starlark.Dict{plain, fast} {
					d.Delete(key(i))
				}
				ps.Delete(key(i))
				fs.Delete(key(i))
			}
			fill(start, start+more, false)
			fill(start, start+more, true)
			if plain.Len() != fast.Len() || ps.Len() != fs.Len() {
				t.Fatalf("start %d, more %d: len %d and %d after reserve; want %d and %d", start, more, fast.Len(), fs.Len(), plain.Len(), ps.Len())
			}
			if p, f := plain.String(), fast.String(); p != f {
				t.Fatalf("start %d, more %d: dict %s after reserve; want %s", start, more, f, p)
			}
			if p, f := ps.String(), fs.String(); p != f {
				t.Fatalf("start %d, more %d: set %s after reserve; want %s", start, more, f, p)
			}
			for i := 0; i < start+more; i++ {
				pv, pok, _ := plain.Get(key(i))
				fv, fok, _ := fast.Get(key(i))
				if pok != fok || pok && pv != fv {
					t.Fatalf("start %d, more %d: Get(%v) = %v, %v; want %v, %v", start, more, key(i), fv, fok, pv, pok)
				}
			}
		}
	}

	// Frozen, and being iterated: untouched, and the inserts fail.
	d := starlark.NewDict(0)
	d.SetKey(starlark.MakeInt(1), starlark.MakeInt(2))
	iter := d.Iterate()
	reserve(d, 1000)
	if err := d.SetKey(starlark.MakeInt(3), starlark.MakeInt(4)); err == nil || !strings.Contains(err.Error(), "during iteration") {
		t.Errorf("insert into a dict being iterated after reserve: %v; want the iteration's error", err)
	}
	var k starlark.Value
	if !iter.Next(&k) || k != starlark.MakeInt(1) {
		t.Errorf("the iteration after reserve gave %v; want 1", k)
	}
	iter.Done()
	d.Freeze()
	reserve(d, 1000)
	if err := d.SetKey(starlark.MakeInt(3), starlark.MakeInt(4)); err == nil || !strings.Contains(err.Error(), "frozen") {
		t.Errorf("insert into a frozen dict after reserve: %v; want the frozen error", err)
	}
	reserve(starlark.NewList(nil), 10) // neither: nothing

	thread.SetLocal(reserveKey, "mine")
	if v := thread.Local(reserveKey); v != "mine" {
		t.Errorf("Local(%q) = %v after SetLocal; want the application's value", reserveKey, v)
	}
}
