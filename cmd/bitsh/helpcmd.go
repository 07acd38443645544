package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/bitsh/bitsh/interp"
	"go.starlark.net/starlark"
)

func init() { subcommands["help"] = runHelp }

// runHelp is bitsh help [NAME]: what help() or help(NAME) prints in the
// REPL, for a user who types it at the shell. bitsh -h is the usage.
func runHelp(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 {
		return usageError(stderr, "help takes at most one NAME, got %d arguments (bitsh -h for the command's usage)", len(args))
	}
	code := "help()"
	if len(args) == 1 {
		code = "help(" + starlark.String(args[0]).String() + ")"
	}
	in := interp.New(interp.WithStdout(stdout), interp.WithStderr(stderr))
	if _, err := in.ExecFile(context.Background(), cmdLineArg, code); err != nil {
		var ee *starlark.EvalError
		if errors.As(err, &ee) {
			fmt.Fprintf(stderr, "%s: %s\n", progName, ee.Msg)
		} else {
			printError(stderr, err)
		}
		return exitError
	}
	if len(args) == 0 {
		fmt.Fprintf(stdout, "\nbitsh -h prints the command's flags; bitsh help NAME prints one docstring.\n")
	}
	return exitOK
}
