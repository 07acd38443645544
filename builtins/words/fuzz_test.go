package words_test

import (
	"context"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/bitsh/bitsh/builtins/words"
)

// wordsOf reads little-endian words from data (a short tail is dropped).
func wordsOf(data []byte) []uint64 {
	out := make([]uint64, len(data)/8)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(data[8*i:])
	}
	return out
}

func FuzzApply(f *testing.F) {
	f.Add([]byte("0123456789abcdef\x00\x00\x00\x00\x00\x00\x00\x00xxxxxxxx"), byte(8), uint64(0))
	f.Add([]byte{}, byte(0), uint64(1))
	f.Add([]byte("\xff\xff\xff\xff\xff\xff\xff\xff\x40\x00\x00\x00\x00\x00\x00\x00"), byte(6), uint64(64))
	f.Fuzz(func(t *testing.T, data []byte, opb byte, x uint64) {
		op := allOps[int(opb)%len(allOps)]
		w := wordsOf(data)
		a, b := w[:len(w)/2], w[len(w)/2:len(w)/2*2]
		dst := make([]uint64, len(a))
		bad := words.Apply(op, dst, a, b)
		for i := range a {
			z, ok := naive(op, a[i], b[i])
			if !ok {
				if bad != i {
					t.Fatalf("Apply(%v): zero divisor at %d reported at %d", op, i, bad)
				}
				break
			}
			if dst[i] != z {
				t.Fatalf("%#x %v %#x = %#x; want %#x", a[i], op, b[i], dst[i], z)
			}
		}
		ok := words.ApplyRight(op, dst, a, x)
		for i := range a {
			z, zok := naive(op, a[i], x)
			if ok != zok || ok && dst[i] != z {
				t.Fatalf("%#x %v %#x = %#x (ok %v); want %#x (ok %v)", a[i], op, x, dst[i], ok, z, zok)
			}
		}
		bad = words.ApplyLeft(op, dst, x, b)
		for i := range b {
			z, ok := naive(op, x, b[i])
			if !ok {
				if bad != i {
					t.Fatalf("ApplyLeft(%v): zero divisor at %d reported at %d", op, i, bad)
				}
				break
			}
			if dst[i] != z {
				t.Fatalf("%#x %v %#x = %#x; want %#x", x, op, b[i], dst[i], z)
			}
		}
	})
}

func FuzzChecker(f *testing.F) {
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00"), uint64(0x03f79d71b4cb0a89), byte(6), false)
	f.Add([]byte("abcdefghabcdefghijklmnop"), uint64(3), byte(64), true)
	f.Fuzz(func(t *testing.T, data []byte, magic uint64, bitsb byte, withValues bool) {
		keys := wordsOf(data)
		if len(keys) > 64 {
			keys = keys[:64]
		}
		b := uint(bitsb%64) + 1
		var values []uint64
		if withValues {
			values = make([]uint64, len(keys))
			for i, k := range keys {
				values[i] = k % 3
			}
		}
		want := naiveHashOK(keys, values, magic, b)
		if got := words.HashOK(keys, values, magic, b); got != want {
			t.Fatalf("HashOK(%d keys, values %v, %#x, %d) = %v; want %v", len(keys), withValues, magic, b, got, want)
		}
	})
}

func FuzzSort(f *testing.F) {
	f.Add([]byte("zyxwvutsrqponmlkjihgfedcba0123456789"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Bytes as words: many repeats, the hard case for quicksort.
		a := make([]uint64, len(data))
		for i, c := range data {
			a[i] = uint64(c)
		}
		want := slices.Clone(a)
		slices.Sort(want)
		if err := words.Sort(context.Background(), a); err != nil || !slices.Equal(a, want) {
			t.Fatalf("Sort: %v, err %v; want %v", a, err, want)
		}
	})
}
