// bitsh fork: tests of large hash tables probed as CPython's
// (hashtable_spread.go; README.bitsh.md, change 38).

package starlark_test

import (
	"fmt"
	"math/rand"
	"testing"

	"go.starlark.net/starlark"
)

// spreadKey returns the i-th key of one of the shapes a large table meets:
// ints counting up, ints that differ only above bit 20 or 32, pairs of
// ints with one hash (alike), ints past 2^63, negative ints, strings.
func spreadKey(shape, i int) starlark.Value {
	switch shape {
	case 0:
		return starlark.MakeInt(i)
	case 1:
		return starlark.MakeInt64(int64(i) << 20)
	case 2:
		return starlark.MakeInt64(int64(i) << 32)
	case 3:
		return starlark.MakeUint64(alike(uint64(i)))
	case 4:
		return starlark.MakeUint64(1<<63 + uint64(i)*104729)
	case 5:
		return starlark.MakeInt(-i)
	}
	return starlark.String(fmt.Sprint("k", i))
}

// TestHashSpreadModel grows a dict and a set well past the size from
// which their index is probed as CPython's, deletes most of their keys,
// grows them again and so on, at random, and checks them against a model
// (a Go map and the insertion order) after each round: length, every
// key's value, membership and the order of iteration.
func TestHashSpreadModel(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	d := starlark.NewDict(0)
	s := starlark.NewSet(0)
	model := map[string]int{}  // key's repr -> value
	var order []starlark.Value // insertion order, with deleted keys
	live := map[string]int{}   // key's repr -> its index in order
	for round := 0; round < 6; round++ {
		n := 90000 + rng.Intn(60000)
		for op := 0; op < n; op++ {
			k := spreadKey(rng.Intn(7), rng.Intn(40000))
			r := k.String()
			switch x := rng.Intn(10); {
			case x < 6 || round%2 == 0 && x < 8:
				v := rng.Intn(1000)
				if err := d.SetKey(k, starlark.MakeInt(v)); err != nil {
					t.Fatal(err)
				}
				if err := s.Insert(k); err != nil {
					t.Fatal(err)
				}
				if _, ok := live[r]; !ok {
					live[r] = len(order)
					order = append(order, k)
				}
				model[r] = v
			case x < 9:
				_, found, err := d.Delete(k)
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := model[r]; ok != found {
					t.Fatalf("round %d: delete %s found %v, want %v", round, r, found, ok)
				}
				if sfound, err := s.Delete(k); err != nil || sfound != found {
					t.Fatalf("round %d: the set's delete %s found %v, %v; want %v", round, r, sfound, err, found)
				}
				delete(model, r)
				delete(live, r)
			default:
				v, found, err := d.Get(k)
				if err != nil {
					t.Fatal(err)
				}
				want, ok := model[r]
				if found != ok || ok && v.String() != fmt.Sprint(want) {
					t.Fatalf("round %d: get %s = %v, %v; want %v, %v", round, r, v, found, want, ok)
				}
			}
		}
		if d.Len() != len(model) || s.Len() != len(model) {
			t.Fatalf("round %d: len %d and %d, want %d", round, d.Len(), s.Len(), len(model))
		}
		var want []string
		for i, k := range order {
			if live[k.String()] == i {
				if _, ok := model[k.String()]; ok {
					want = append(want, k.String())
				}
			}
		}
		keys := d.Keys()
		if len(keys) != len(want) {
			t.Fatalf("round %d: %d keys, want %d", round, len(keys), len(want))
		}
		for i, k := range keys {
			if k.String() != want[i] {
				t.Fatalf("round %d: key %d is %s, want %s", round, i, k, want[i])
			}
			v, found, _ := d.Get(k)
			if ok, _ := s.Has(k); !found || !ok || v.String() != fmt.Sprint(model[k.String()]) {
				t.Fatalf("round %d: %s: %v, %v, in the set %v; want %d", round, k, v, found, ok, model[k.String()])
			}
		}
		i := 0
		for k := range s.Elements() {
			if k.String() != want[i] {
				t.Fatalf("round %d: the set's element %d is %s, want %s", round, i, k, want[i])
			}
			i++
		}
	}
}

// TestHashSpreadInsertWords: ints inserted at once into a large dict and
// set, which hold other keys, some deleted, leave them as inserting the
// ints one by one does.
func TestHashSpreadInsertWords(t *testing.T) {
	insert := new(starlark.Thread).Local(insertWordsKey).(func(starlark.Value, []uint64, []uint64) bool)
	plain, fast := starlark.NewDict(0), starlark.NewDict(0)
	ps, fs := starlark.NewSet(0), starlark.NewSet(0)
	for i := range 80000 {
		k := starlark.MakeInt(1000000 + i)
		for _, d := range []*starlark.Dict{plain, fast} {
			d.SetKey(k, starlark.MakeInt(i))
		}
		ps.Insert(k)
		fs.Insert(k)
		if i%3 == 0 {
			for _, d := range []*starlark.Dict{plain, fast} {
				d.Delete(k)
			}
			ps.Delete(k)
			fs.Delete(k)
		}
	}
	var keys, vals []uint64
	for i := range uint64(60000) {
		k := i * 7919 % 200003
		keys = append(keys, k, alike(k))
		vals = append(vals, i, i+1)
	}
	for i, k := range keys {
		plain.SetKey(starlark.MakeUint64(k), starlark.MakeUint64(vals[i]))
		ps.Insert(starlark.MakeUint64(k))
	}
	if !insert(fast, keys, vals) || !insert(fs, keys, nil) {
		t.Fatal("refused")
	}
	if plain.Len() != fast.Len() || ps.Len() != fs.Len() || plain.String() != fast.String() || ps.String() != fs.String() {
		t.Fatalf("len %d and %d (want %d and %d), or another order or values", fast.Len(), fs.Len(), plain.Len(), ps.Len())
	}
	for _, k := range keys {
		pv, _, _ := plain.Get(starlark.MakeUint64(k))
		fv, found, _ := fast.Get(starlark.MakeUint64(k))
		if ok, _ := fs.Has(starlark.MakeUint64(k)); !found || pv != fv || !ok {
			t.Fatalf("Get(%d) = %v, %v, in the set %v; want %v", k, fv, found, ok, pv)
		}
	}
}
