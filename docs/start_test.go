package docs_test

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bitsh/bitsh/interp"
)

// syncBuffer is a strings.Builder that goroutines may write at once.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStartNativeReport runs start.md's gaps.star as bitsh -native-report
// does and checks the report lines the page shows: the page's plain def
// runs as machine code.
func TestStartNativeReport(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("plain functions run as machine code on linux/amd64 only")
	}
	var script, shown string
	for _, b := range blocks(t, "start.md") {
		switch {
		case b.tag == "starlark" && strings.HasPrefix(b.text, "# gaps.star"):
			script = b.text
		case b.tag == "text" && strings.Contains(b.text, "-native-report gaps.star"):
			shown = b.text
		}
	}
	if script == "" || shown == "" {
		t.Fatal("start.md: no gaps.star block, or no -native-report block after it")
	}
	var want []string
	for line := range strings.SplitSeq(shown, "\n") {
		if strings.HasPrefix(line, "native: ") {
			want = append(want, line)
		}
	}
	if len(want) == 0 {
		t.Fatal("start.md's -native-report block shows no native: line")
	}
	var out strings.Builder
	var report syncBuffer
	in := interp.New(interp.WithStdout(&out), interp.WithNativeReport(&report))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := in.Exec(ctx, "gaps.star", script); err != nil {
		t.Fatalf("gaps.star: %s", errorText(err))
	}
	// The machine code is made on another goroutine, which reports when
	// it is done.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Count(report.String(), "\n") >= len(want) {
			break
		}
	}
	got := report.String()
	for _, w := range want {
		if !strings.Contains(got, w+"\n") {
			t.Errorf("start.md shows %q; -native-report says\n%s", w, got)
		}
	}
	if !strings.Contains(shown, out.String()) {
		t.Errorf("start.md shows\n%s\nthe script prints\n%s", shown, out.String())
	}
}
