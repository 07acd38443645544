package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestParsePprof: parsePprof reads a profile of bitsh -profile as the
// pprof package reads it, sample by sample; a cut or damaged profile is an
// error, not a crash.
func TestParsePprof(t *testing.T) {
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
	got, err := parsePprof(data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want.Sample) || len(got) == 0 {
		t.Fatalf("%d samples, the pprof package reads %d", len(got), len(want.Sample))
	}
	for i, s := range want.Sample {
		var frames [][]string
		for _, loc := range s.Location {
			var names []string
			for _, l := range loc.Line {
				if l.Function != nil {
					names = append(names, l.Function.Name)
				}
			}
			frames = append(frames, names)
		}
		if !slices.Equal(got[i].values, s.Value) || !slices.EqualFunc(got[i].frames, frames, slices.Equal) {
			t.Errorf("sample %d: %v %q, the pprof package reads %v %q", i, got[i].values, got[i].frames, s.Value, frames)
		}
	}
	// Uncompressed, as the pprof package also reads it.
	var raw bytes.Buffer
	if err := want.WriteUncompressed(&raw); err != nil {
		t.Fatal(err)
	}
	if again, err := parsePprof(raw.Bytes()); err != nil || len(again) != len(got) {
		t.Errorf("uncompressed: %d samples, %v; want %d", len(again), err, len(got))
	}
	// A key without its value; a message cut inside its last field.
	for _, n := range []int{1, 2, raw.Len() - 1} {
		if _, err := parsePprof(raw.Bytes()[:n]); err == nil {
			t.Errorf("the first %d bytes of %d: no error", n, raw.Len())
		}
	}
}
