package setcard

import "testing"

// TestTablesFromDigits: the tables built as bitsh starts (thirdTable,
// vecAdd) against their definition on the digits, entry by entry.
func TestTablesFromDigits(t *testing.T) {
	for x := range Card(NumCards) {
		for y := range Card(NumCards) {
			dx, dy := x.Digits(), y.Digits()
			var third, sum [4]uint8
			for i := range third {
				third[i] = (6 - dx[i] - dy[i]) % 3
				sum[i] = (dx[i] + dy[i]) % 3
			}
			if got, want := thirdTable[x][y], FromDigits(third); got != want {
				t.Fatalf("thirdTable[%d][%d] = %d, want %d", x, y, got, want)
			}
			if got, want := vecAdd[x][y], FromDigits(sum); got != want {
				t.Fatalf("vecAdd[%d][%d] = %d, want %d", x, y, got, want)
			}
		}
	}
}
