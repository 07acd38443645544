// bitsh fork: tests of the compact hash table and its int fast paths
// (README.bitsh.md, change 28).

package starlark

import (
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"testing"

	"go.starlark.net/syntax"
)

// edgeInts returns ints around every boundary of Int's representations:
// int32, words, negative words, wide and big values, both signs.
func edgeInts() []Int {
	var out []Int
	bounds := []*big.Int{
		big.NewInt(0), big.NewInt(1), big.NewInt(math.MaxInt32), big.NewInt(math.MinInt32),
		big.NewInt(1 << 32), big.NewInt(1 << 40), big.NewInt(1 << 56), big.NewInt(math.MaxInt64),
		new(big.Int).SetUint64(math.MaxUint64), new(big.Int).Lsh(big.NewInt(1), 100),
		new(big.Int).Lsh(big.NewInt(1), 200),
	}
	for _, b := range bounds {
		for d := int64(-2); d <= 2; d++ {
			v := new(big.Int).Add(b, big.NewInt(d))
			out = append(out, MakeBigInt(v), MakeBigInt(new(big.Int).Neg(v)))
		}
	}
	return out
}

// TestKeyHashEqual checks keyHash against Int.Hash and keyEqual against
// Equal on ints of every representation, and on ints against floats and
// strings.
func TestKeyHashEqual(t *testing.T) {
	ints := edgeInts()
	var vals []Value
	for _, i := range ints {
		vals = append(vals, i)
	}
	vals = append(vals, Float(0), Float(1), Float(-1), Float(math.MaxInt32), Float(1<<40), String("1"), None, True)
	for _, x := range vals {
		want, werr := x.Hash()
		got, gerr := keyHash(x)
		if got != want || (werr == nil) != (gerr == nil) {
			t.Errorf("keyHash(%v) = %d, %v; Hash: %d, %v", x, got, gerr, want, werr)
		}
		for _, y := range vals {
			want, werr := Equal(x, y)
			got, gerr := keyEqual(x, y)
			if got != want || (werr == nil) != (gerr == nil) {
				t.Errorf("keyEqual(%v, %v) = %v, %v; Equal: %v, %v", x, y, got, gerr, want, werr)
			}
		}
	}
	// The same values made by other constructors and operations: the
	// representation of each value is unique, so equality holds.
	for _, i := range ints {
		j := i.Add(MakeInt(1)).Sub(MakeInt(1))
		if eq, _ := keyEqual(i, j); !eq {
			t.Errorf("keyEqual(%v, %v) = false", i, j)
		}
		if h1, _ := keyHash(i); h1 != func() uint32 { h, _ := j.Hash(); return h }() {
			t.Errorf("keyHash(%v) differs from the hash of the same value computed", i)
		}
	}
}

// model is a hash table as a Go map and a slice in insertion order.
type model struct {
	keys []string
	vals map[string]Value
}

