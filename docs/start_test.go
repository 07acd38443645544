package docs_test

import (
	"context"
	"fmt"
	"regexp"
	"runtime"
	"slices"
	"strconv"
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
// runs as machine code. The counts of calls are compared in all (the
// call made while the code is generated, on another goroutine, runs in
// the interpreter, as the report then says).
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
			want = append(want, sumCalls(line))
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
	if _, err := in.ExecFile(ctx, "gaps.star", script); err != nil {
		t.Fatalf("gaps.star: %s", errorText(err))
	}
	var got []string
	for line := range strings.SplitSeq(report.String(), "\n") {
		if strings.HasPrefix(line, "native: ") {
			got = append(got, sumCalls(line))
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("start.md shows %q; -native-report says\n%s", w, report.String())
		}
	}
	if !strings.Contains(shown, out.String()) {
		t.Errorf("start.md shows\n%s\nthe script prints\n%s", shown, out.String())
	}
}

// callCounts matches the counts of a line of the native report.
var callCounts = regexp.MustCompile(`, (\d+) calls? as code, (\d+) by the interpreter:?$`)

// sumCalls replaces the counts of a native report's line by their sum:
// "native: f (x.star:1:1): machine code, 2 calls in all".
func sumCalls(line string) string {
	m := callCounts.FindStringSubmatchIndex(line)
	if m == nil {
		return line
	}
	a, _ := strconv.Atoi(line[m[2]:m[3]])
	b, _ := strconv.Atoi(line[m[4]:m[5]])
	return fmt.Sprintf("%s, %d calls in all", line[:m[0]], a+b)
}
