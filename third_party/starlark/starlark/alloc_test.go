// bitsh fork: tests of the allocation check of alloc.go (see
// ../README.bitsh.md).

package starlark_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

// allocCheckKey is alloc.go's key, spelled as an application spells it
// (the fork exports no name).
const allocCheckKey = "go.starlark.net/alloc-check"

type allocCall struct {
	what  string
	bytes int64
}

// checkedThread returns a thread whose allocation check records its calls
// and refuses results above refuse bytes.
func checkedThread(calls *[]allocCall, refuse int64) *starlark.Thread {
	thread := new(starlark.Thread)
	thread.SetLocal(allocCheckKey, func(th *starlark.Thread, what string, n int64) error {
		if th != thread {
			return errors.New("check called with another thread")
		}
		*calls = append(*calls, allocCall{what, n})
		if n > refuse {
			return fmt.Errorf("%s: refused %d bytes", what, n)
		}
		return nil
	})
	return thread
}

func TestAllocCheck(t *testing.T) {
	const mib = 1 << 20
	setup := `
    s = "a" * (1 << 19)
    b = b"a" * (1 << 19)
    l = [0] * (1 << 16)
    t = tuple(l)
`
	for _, c := range []struct {
		code  string
		what  string // "" for no call
		bytes int64
	}{
		{"x = s + s", "", 0}, // exactly 1 MiB: not checked
		{"x = s + s + s", "string + string", 3 * mib / 2},
		{"x = b + b + b", "bytes + bytes", 3 * mib / 2},
		{"x = l + l", "list + list", 2 << 20}, // 2^17 values of 16 bytes
		{"x = t + t", "tuple + tuple", 2 << 20},
		{"x = l * 3", "list * int", 3 << 20},
		{"x = 3 * l", "int * list", 3 << 20},
		{"x = s * 4", "string * int", 2 << 20},
		{"x = t * 2", "tuple * int", 2 << 20},
		{"x = l * 0", "", 0},
		{"x = l * -1", "", 0},
		{"l *= 2", "list * int", 2 << 20},
		{"l.extend(l)", "list.extend", growthBytes(1<<16, 1<<16)}, // append grows the array to 2.46 times
		{"l.extend(t)", "list.extend", growthBytes(1<<16, 1<<16)},
		{"l += l", "list += list", growthBytes(1<<16, 1<<16)},
		{"l += t", "list += tuple", growthBytes(1<<16, 1<<16)},
		{"l.append(0); l.extend(l)", "list.extend", growthBytes(1<<16, 1<<16)},
		{"s += s + s", "string + string", 3 * mib / 2}, // s + s is 1 MiB, s += that 1.5
		{"x = 7 * 9 + 1", "", 0},
		{"l.extend(range(10))", "list.extend", growthBytes(1<<16, 10)}, // l's array is full
		{"l.append(0); l += [1, 2]", "", 0},                            // its new array has room
		{"l.append(0); l.extend([1, 2])", "", 0},
		{"l.append(0)", "list.append", growthBytes(1<<16, 1)}, // l's array is full
		{"l.append(0); l.append(1)", "list.append", growthBytes(1<<16, 1)},
		{"x = [i for i in range(1 << 15)]", "", 0}, // its arrays stay under 1 MiB
	} {
		var calls []allocCall
		thread := checkedThread(&calls, 1<<62)
		code := "def f():\n" + setup + "    " + c.code + "\nf()\n"
		if _, err := starlark.ExecFile(thread, "test.star", code, nil); err != nil {
			t.Errorf("%s: %v", c.code, err)
			continue
		}
		var want []allocCall
		if c.what != "" {
			want = []allocCall{{c.what, c.bytes}}
		}
		if c.what != "list.append" && strings.HasPrefix(c.code, "l.append(0); ") && len(calls) > 0 && calls[0].what == "list.append" {
			calls = calls[1:] // the append that makes room, checked on its own above
		}
		// The growth of a list's array is estimated as append computes
		// it, up to the rounding to a size class: within 1%.
		if len(calls) == 1 && len(want) == 1 && calls[0].what == want[0].what &&
			calls[0].bytes != want[0].bytes && strings.HasPrefix(c.what, "list") && !strings.Contains(c.what, "*") {
			if d := calls[0].bytes - want[0].bytes; d*100 < -want[0].bytes || d*100 > want[0].bytes {
				t.Errorf("%s: checked %d bytes, want about %d", c.code, calls[0].bytes, want[0].bytes)
			}
			continue
		}
		if fmt.Sprint(calls) != fmt.Sprint(want) {
			t.Errorf("%s: checks %v, want %v", c.code, calls, want)
		}
	}
}

// growthBytes is the size of the array append gives a full list of n
// elements grown by m, as the runtime computes it.
func growthBytes(n, m int) int64 {
	s := make([]starlark.Value, n)
	s = append(s, make([]starlark.Value, m)...)
	return int64(cap(s)) * 16
}

