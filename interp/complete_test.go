package interp_test

import (
	"slices"
	"testing"

	"github.com/bitsh/bitsh/interp"
)

func TestIsComplete(t *testing.T) {
	for _, c := range []struct {
		src  string
		want interp.Completeness
	}{
		{"x = 1\n", interp.Complete},
		{"x = 1", interp.Complete},
		{"x = (1,\n", interp.Incomplete},
		{"def f():\n  return 1\n", interp.Incomplete},
		{"def f():\n  return 1\n\n", interp.Complete},
		{"x = +* 2\n", interp.Invalid},
		{"x = 1\ny = 2\n", interp.Invalid},
		// A syntax error inside a block waits for the blank line that ends it.
		{"def h(n):\n    a = n +* 2\n", interp.Incomplete},
		{"def h(n):\n    a = n +* 2\n    return a\n", interp.Incomplete},
		{"def h(n):\n    a = n +* 2\n    return a\n\n", interp.Invalid},
		{"x = [1,\n  +* 2]\n", interp.Incomplete},
		{"x = [1,\n  +* 2]\n\n", interp.Invalid},
		// The rest of a pasted function, after a blank line inside it.
		{"    return a\n", interp.Incomplete},
		{"    return a\n    \n", interp.Invalid},
		{"def f(:\n", interp.Invalid},
		{"def f():\n  return 1\nx = 2\n", interp.Complete},
	} {
		if got := interp.IsComplete(c.src); got != c.want {
			t.Errorf("IsComplete(%q) = %d; want %d", c.src, got, c.want)
		}
	}
}

func TestCompletions(t *testing.T) {
	in := interp.New()
	names, partial := in.Completions("x = popc")
	if partial != "popc" || !slices.Contains(names, "popcount") {
		t.Errorf("Completions(%q) = %v, %q; want popcount among them, partial popc", "x = popc", names, partial)
	}
	names, partial = in.Completions("math.sq")
	if partial != "sq" || !slices.Equal(names, []string{"sqrt"}) {
		t.Errorf("Completions(%q) = %v, %q; want [sqrt], sq", "math.sq", names, partial)
	}
}
