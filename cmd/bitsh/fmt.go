package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bitsh/bitsh/builtins/outfile"
	"github.com/bitsh/bitsh/interp/tooling"
	"github.com/rogpeppe/go-internal/diff"
)

const fmtUsage = `usage: bitsh fmt [-d] FILE...

Formats .star files in place with buildifier's formatter (the layout
Bazel's Starlark files use), keeping bitsh's dialect (while loops).
-d prints a diff instead and exits 1 when a file would change. A file
that needs more memory than the budget (-max-memory, as for a script) is
an error: bitsh fmt stops there, exit status 1.

flags:
`

// runFmt implements "bitsh fmt": it returns 0 when every file is (or now
// is) formatted, 1 when -d found a file to change or a file failed to
// parse, and 2 on bad usage.
func runFmt(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh fmt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	showDiff := fs.Bool("d", false, "print a diff instead of rewriting; exit 1 if any file would change")
	maxMem := addMemoryFlag(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, fmtUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, "fmt: %v (bitsh fmt -h for usage)", err)
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "fmt: no files given (bitsh fmt -h for usage)")
	}
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return usageError(stderr, "fmt: %v", err)
	}
	status := exitOK
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			fmt.Fprintf(stderr, "%s: fmt: %v\n", progName, err)
			status = exitError
			continue
		}
		src, code, ok := readSource("fmt", name, f, 0, budget, stderr)
		f.Close()
		if !ok {
			if code != exitUsage {
				return code // too large, or stopped: as a run would
			}
			status = exitError
			continue
		}
		var out []byte
		if code, ok := bounded("fmt", name, len(src), budget, stderr, func() { out, err = tooling.Format(name, src) }); !ok {
			return code
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: fmt: %v\n", progName, err)
			status = exitError
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		if *showDiff {
			stdout.Write(diff.Diff(name, src, name+" (formatted)", out))
			status = exitError
			continue
		}
		if err := outfile.Write(name, out, 0o644); err != nil {
			fmt.Fprintf(stderr, "%s: fmt: %v\n", progName, err)
			status = exitError
		}
	}
	return status
}
