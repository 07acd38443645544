package interp

import (
	"testing"

	"github.com/bitsh/bitsh/builtins"
)

func TestDefaultMemoryBudget(t *testing.T) {
	mem := meminfoTotal()
	if mem <= 0 {
		t.Skip("no /proc/meminfo")
	}
	got := DefaultMemoryBudget()
	if got <= 0 || got > mem/4*3 || got%(1<<20) != 0 {
		t.Fatalf("DefaultMemoryBudget() = %d; want a whole number of MiB in (0, %d]", got, mem/4*3)
	}
	if room := builtins.AddressSpaceRoom(); room >= 0 && got > max(room/2, 64<<20) {
		t.Fatalf("DefaultMemoryBudget() = %d; want at most half the address space left, %d", got, room/2)
	}
}
