// bitsh fork: tests of unpacking a tuple or list without an iterator and of
// loops over tuples (interp.go, UNPACK and ITERJMP; README.bitsh.md).

package starlark_test

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestUnpackFastPath runs each program twice: as written, where a tuple or
// list of the right length is unpacked directly, and with that value
// passed through a range-backed copy (iter), which takes upstream's
// iterator path. Results and errors must be the same.
func TestUnpackFastPath(t *testing.T) {
	progs := []string{
		"a, b = X\nr = [a, b]",
		"a, b, c = X\nr = [c, b, a]",
		"(a, (b, c)) = X\nr = [a, b, c]",
		"def f(ps):\n    s = []\n    for a, b in ps:\n        s.append(a * 10 + b)\n    return s\nr = f(X)",
		"def f(ps):\n    s = 0\n    for i, (a, b) in enumerate(ps):\n        s += i * 100 + a * 10 + b\n    return s\nr = f(X)",
		"def f(ps):\n    s = []\n    for p in ps:\n        a, b = p\n        s.append(b - a)\n    return s\nr = f(X)",
		"def f(t):\n    s = []\n    for x in t:\n        s.append(x if type(x) == 'int' else len(x))\n    return s\nr = f(X)",
	}
	values := map[string][]string{
		"pairs":   {"((1, 2), (3, 4), (5, 6))", "[(1, 2), [3, 4], (5, 6)]"},
		"triples": {"(7, 8, 9)", "[7, 8, 9]"},
		"nested":  {"(1, (2, 3))", "[1, [2, 3]]", "(1, (2, 3, 4))", "(1, 2)"},
		"bad":     {"(1,)", "(1, 2, 3)", "[]", "[1, 2, 3, 4]", "((1, 2, 3),)", "((1,),)", "(1, 2)", "'ab'", "None", "{1: 2, 3: 4}"},
		"loops":   {"((0, 1), (2, 3))", "[[4, 5], (6, 7)]", "((1, 2),) * 3"},
	}
	for _, prog := range progs {
		for _, vs := range values {
			for _, v := range vs {
				direct := run(t, "X = "+v+"\n"+prog)
				// iter(v): the same elements, one level down, through a
				// value that is neither a tuple nor a list.
				slow := run(t, "def iter(v):\n    if type(v) in ('tuple', 'list'):\n        return Seq(v)\n    return v\nX = iter("+v+")\n"+prog)
				if direct != slow {
					t.Errorf("X = %s; %q:\n direct: %s\n   slow: %s", v, prog, direct, slow)
				}
			}
		}
	}
}

// seq is an iterable sequence that is neither a Tuple nor a *List.
type seq struct{ elems []starlark.Value }

func (s *seq) String() string        { return "seq" }
func (s *seq) Type() string          { return "seq" }
func (s *seq) Freeze()               {}
func (s *seq) Truth() starlark.Bool  { return len(s.elems) > 0 }
func (s *seq) Hash() (uint32, error) { return 0, nil }
func (s *seq) Len() int              { return len(s.elems) }
func (s *seq) Iterate() starlark.Iterator {
	return &seqIter{s.elems}
}

type seqIter struct{ elems []starlark.Value }

func (it *seqIter) Next(p *starlark.Value) bool {
	if len(it.elems) == 0 {
		return false
	}
	*p, it.elems = it.elems[0], it.elems[1:]
	return true
}
func (it *seqIter) Done() {}

// run executes src with Seq (wrapping a tuple's or list's elements, and
// those of tuples and lists inside it, in seqs) and returns r or the error.
func run(t *testing.T, src string) string {
	t.Helper()
	var wrap func(v starlark.Value) starlark.Value
	wrap = func(v starlark.Value) starlark.Value {
		var elems []starlark.Value
		switch x := v.(type) {
		case starlark.Tuple:
			elems = x
		case *starlark.List:
			for i := 0; i < x.Len(); i++ {
				elems = append(elems, x.Index(i))
			}
		default:
			return v
		}
		out := make([]starlark.Value, len(elems))
		for i, e := range elems {
			out[i] = wrap(e)
		}
		return &seq{out}
	}
	predeclared := starlark.StringDict{
		"Seq": starlark.NewBuiltin("Seq", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
			return wrap(args[0]), nil
		}),
	}
	opts := &syntax.FileOptions{GlobalReassign: true, TopLevelControl: true}
	globals, err := starlark.ExecFileOptions(opts, &starlark.Thread{}, "u.star", src, predeclared)
	if err != nil {
		msg := err.Error()
		// The errors name the value's type, which differs by design
		// (tuple or list against seq); the rest must agree.
		for _, typ := range []string{"tuple", "list", "seq"} {
			msg = strings.ReplaceAll(msg, typ, "T")
		}
		return "error: " + msg
	}
	return render(globals["r"])
}

// render writes v with tuples, lists and seqs alike, as [a, b].
func render(v starlark.Value) string {
	var elems []starlark.Value
	switch x := v.(type) {
	case starlark.Tuple:
		elems = x
	case *starlark.List:
		for i := 0; i < x.Len(); i++ {
			elems = append(elems, x.Index(i))
		}
	case *seq:
		elems = x.elems
	default:
		return v.String()
	}
	parts := make([]string, len(elems))
	for i, e := range elems {
		parts[i] = render(e)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
