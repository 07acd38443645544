package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
	"os"

	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/interp/tooling"
)

const checkUsage = `usage: bitsh check [-native | -native-strict] FILE...

Parses and resolves each file with bitsh's dialect and predeclared names,
without running it: syntax errors, undefined names, loads of modules or
names that cannot be found, calls of builtins with wrong arguments,
members a module does not have, and functions fuse cannot compile are
printed as file:line:col: message.
Exit status 1 when any problem is found, or when checking a file needs
more memory than the budget (-max-memory, as for a script).

With -native, check also prints, for each plain def of a file without
problems (at the top level, and nested in one), whether a run would run it as machine code, as
file:line:col: f: machine code, file:line:col: f: interpreted: why (the
reason of a run's -native-report), or file:line:col: f: depends on ...
(the arguments it is passed, a global the script computes). Only the
defs, loads and assignments of constants run; arguments are guessed
from how a def uses its parameters (a list where it indexes one, else
an int). -native-strict is -native, with exit status 1 when a function
would be interpreted or depends on what the run gives it.

flags:
`

// runCheck implements "bitsh check".
func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	maxMem := addMemoryFlag(fs)
	native := fs.Bool("native", false, "also say which plain functions would run as machine code")
	strict := fs.Bool("native-strict", false, "-native, and exit status 1 when a function would be interpreted")
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
		if (*native || *strict) && len(diags) == 0 {
			if code := checkNative(name, src, budget, *strict, stdout, stderr); code != exitOK {
				status = code
			}
		}
	}
	return status
}

// checkNative prints whether each plain def of the file name (text src)
// would run as machine code (interp.Interp.CheckNative); strict makes a
// function that would not an error.
func checkNative(name string, src []byte, budget int64, strict bool, stdout, stderr io.Writer) int {
	in := interp.New(interp.WithMaxMemory(budget), interp.WithStdout(io.Discard), interp.WithStderr(io.Discard))
	var verdicts []interp.NativeVerdict
	var err error
	if code, ok := bounded("check", name, len(src), budget, stderr, func() {
		verdicts, err = in.CheckNative(context.Background(), name, src)
	}); !ok {
		return code
	}
	if err != nil {
		fmt.Fprintf(stdout, "%s: -native: %v\n", name, err)
		return exitError
	}
	status := exitOK
	for _, v := range verdicts {
		fmt.Fprintln(stdout, v)
		if strict && v.Why != "" {
			status = exitError
		}
	}
	return status
}
