package subset

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/gentables"
)

//go:generate env BITSH_UPDATE_TABLES=1 go test -run ^TestTables$ .

// TestTables rebuilds tables.go from the tables' definitions and fails
// where the file differs.
func TestTables(t *testing.T) {
	f := gentables.New("subset", "TestTables (tables_test.go)")
	f.Var("binom[n][k] is n choose k for 0 <= k <= n <= 64 (binomTable).", "binom", binomTable())
	f.Check(t, "tables.go")
}
