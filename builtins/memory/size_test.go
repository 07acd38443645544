package memory_test

import (
	"testing"

	"github.com/bitsh/bitsh/builtins/memory"
)

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"none", 0}, {"17", 17}, {"512M", 512 << 20}, {"1.5G", 3 << 29}, {"2gib", 2 << 30}, {"4KB", 4 << 10},
	} {
		if got, err := memory.ParseSize(c.in); err != nil || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "-1M", "12X", "9000000T", "NaN"} {
		if got, err := memory.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d; want an error", in, got)
		}
	}
}

// TestFormatSizeRoundTrip checks that ParseSize reads back what FormatSize
// writes, exactly where FormatSize writes a whole number.
func TestFormatSizeRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 17, 1 << 10, 256 << 20, 3 << 29, 5 << 40} {
		s := memory.FormatSize(n)
		if got, err := memory.ParseSize(s); err != nil || got != n {
			t.Errorf("ParseSize(FormatSize(%d) = %q) = %d, %v", n, s, got, err)
		}
	}
}

func TestAllocSize(t *testing.T) {
	for _, c := range []struct{ n, size, want int64 }{
		{3, 8, 24}, {0, 8, 0}, {1 << 62, 2, -1}, {-1, 8, -1}, {1 << 40, 0, 0},
	} {
		if got := memory.AllocSize(c.n, c.size); got != c.want {
			t.Errorf("AllocSize(%d, %d) = %d; want %d", c.n, c.size, got, c.want)
		}
	}
}

func TestBudgetCheck(t *testing.T) {
	none := memory.NewBudget(-5)
	if none.Limit() != 0 || none.Check("f", 1<<62) != nil {
		t.Errorf("a budget of -5 bytes: limit %d, check %v; want none", none.Limit(), none.Check("f", 1<<62))
	}
	b := memory.NewBudget(1 << 30)
	if err := b.Check("f", 1<<31); err == nil || err.Error()[:3] != "f: " {
		t.Errorf("Check of 2G under a 1G budget = %v; want an error naming f", err)
	}
	if err := b.Check("f", 88); err != nil {
		t.Errorf("Check of 88 bytes under a 1G budget = %v", err)
	}
}
