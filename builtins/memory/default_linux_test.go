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

// TestMemTotal holds sysinfo(2)'s total to /proc/meminfo's MemTotal, which
// DefaultBudget read before.
func TestMemTotal(t *testing.T) {
	want := meminfoTotal()
	if want == 0 {
		t.Skip("no MemTotal in /proc/meminfo")
	}
	if got := memTotal(); got != want {
		t.Fatalf("memTotal() = %d; want MemTotal %d", got, want)
	}
}