func (m *model) insert(k string, v Value) {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

func (m *model) delete(k string) bool {
	if _, ok := m.vals[k]; !ok {
		return false
	}
	delete(m.vals, k)
	for i, x := range m.keys {
		if x == k {
			m.keys = append(m.keys[:i:i], m.keys[i+1:]...)
			break
		}
	}
	return true
}

// TestHashtableAgainstModel runs random inserts, updates, lookups and
// deletes of int keys of every representation, strings, floats and
// tuples on dicts of several sizes, and checks each result, the length
// and the iteration order (insertion order, deleted keys dropped,
// reinserted keys last) against a model.
func TestHashtableAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	ints := edgeInts()
	key := func(n int) Value {
		switch rng.Intn(6) {
		case 0:
			return ints[rng.Intn(len(ints))]
		case 1:
			return String(fmt.Sprint("k", rng.Intn(n)))
		case 2:
			return Tuple{MakeInt(rng.Intn(n)), MakeInt(rng.Intn(3))}
		case 3:
			return Float(rng.Intn(n)) // equal to the int of the same value
		}
		return MakeInt64(int64(rng.Intn(n)) - int64(n/2))
	}
	// name gives the key's identity as the model sees it: an int and a
	// float of the same value are the same key.
	name := func(k Value) string {
		if f, ok := k.(Float); ok && f == Float(int64(f)) {
			return MakeInt64(int64(f)).String()
		}
		return k.String()
	}
	for _, n := range []int{4, 12, 40, 300, 2000} {
		for _, presize := range []int{0, n} {
			d := NewDict(presize)
			m := &model{vals: map[string]Value{}}
			for step := 0; step < 20*n; step++ {
				k := key(n)
				switch op := rng.Intn(10); {
				case op < 4:
					v := MakeInt(step)
					if err := d.SetKey(k, v); err != nil {
						t.Fatal(err)
					}
					m.insert(name(k), v)
				case op < 7:
					v, found, err := d.Get(k)
					want, wfound := m.vals[name(k)]
					if err != nil || found != wfound || found && v != want {
						t.Fatalf("n=%d step %d: Get(%v) = %v, %v, %v; want %v, %v", n, step, k, v, found, err, want, wfound)
					}
				default:
					_, found, err := d.ht.delete(k)
					if err != nil || found != m.delete(name(k)) {
						t.Fatalf("n=%d step %d: delete(%v) = %v, %v", n, step, k, found, err)
					}
				}
				if d.Len() != len(m.keys) {
					t.Fatalf("n=%d step %d: Len %d, want %d", n, step, d.Len(), len(m.keys))
				}
				if step%97 == 0 || step == 20*n-1 {
					keys := d.Keys()
					for i, k := range keys {
						if name(k) != m.keys[i] {
							t.Fatalf("n=%d step %d: key %d is %v, want %v", n, step, i, k, m.keys[i])
						}
					}
					var seen []Value
					for k, v := range d.Entries() {
						if v != m.vals[name(k)] {
							t.Fatalf("n=%d step %d: entry %v: %v", n, step, k, v)
						}
						seen = append(seen, k)
					}
					if len(seen) != len(keys) {
						t.Fatalf("n=%d step %d: Entries gave %d keys, want %d", n, step, len(seen), len(keys))
					}
				}
			}
		}
	}
}

// TestHashtableStack adds and removes the last element again and again,
// as a backtracking search does, on small and indexed sets, and checks
// membership and order.
func TestHashtableStack(t *testing.T) {
	for _, base := range []int{0, 5, 7, 8, 9, 20, 100} {
		s := new(Set)
		for i := range base {
			s.Insert(MakeInt(i))
		}
		for round := range 1000 {
			k := MakeInt(1000 + round%3)
			if err := s.Insert(k); err != nil {
				t.Fatal(err)
			}
			if ok, _ := s.Has(k); !ok || s.Len() != base+1 {
				t.Fatalf("base %d round %d: Has %v, Len %d", base, round, ok, s.Len())
			}
			if found, err := s.Delete(k); !found || err != nil {
				t.Fatalf("base %d round %d: Delete %v %v", base, round, found, err)
			}
			if ok, _ := s.Has(k); ok || s.Len() != base {
				t.Fatalf("base %d round %d: Has after delete, Len %d", base, round, s.Len())
			}
		}
		got := s.String()
		want := new(Set)
		for i := range base {
			want.Insert(MakeInt(i))
		}
		if got != want.String() {
			t.Errorf("base %d: %s, want %s", base, got, want.String())
		}
	}
}

// TestHashtableErrors checks the messages of a frozen table, a table
// being iterated and an unhashable key.
func TestHashtableErrors(t *testing.T) {
	d := NewDict(0)
	d.SetKey(MakeInt(1), None)
	it := d.Iterate()
	if err := d.SetKey(MakeInt(2), None); err == nil || err.Error() != "cannot insert into hash table during iteration" {
		t.Errorf("insert while iterating: %v", err)
	}
	if _, _, err := d.Delete(MakeInt(1)); err == nil || err.Error() != "cannot delete from hash table during iteration" {
		t.Errorf("delete while iterating: %v", err)
	}
	it.Done()
	d.Freeze()
	if err := d.SetKey(MakeInt(1), None); err == nil || err.Error() != "cannot insert into frozen hash table" {
		t.Errorf("insert frozen: %v", err)
	}
	if err := d.Clear(); err == nil || err.Error() != "cannot clear frozen hash table" {
		t.Errorf("clear frozen: %v", err)
	}
	e := NewDict(0)
	if _, _, err := e.Get(NewList(nil)); err == nil || err.Error() != "unhashable type: list" {
		t.Errorf("unhashable: %v", err)
	}
}

