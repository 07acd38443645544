package native

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// TestLiveVars: the variables live after each statement's expressions,
// against what the statements read and write, in straight code, ifs, a
// while loop (a variable the next iteration assigns before reading it is
// dead; one it reads first is live) and a range loop (its variable lives
// through the loop).
func TestLiveVars(t *testing.T) {
	v := func(i int) *fuse.Expr { return &fuse.Expr{Op: fuse.OpVar, Imm: uint64(i), Check: -1} }
	c := func(k uint64) *fuse.Expr { return &fuse.Expr{Op: fuse.OpConst, Imm: k, Check: -1} }
	add := func(a, b *fuse.Expr) *fuse.Expr {
		return &fuse.Expr{Op: fuse.OpAdd, Args: []*fuse.Expr{a, b}, Check: -1}
	}
	assign := func(x int, e *fuse.Expr) fuse.Stmt { return fuse.Stmt{Kind: fuse.SAssign, Var: x, X: e} }

	// v0 param; v1 = v0 + 1 (call here); v2 = v1; return v2
	straight := []fuse.Stmt{assign(1, add(v(0), c(1))), assign(2, v(1)), {Kind: fuse.SReturn, X: v(2)}}
	// while v0: v1 = v0 + v3 (call); v3 = 5; v2 = v1 + v4; v0 = v2 ... return v3
	loop := []fuse.Stmt{
		{Kind: fuse.SWhile, X: v(0), Label: 0, Body: []fuse.Stmt{
			assign(1, add(v(0), v(3))),
			assign(3, c(5)),
			assign(2, add(v(1), v(4))),
			assign(0, v(2)),
		}},
		{Kind: fuse.SReturn, X: v(3)},
	}
	// for v1 in range(v0, 10, 1): v2 = v2 + 1 (call); return v2
	rng := []fuse.Stmt{
		{Kind: fuse.SForRange, Var: 1, X: v(0), Y: c(10), Z: c(1), Label: 0, Body: []fuse.Stmt{
			assign(2, add(v(2), c(1))),
		}},
		{Kind: fuse.SReturn, X: v(2)},
	}
	// if v0: v1 = 1 (call) else: v1 = v2; return v1 + v3
	branch := []fuse.Stmt{
		{Kind: fuse.SIf, X: v(0), Body: []fuse.Stmt{assign(1, c(1))}, Else: []fuse.Stmt{assign(1, v(2))}},
		{Kind: fuse.SReturn, X: add(v(1), v(3))},
	}
	cases := []struct {
		name string
		body []fuse.Stmt
		vars int
		at   *fuse.Stmt
		want []int
	}{
		{"straight, after v1 =", straight, 3, &straight[0], []int{1}},
		{"straight, after return", straight, 3, &straight[2], nil},
		{"loop, after v1 =", loop, 5, &loop[0].Body[0], []int{1, 4}},
		{"loop, after v3 =", loop, 5, &loop[0].Body[1], []int{1, 3, 4}},
		{"loop, after its condition", loop, 5, &loop[0], []int{0, 3, 4}},
		{"range, in the body", rng, 3, &rng[0].Body[0], []int{1, 2}},
		{"if, after the condition", branch, 4, &branch[0], []int{2, 3}},
		{"if, in the then branch", branch, 4, &branch[0].Body[0], []int{1, 3}},
	}
	for _, tc := range cases {
		lv := liveVars(tc.body, tc.vars)
		got := lv.after[tc.at]
		if got == nil {
			t.Errorf("%s: no set", tc.name)
			continue
		}
		want := lv.empty()
		for _, x := range tc.want {
			want = want.with(x)
		}
		if !got.equal(want) {
			var gs []int
			for x := 0; x < tc.vars; x++ {
				if got.has(x) {
					gs = append(gs, x)
				}
			}
			t.Errorf("%s: live %v, want %v", tc.name, gs, tc.want)
		}
	}
}
