package builtins

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/starlarkfork"
	"go.starlark.net/starlark"
)

// TestNativeRunTimeLengths: scratch lists [V] * N whose length N is known
// only at run time, and lists built by append past 1024 elements, give,
// run as code, the interpreter's answer (the lists' contents where they
// are returned) or its error with the same text: an index past the run-time
// length, a length past the code's capacity or a negative one goes back
// to the interpreter. Each function is called directly as code and
// through the fork's hook to past its 1000th call (edgeDiff).
func TestNativeRunTimeLengths(t *testing.T) {
	needAMD64(t)
	pairs := [][2]int{{0, 0}, {3, 2}, {3, 3}, {5, 31}, {12, 4095}, {12, 4096}, {16, 1}, {2000, 5}}
	var args []starlark.Tuple
	for _, p := range pairs {
		args = append(args, starlark.Tuple{starlark.MakeInt(p[0]), starlark.MakeInt(p[1])})
	}
	cases := []string{
		// The length a shift computes (the magic finder's used and epoch).
		"def f(x, y):\n    if x > 16:\n        x = x % 17\n    a = [0] * (1 << x)\n    e = [0] * (1 << x)\n    a[y] = 7\n    e[y % len(e)] += 1\n" +
			"    s = 0\n    for v in a:\n        s = (s * 3 + v) & 0xffff\n    return len(a) * 100 + s + e[0]",
		// A length read from a parameter: its last element, and an index
		// past it (the interpreter's error).
		"def f(x, y):\n    a = [5] * x\n    a[y] = a[y] + 1\n    return a[y] * 1000000 + len(a)",
		// A sentinel list, a length that may be negative (x - y: an
		// empty list in Starlark, the interpreter's answer here).
		"def f(x, y):\n    a = [-1] * (x - y)\n    n = 0\n    for i in range(len(a)):\n        if a[i] == -1:\n            n += 1\n    return n",
		// A sentinel list appended to: the appended ints are biased as
		// its elements are.
		"def f(x, y):\n    a = [-1] * (x % 9)\n    a.append(y)\n    a.append(-1)\n    n = 0\n    for i in range(len(a)):\n        if a[i] != -1:\n            n = n * 7 + a[i] + 1\n    return n * 100 + len(a)",
		// Rebound in a loop to lists of other lengths.
		"def f(x, y):\n    t = 0\n    for m in range(x % 50):\n        a = [2] * (m + y % 7)\n        a[0] = m\n        for v in a:\n            t += v\n    return t",
		// A list built by append past 1024 elements, returned.
		"def f(x, y):\n    out = []\n    for i in range(x):\n        out.append((i * y) & 0xff)\n    return out",
		// A list of a run-time length appended to, returned.
		"def f(x, y):\n    out = [1] * (x % 100)\n    for i in range(y % 3000):\n        out.append(i)\n    return out",
		// The magic finder's pattern: appended lists read by index.
		"def f(x, y):\n    occs = []\n    for i in range(x):\n        occs.append(i ^ y)\n    used = [0] * len(occs)\n    for i in range(len(occs)):\n        used[occs[i] % len(used)] += 1\n    best = 0\n    for v in used:\n        if v > best:\n            best = v\n    return best * 100000 + len(used)",
	}
	for i, src := range cases {
		res, err := edgeDiff(src, args, strings.Contains(src, "for "), true)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if res.wrong != "" {
			t.Errorf("case %d: %s\n%s", i, res.wrong, src)
		}
		if res.refused || res.coded == 0 || res.forkCoded == 0 && starlarkfork.InUse() {
			t.Errorf("case %d: %d calls as code, %d through the fork (refused: %v)\n%s", i, res.coded, res.forkCoded, res.refused, src)
		}
	}
	// The lengths past the code's capacity: the interpreter's answers.
	big := []starlark.Tuple{{starlark.MakeInt(65535), starlark.MakeInt(2)}, {starlark.MakeInt(65536), starlark.MakeInt(2)}, {starlark.MakeInt(65537), starlark.MakeInt(2)}}
	// [5] * x holds fewer than 65,536 elements as code, out.append at
	// most 65,536.
	for i, c := range []struct {
		src   string
		coded int
	}{{cases[1], 1}, {cases[5], 2}} {
		src := c.src
		res, err := edgeDiff(src, big, strings.Contains(src, "for "), false)
		if err != nil {
			t.Fatalf("big case %d: %v", i, err)
		}
		if res.wrong != "" {
			t.Errorf("big case %d: %s\n%s", i, res.wrong, src)
		}
		if res.coded != c.coded {
			t.Errorf("big case %d: %d of %v as code\n%s", i, res.coded, big, src)
		}
	}
}
