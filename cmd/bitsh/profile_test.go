package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A script that spends most of its time in slow, some in popcount.
const profiledScript = `
def slow(n):
    t = 0
    for i in range(n):
        t += popcount(i)
    return t
def fast():
    return 1
print(slow(200000), fast())
`

func TestProfileFlag(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "p.star")
	out := filepath.Join(dir, "p.pprof")
	if err := os.WriteFile(script, []byte(profiledScript), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-profile", out, script}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("bitsh -profile: status %d, stderr %q", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var top bytes.Buffer
	if err := profileTop(&top, data, 5); err != nil {
		t.Fatal(err)
	}
	// slow holds most of the samples (itself or popcount under it); a
	// loaded machine still gives it some.
	if !regexp.MustCompile(`(?m)^\s+\S+\s+\S+%\s+\S+\s+\S+%  slow$`).MatchString(top.String()) {
		t.Errorf("the profile's top functions do not list slow:\n%s", top.String())
	}
	// A profile that cannot be written is a usage error, before the run.
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"-profile", filepath.Join(dir, "no", "such", "dir"), script}, strings.NewReader(""), &stdout, &stderr); code != exitUsage || stdout.Len() != 0 {
		t.Errorf("bitsh -profile into a missing directory: status %d, stdout %q; want %d and no run", code, stdout.String(), exitUsage)
	}
}

func TestProfileTopNoSamples(t *testing.T) {
	var buf bytes.Buffer
	err := prunReport(func() error { return nil }, &buf, &buf)
	if err != nil || !strings.Contains(buf.String(), "No samples") {
		t.Errorf("prunReport of an empty run: %v, %q", err, buf.String())
	}
}