// TestAllocCheckRefuses: a refusal fails the operation with the check's
// error, before it allocates or changes anything.
func TestAllocCheckRefuses(t *testing.T) {
	for _, c := range []struct{ code, want string }{
		{"s = 'ab'\nfor _ in range(64):\n    s = s + s", "string + string: refused 67108864 bytes"},
		{"for _ in range(64):\n    l = l + l", "list + list: refused 67108864 bytes"},
		{"for _ in range(64):\n    l.extend(l)", "list.extend: refused "},
		{"for _ in range(64):\n    l += l", "list += list: refused "},
		{"for _ in range(64):\n    l *= 2", "list * int: refused 67108864 bytes"},
		{"x = l * 100000000000000000000", "list * int: refused 9223372036854775807 bytes"},
	} {
		var calls []allocCall
		thread := checkedThread(&calls, 32<<20)
		_, err := starlark.ExecFile(thread, "test.star", "def f():\n    l = [1]\n    "+strings.ReplaceAll(c.code, "\n", "\n    ")+"\nf()", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.code, err, c.want)
		}
	}
	// A refused l.extend(l) leaves l as it was.
	var calls []allocCall
	globals, err := starlark.ExecFile(checkedThread(&calls, 32<<20), "test.star", "g = [1]\ndef f():\n    for _ in range(64):\n        g.extend(g)\nf()", nil)
	if err == nil {
		t.Fatal("g.extend(g) was not refused")
	}
	// g doubled while its array (as append grows it) fit in 32 MiB.
	if n := globals["g"].(*starlark.List).Len(); n < 1<<19 || n > 1<<21 {
		t.Errorf("after the refusal len(g) = %d, want 2^19..2^21", n)
	}
}

// TestAllocCheckOptional: without a check, or with a value of another
// type under the key, operations run as upstream's.
func TestAllocCheckOptional(t *testing.T) {
	for _, v := range []any{nil, "not a function", func(string, int64) error { return errors.New("wrong type") }} {
		thread := new(starlark.Thread)
		if v != nil {
			thread.SetLocal(allocCheckKey, v)
		}
		globals, err := starlark.ExecFile(thread, "test.star", "def f():\n    l = [0] * (1 << 17)\n    l.extend(l)\n    l += l\n    return l + l\nx = f()\ny = 'a' * (1 << 21) + 'b' * (1 << 21)", nil)
		if err != nil {
			t.Fatalf("check %T: %v", v, err)
		}
		if n := globals["x"].(*starlark.List).Len(); n != 1<<20 {
			t.Errorf("check %T: len(x) = %d, want %d", v, n, 1<<20)
		}
	}
}

// BenchmarkAllocCheckLoop: + and * on ints and small strings and lists,
// which pay for the size computation only, with and without a check.
func BenchmarkAllocCheckLoop(b *testing.B) {
	const src = `
def loop(n):
    x = 0
    s = ""
    for i in range(n):
        x = x + i * 3
        s = "ab" + "c"
        l = [i] + [x]
    return x
`
	for _, checked := range []bool{false, true} {
		b.Run(fmt.Sprintf("checked=%v", checked), func(b *testing.B) {
			thread := new(starlark.Thread)
			if checked {
				thread.SetLocal(allocCheckKey, func(*starlark.Thread, string, int64) error { return nil })
			}
			g, err := starlark.ExecFile(thread, "loop.star", src, nil)
			if err != nil {
				b.Fatal(err)
			}
			const n = 1 << 14
			for b.Loop() {
				if _, err := starlark.Call(thread, g["loop"], starlark.Tuple{starlark.MakeInt(n)}, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/iter")
		})
	}
}

// TestAllocCheckAppend: a list built one element at a time, by a
// comprehension or by list.append, asks the check before each growth of
// its array past 1 MiB, and a refusal stops it with the check's error.
func TestAllocCheckAppend(t *testing.T) {
	for _, c := range []struct{ code, what string }{
		{"x = [i for i in range(1 << 20)]", "list comprehension"},
		{"x = []\n    for i in range(1 << 20):\n        x.append(i)", "list.append"},
	} {
		var calls []allocCall
		thread := checkedThread(&calls, 4<<20)
		code := "def f():\n    " + c.code + "\nf()\n"
		_, err := starlark.ExecFile(thread, "test.star", code, nil)
		if err == nil || !strings.Contains(err.Error(), c.what+": refused") {
			t.Errorf("%s: %v; want the check's refusal", c.code, err)
		}
		if len(calls) < 2 {
			t.Fatalf("%s: checks %v; want each growth past 1 MiB", c.code, calls)
		}
		for i, call := range calls {
			if call.what != c.what || call.bytes <= 1<<20 || i > 0 && call.bytes <= calls[i-1].bytes {
				t.Errorf("%s: checks %v; want %q, growing, each over 1 MiB", c.code, calls, c.what)
				break
			}
		}
		if last := calls[len(calls)-1].bytes; last <= 4<<20 {
			t.Errorf("%s: the last check asked %d bytes, which the check allows", c.code, last)
		}
	}
}
