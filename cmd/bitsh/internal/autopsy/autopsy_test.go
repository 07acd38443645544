package autopsy

import "testing"

func TestSummary(t *testing.T) {
	for _, c := range []struct{ report, want string }{
		{"panic: boom\n\ngoroutine 1 [running]:\nmain.main()\n", "panic: boom"},
		{"\nruntime stack:\nruntime.throw({0xac17bb?, 0x200000008?})\n\t/go/src/runtime/panic.go:1229 +0x48\nruntime.newstack()\n\t/go/src/runtime/stack.go:1207\n", "fatal error: stack overflow"},
		{"\nruntime stack:\nruntime.throw({0x1?, 0x2?})\n\t/go/panic.go:1\nruntime.(*mcache).refill(0x7f, 0x5)\n\t/go/mcache.go:207\n", "fatal error: out of memory"},
		{"\nruntime stack:\nruntime.throw({0x1?, 0x2?})\n\t/go/panic.go:1\nruntime.mapassign(0x7f)\n\t/go/map.go:9\n", "fatal error in runtime.mapassign"},
		{"goroutine 1 [running]:\n", "fatal error"},
	} {
		if got := Summary(c.report); got != c.want {
			t.Errorf("Summary(%q) = %q, want %q", c.report, got, c.want)
		}
	}
}

func TestStringHelpers(t *testing.T) {
	if got := splitLines("a\n\nb"); len(got) != 3 || got[0] != "a" || got[1] != "" || got[2] != "b" {
		t.Errorf("splitLines = %q", got)
	}
	if !hasPrefix("panic: x", "panic: ") || hasPrefix("pan", "panic") || !hasSuffix("bitsh.test", ".test") || hasSuffix("test", ".test") {
		t.Error("hasPrefix/hasSuffix")
	}
	if !contains("runtime.(*mcache).refill", "mcache") || contains("runtime.newstack", "mheap") || !contains("x", "") {
		t.Error("contains")
	}
}

func TestQuitDump(t *testing.T) {
	for _, c := range []struct {
		report string
		want   bool
	}{
		{"SIGQUIT: quit\nPC=0x490fe1 m=0 sigcode=0\n\ngoroutine 1 [running]:\n", true},
		{"\nSIGQUIT: quit\n", true},
		{"panic: boom\n\ngoroutine 1 [running]:\n", false},
		{"SIGSEGV: segmentation violation\nPC=0x0 m=0 sigcode=1\n", false},
		{"\nruntime stack:\nruntime.throw({0x1?, 0x2?})\n", false},
	} {
		if got := quitDump(c.report); got != c.want {
			t.Errorf("quitDump(%q) = %v, want %v", c.report, got, c.want)
		}
	}
}
