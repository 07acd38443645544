package chess

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/gentables"
)

//go:generate env BITSH_UPDATE_TABLES=1 go test -run ^TestTables$ .

// TestTables rebuilds tables.go from the tables' definitions and fails
// where the file differs.
func TestTables(t *testing.T) {
	f := gentables.New("chess", "TestTables (tables_test.go)")
	f.Var("knightTable is stepTable(knightSteps).", "knightTable", stepTable(knightSteps))
	f.Var("kingTable is stepTable(kingSteps).", "kingTable", stepTable(kingSteps))
	f.Var("whitePawnTable is stepTable(whitePawnSteps).", "whitePawnTable", stepTable(whitePawnSteps))
	f.Var("blackPawnTable is stepTable(blackPawnSteps).", "blackPawnTable", stepTable(blackPawnSteps))
	f.Var("rookMasks is maskTable(rookDirs).", "rookMasks", maskTable(rookDirs))
	f.Var("bishopMasks is maskTable(bishopDirs).", "bishopMasks", maskTable(bishopDirs))
	file, diag, anti := lineMasks()
	f.Var("fileMasks is lineMasks's first result.", "fileMasks", file)
	f.Var("diagMasks is lineMasks's second result.", "diagMasks", diag)
	f.Var("antiMasks is lineMasks's third result.", "antiMasks", anti)
	f.Var("firstRank is firstRankTable().", "firstRank", firstRankTable())
	f.Var("lines is lineTable of lineMasks's results.", "lines", lineTable(file, diag, anti))
	f.Check(t, "tables.go")
}
