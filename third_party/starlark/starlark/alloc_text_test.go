// bitsh fork: tests of the allocation check of the builtins that build
// text, print, str, repr, str.join and json.encode (alloc.go, see
// ../README.bitsh.md).

package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/lib/json"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestAllocCheckText: each builtin that builds text from its arguments
// asks the check before it holds 8 copies of a 1 MiB string, and a
// refusal fails it with the check's error; small results ask nothing, and
// without a refusal the results are unchanged.
func TestAllocCheckText(t *testing.T) {
	const mib = 1 << 20
	predeclared := starlark.StringDict{"json": json.Module}
	setup := "s = 'a' * (1 << 20)\nb = b'a' * (3 << 20)\nl = [s] * 8\n"
	for _, c := range []struct {
		code string
		what string // the operation the check is asked for
		want string // the result's length, unrefused
	}{
		{"print(s, s, s, s, s, s, s, s)", "print", ""},
		{"print(sep = s, *l)", "print", ""},
		{"print(l)", "print", ""},
		{"x = str(l)", "str", "len(x) == 8 * (len(s) + 4)"},
		{"x = repr(l)", "repr", "len(x) == 8 * (len(s) + 4)"},
		{"x = str({'k': l})", "str", "len(x) == 8 * (len(s) + 4) + 7"},
		{"x = str(b)", "str", "len(x) == len(b)"},
		{"x = s.join(l)", "join", "len(x) == 15 * len(s)"},
		{"x = ''.join(l)", "join", "len(x) == 8 * len(s)"},
		{"x = json.encode(l)", "json.encode", "len(x) == 8 * (len(s) + 3) + 1"},
		{"x = json.encode({'k': l})", "json.encode", "len(x) == 8 * (len(s) + 3) + 1 + 6"},
	} {
		// Refused past 4 MiB: an error naming the operation (str(b)
		// needs 3 MiB, and is only checked).
		var calls []allocCall
		thread := checkedThread(&calls, 4*mib)
		thread.Print = func(*starlark.Thread, string) {}
		_, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "test.star", setup+c.code+"\n", predeclared)
		if c.code != "x = str(b)" && (err == nil || !strings.Contains(err.Error(), c.what+": refused")) {
			t.Errorf("%s with a check refusing 4 MiB: %v, want %q's refusal", c.code, err, c.what)
		}
		// Unrefused: the result, and checks only of more than 1 MiB.
		calls = nil
		thread = checkedThread(&calls, 1<<62)
		thread.Print = func(*starlark.Thread, string) {}
		code := setup + c.code + "\n"
		if c.want != "" {
			code += "if not (" + c.want + "):\n    fail('wrong result')\n"
		}
		if _, err := starlark.ExecFileOptions(&syntax.FileOptions{TopLevelControl: true}, thread, "test.star", code, predeclared); err != nil {
			t.Errorf("%s: %v", c.code, err)
		}
		seen := false
		for _, call := range calls {
			seen = seen || call.what == c.what
			if call.bytes <= mib {
				t.Errorf("%s: checked %v, of 1 MiB or less", c.code, call)
			}
		}
		if !seen {
			t.Errorf("%s: checks %v, want one of %q", c.code, calls, c.what)
		}
	}
}

// TestAllocCheckTextSmall: small text asks no check.
func TestAllocCheckTextSmall(t *testing.T) {
	var calls []allocCall
	thread := checkedThread(&calls, 1<<62)
	thread.Print = func(*starlark.Thread, string) {}
	code := `
s = "abc" * 1000
l = [s, 1, (2, 3), {"k": [s]}] * 10
print(s, l, sep = s)
x = str(l) + repr(l) + s.join([s] * 30) + json.encode(l)
`
	if _, err := starlark.ExecFileOptions(&syntax.FileOptions{}, thread, "test.star", code, starlark.StringDict{"json": json.Module}); err != nil {
		t.Fatal(err)
	}
	if len(calls) != 0 {
		t.Errorf("checks %v, want none", calls)
	}
}

// A value made of shared parts is estimated in bounded time: its text
// would be 2^40 times the string, and the check is asked (and refuses)
// at once.
func TestAllocCheckTextShared(t *testing.T) {
	var calls []allocCall
	thread := checkedThread(&calls, 1<<30)
	code := "l = ['a' * 1000]\nfor _ in range(40):\n    l = [l, l]\nx = str(l)\n"
	_, err := starlark.ExecFileOptions(&syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true}, thread, "test.star", code, nil)
	if err == nil || !strings.Contains(err.Error(), "str: refused") {
		t.Errorf("str of 2^40 shared strings: %v, want the refusal", err)
	}
}
