package compile_test

import "testing"

const findSrc = `
def find(seq, depth, vtx, nz, lock, path, k):
    if (lock >> vtx) & 1 or nz > 32:
        return 0
    if depth == 0:
        return 1
    lock = lock | (1 << vtx)
    if vtx == 31 and depth > 2:
        return find(seq | (1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k)
    if k > 0:
        if path & 1:
            return find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1)
        return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1)
    return (find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
            find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0))
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
