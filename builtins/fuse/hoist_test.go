package fuse

import "testing"

// TestWorthHoisting holds which loop invariants get a variable of their
// own: a check, a multiply or a load does; a variable masked by a constant
// (Exact's width check of a row index, whose facts the generator keeps on
// the variable) does not, with or without its check.
func TestWorthHoisting(t *testing.T) {
	checked := func(x *Expr) *Expr { x.Check = 0; return x }
	tests := []struct {
		name string
		x    *Expr
		want bool
	}{
		{"v * c", binary(OpMul, varExpr(1), constExpr(0x9E3779B97F4A7C15)), true},
		{"32 - v checked", checked(binary(OpSub, constExpr(32), varExpr(1))), true},
		{"v + 1", binary(OpAdd, varExpr(1), constExpr(1)), false},
		{"v & (2^63 - 1) checked", checked(binary(OpAnd, varExpr(1), constExpr(1<<63-1))), false},
		{"v & 0xff", binary(OpAnd, varExpr(1), constExpr(0xff)), false},
		{"(v * c) & m", binary(OpAnd, binary(OpMul, varExpr(1), constExpr(3)), constExpr(7)), true},
	}
	for _, tt := range tests {
		if got := worthHoisting(tt.x); got != tt.want {
			t.Errorf("worthHoisting(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}
