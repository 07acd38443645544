package setcard

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/gentables"
)

//go:generate env BITSH_UPDATE_TABLES=1 go test -run ^TestTables$ .

// TestTables rebuilds tables.go from the tables' definitions and fails
// where the file differs.
func TestTables(t *testing.T) {
	f := gentables.New("setcard", "TestTables (tables_test.go)")
	third := buildThirdTable()
	f.Var("thirdTable is buildThirdTable's.", "thirdTable", third)
	add, scale := buildVecTables()
	f.Var("vecAdd is buildVecTables's first result.", "vecAdd", add)
	f.Var("vecScale is buildVecTables's second result.", "vecScale", scale)
	num, rep := buildProjective(&scale)
	f.Var("projective is buildProjective's first result.", "projective", num)
	f.Var("projRep is buildProjective's second result.", "projRep", rep)
	t3, a3 := buildSlice3(&third)
	f.Var("third3 is buildSlice3's first result.", "third3", t3)
	f.Var("add3 is buildSlice3's second result.", "add3", a3)
	f.Var("toZeroPerm is buildToZeroPerm's.", "toZeroPerm", buildToZeroPerm())
	f.Check(t, "tables.go")
}
