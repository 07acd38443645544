package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"go.starlark.net/starlark"
)

// prunMagic is the REPL's prefix that profiles the rest of the input and
// prints its top functions.
const prunMagic = "%prun"

// prunTop is how many functions %prun lists.
const prunTop = 10

// startProfile starts go.starlark.net's profiler (wall time of Starlark
// functions and builtins, sampled every 10 ms, in pprof's format) writing
// to w, and returns the function that stops it. The profiler is global to
// the process: one profile at a time.
func startProfile(w io.Writer) (stop func() error, err error) {
	if err := starlark.StartProfile(w); err != nil {
		return nil, fmt.Errorf("profile: %v", err)
	}
	return starlark.StopProfile, nil
}

// profileFile starts a profile that -profile FILE asked for; stop writes
// it and reports any error on stderr.
func profileFile(path string, stderr io.Writer) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	end, err := startProfile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		err := end()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: -profile %s: %v\n", progName, path, err)
		}
	}, nil
}

// profileTop writes the n functions of a pprof profile with the most
// flat (own) wall time, with their cumulative time (own and callees'),
// as go tool pprof -top does.
func profileTop(w io.Writer, data []byte, n int) error {
	samples, err := parsePprof(data)
	if err != nil {
		return fmt.Errorf("reading the profile: %v", err)
	}
	flat := map[string]int64{}
	cum := map[string]int64{}
	var total int64
	for _, s := range samples {
		if len(s.values) == 0 {
			continue
		}
		v := s.values[len(s.values)-1]
		total += v
		seen := map[string]bool{}
		for i, names := range s.frames {
			for _, name := range names {
				if i == 0 {
					flat[name] += v
				}
				if !seen[name] {
					seen[name] = true
					cum[name] += v
				}
			}
		}
	}
	if total == 0 {
		fmt.Fprintln(w, "No samples: the input ran in under 10ms (the profiler's quantum).")
		return nil
	}
	names := make([]string, 0, len(cum))
	for name := range cum {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := names[i], names[j]
		if flat[a] != flat[b] {
			return flat[a] > flat[b]
		}
		if cum[a] != cum[b] {
			return cum[a] > cum[b]
		}
		return a < b
	})
	fmt.Fprintf(w, "Showing the top %d of %d functions, %v of wall time in 10ms samples\n", min(n, len(names)), len(names), time.Duration(total))
	fmt.Fprintf(w, "%10s %6s %10s %6s  %s\n", "flat", "flat%", "cum", "cum%", "function")
	for _, name := range names[:min(n, len(names))] {
		fmt.Fprintf(w, "%10v %5.1f%% %10v %5.1f%%  %s\n",
			time.Duration(flat[name]), pct(flat[name], total), time.Duration(cum[name]), pct(cum[name], total), name)
	}
	return nil
}

func pct(x, total int64) float64 { return 100 * float64(x) / float64(total) }

// prunReport profiles run and then writes its top functions to stdout
// (or why it could not to stderr). It returns run's error.
func prunReport(run func() error, stdout, stderr io.Writer) error {
	var buf bytes.Buffer
	stop, err := startProfile(&buf)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prunMagic, err)
		return run()
	}
	runErr := run()
	if err := stop(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prunMagic, err)
		return runErr
	}
	var out strings.Builder
	if err := profileTop(&out, buf.Bytes(), prunTop); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", prunMagic, err)
		return runErr
	}
	io.WriteString(stdout, out.String())
	return runErr
}