func BenchmarkIntDict(b *testing.B) {
	for range b.N {
		d := NewDict(0)
		for i := range 100000 {
			d.SetKey(MakeInt(i*7), MakeInt(i))
		}
		for i := range 200000 {
			d.Get(MakeInt(i))
		}
	}
}

// TestInTableAgainstBinary checks inTable, where it answers, against
// Binary's IN on sets and dicts holding ints of every representation,
// floats, strings and tuples, for keys of those kinds and unhashable ones.
func TestInTableAgainstBinary(t *testing.T) {
	var keys []Value
	for _, i := range edgeInts() {
		keys = append(keys, i)
	}
	keys = append(keys, Float(1), Float(-2147483648), String("a"), Tuple{MakeInt(1)}, NewList(nil), NewDict(0), None)
	for n := 0; n <= 40; n += 5 {
		set, dict := new(Set), NewDict(0)
		for i, k := range keys {
			if i%3 == n%3 || i < n {
				if _, err := k.Hash(); err == nil {
					set.Insert(k)
					dict.SetKey(k, None)
				}
			}
		}
		for _, table := range []Value{set, dict, new(Set), new(Dict)} {
			for _, k := range keys {
				want, werr := Binary(syntax.IN, k, table)
				got, ok := inTable(k, table)
				if !ok {
					// It declines an unhashable key only; Binary then
					// answers (False for a dict) or fails (a set).
					if _, err := k.Hash(); err == nil {
						t.Errorf("%v in %v: inTable declined, Binary gives %v, %v", k, table, want, werr)
					}
					continue
				}
				if werr != nil || got != want {
					t.Errorf("%v in %v: inTable %v, Binary %v, %v", k, table, got, want, werr)
				}
			}
		}
	}
}

// TestCallFastAgainstCall checks callFast, where it answers, against the
// call of the builtin: len of every kind of value, max and min of pairs
// of ints of every representation, floats and strings.
func TestCallFastAgainstCall(t *testing.T) {
	thread := new(Thread)
	vals := []Value{MakeInt(1), Float(2), String("abc"), String(""), NewList([]Value{None, None}), Tuple{None},
		NewDict(0), new(Set), None, Bytes("ab")}
	for _, i := range edgeInts() {
		vals = append(vals, i)
	}
	check := func(fn *Builtin, args ...Value) {
		z := callFast(thread, fn, args)
		if z == nil {
			return
		}
		want, err := Call(thread, fn, Tuple(args), nil)
		if err != nil || z != want { // rangeValue is comparable: == compares its fields
			t.Errorf("%s%v: callFast %v, Call %v, %v", fn.Name(), Tuple(args), z, want, err)
		}
	}
	for _, x := range vals {
		check(lenBuiltin, x)
		check(rangeBuiltin, x)
		for _, y := range vals {
			check(maxBuiltin, x, y)
			check(minBuiltin, x, y)
			check(rangeBuiltin, x, y)
			for _, z := range []Value{MakeInt(0), MakeInt(1), MakeInt(-3), MakeInt(math.MaxInt32), MakeInt(math.MinInt32), MakeInt(1 << 40), String("a")} {
				check(rangeBuiltin, x, y, z)
			}
		}
	}
	check(rangeBuiltin)
	check(rangeBuiltin, MakeInt(1), MakeInt(2), MakeInt(3), MakeInt(4))
	if callFast(thread, lenBuiltin, []Value{NewList(nil)}) == nil || callFast(thread, maxBuiltin, []Value{MakeInt(1), MakeInt(2)}) == nil {
		t.Errorf("callFast declined len([]) or max(1, 2)")
	}
}
