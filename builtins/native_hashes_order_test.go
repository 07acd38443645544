package builtins

import (
	"testing"

	"go.starlark.net/starlark"
)

// TestNativeHashOrder: a set's or dict's state read after a call that
// changes it, in one expression or one call's arguments, is read as
// Starlark reads it: after the call.
func TestNativeHashOrder(t *testing.T) {
	needAMD64(t)
	pre := `
def rec(b, k):
    if k == 0:
        return 0
    b[k] = k
    return rec(b, k - 1) + 1

def two(p, q):
    return p * 10 + q

`
	for i, body := range []string{
		"def f(x, y):\n    d = {}\n    d[50] = 1\n    for i in range(1):\n        pass\n    return min(rec(d, x % 5 + 1), len(d))\n",
		"def f(x, y):\n    d = {}\n    d[50] = 1\n    for i in range(1):\n        pass\n    return two(rec(d, x % 5 + 1), len(d))\n",
		"def f(x, y):\n    d = {}\n    d[50] = 1\n    for i in range(1):\n        pass\n    return rec(d, x % 5 + 1) if len(d) > 0 else 5\n",
		"def f(x, y):\n    d = {}\n    d[50] = 1\n    for i in range(1):\n        pass\n    return (x in d) or rec(d, 2) > len(d)\n",
		"def f(x, y):\n    d = {}\n    d[50] = 1\n    for i in range(1):\n        pass\n    s = rec(d, 3) * 10 - len(d) + rec(d, 7) * len(d)\n    return s\n",
	} {
		src := pre + body
		var args []starlark.Tuple
		for x := 0; x < 6; x++ {
			args = append(args, starlark.Tuple{starlark.MakeInt(x), starlark.MakeInt(1)})
		}
		res, err := edgeDiff(src, args, true, false)
		if err != nil {
			t.Fatal(err)
		}
		if res.wrong != "" || res.refused || res.coded == 0 {
			t.Errorf("case %d: %d calls as code (refused: %v): %s\n%s", i, res.coded, res.refused, res.wrong, src)
		}
	}
}
