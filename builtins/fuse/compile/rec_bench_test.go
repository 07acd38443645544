package compile_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

const findSrc = fusescript.DeBruijnFind + `
def f(i):
    return find(0, 58, 0, 6, 1 << 32, i, 13)
`

// BenchmarkEvalRecursion counts a subtree of the recursive De Bruijn
// search (docs/fuse.md, "Recursion") under Eval.
func BenchmarkEvalRecursion(b *testing.B) {
	s := load(b, findSrc)
	f, err := s.Compile("f")
	if err != nil {
		b.Fatal(err)
	}
	st := f.NewState(nil)
	var n uint64
	for b.Loop() {
		r, err := st.Eval([]uint64{1655})
		if err != nil {
			b.Fatal(err)
		}
		n = r
	}
	b.ReportMetric(float64(n), "leaves")
}
