package main

import "io"

// The tools of the notebook issue: formatting, checking, and the Jupyter
// kernel.
func init() {
	subcommands["fmt"] = func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runFmt(args, stdout, stderr)
	}
	subcommands["check"] = func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runCheck(args, stdout, stderr)
	}
	subcommands["kernel"] = func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runKernel(args, stdout, stderr)
	}
}
