package builtins

import (
	"strings"
	"testing"
)

// TestNativeLoopBoolGlobals: loops of top-level code that assign a global
// holding a bool (found = True) run as code and leave what the
// interpreter leaves: output, globals (the bool a bool), errors and
// tracebacks; one that assigns it an int too stays interpreted.
func TestNativeLoopBoolGlobals(t *testing.T) {
	requireLoops(t)
	cases := []struct {
		name, src string
		code      bool
	}{
		{"found", "found = False\nhits = 0\nfor i in range(5000):\n    if i * i % 9973 == 7:\n        found = True\n        hits += 1\nprint(found, hits)\n", true},
		{"cleared", "ok = True\nfor i in range(3000):\n    if i % 1999 == 1998:\n        ok = i < 10\nprint(ok)\n", true},
		{"while not done", "done = False\ni = 0\nwhile not done:\n    i += 1\n    done = i * 7 % 10007 == 3\nprint(i, done)\n", true},
		{"an int too", "flag = False\nfor i in range(3000):\n    if i == 2500:\n        flag = 1\nprint(flag)\n", false},
		{"error after", "seen = False\nt = 0\nfor i in range(4000):\n    if i > 2000:\n        seen = not seen\n    t += 100 // (3500 - i)\nprint(seen, t)\n", false}, // (its runs fail: the interpreter finishes it)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := diffLoops(t, c.src, true)
			coded := false
			for _, l := range got.loops {
				coded = coded || l.Code > 0
			}
			if coded != c.code {
				t.Errorf("ran as code: %v, want %v (%+v)", coded, c.code, got.loops)
			}
			if c.code && !strings.Contains(got.globals, "(bool)") {
				t.Errorf("no bool among the globals:\n%s", got.globals)
			}
		})
	}
}
