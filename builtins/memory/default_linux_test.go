package memory

import "testing"

func TestDefaultBudget(t *testing.T) {
	mem := meminfoTotal()
	if mem <= 0 {
		t.Skip("no /proc/meminfo")
	}
	got := DefaultBudget()
	if got <= 0 || got > mem/4*3 || got%(1<<20) != 0 {
		t.Fatalf("DefaultBudget() = %d; want a whole number of MiB in (0, %d]", got, mem/4*3)
	}
	if room := AddressSpaceRoom(); room >= 0 && got > max(room/2, 64<<20) {
		t.Fatalf("DefaultBudget() = %d; want at most half the address space left, %d", got, room/2)
	}
}
