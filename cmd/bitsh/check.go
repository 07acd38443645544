package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"

	"github.com/bitsh/bitsh/interp/tooling"
)

const checkUsage = `usage: bitsh check FILE...

Parses and resolves each file with bitsh's dialect and predeclared names,
without running it: syntax errors, undefined names, loads of modules or
names that cannot be found, calls of builtins with wrong arguments,
members a module does not have, and functions fuse cannot compile are
printed as file:line:col: message.
Exit status 1 when any problem is found, or when checking a file needs
more memory than the budget (-max-memory, as for a script).

flags:
`

// runCheck implements "bitsh check".
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	maxMem := addMemoryFlag(fs)
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			fmt.Fprint(stdout, checkUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return usageError(stderr, "check: %v (bitsh check -h for usage)", err)
	}
	if fs.NArg() == 0 {
		return usageError(stderr, "check: no files given (bitsh check -h for usage)")
	}
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return usageError(stderr, "check: %v", err)
	}
	c := tooling.NewChecker()
	status := exitOK
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			var pe *iofs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			fmt.Fprintf(stdout, "%s: %v\n", name, err)
			status = exitError
			continue
		}
		src, code, ok := readSource("check", name, f, 0, budget, stderr)
		f.Close()
		if !ok {
			if code != exitUsage {
				return code // too large, or stopped: as a run would
			}
			status = exitError
			continue
		}
		var diags []tooling.Diagnostic
		if code, ok := bounded("check", name, len(src), budget, stderr, func() { diags = c.Check(name, src) }); !ok {
			return code
		}
		for _, d := range diags {
			fmt.Fprintln(stdout, d)
			status = exitError
		}
	}
	return status
}
