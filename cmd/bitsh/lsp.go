package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/bitsh/bitsh/interp/tooling/lsp"
)

const lspUsage = `usage: bitsh lsp [-root DIR]

Runs bitsh's language server on standard input and output (the Language
Server Protocol): diagnostics, hover, completion, signature help,
go-to-definition and formatting for .star files. Editors start it
themselves: docs/editors.md shows how. The workspace is the root the
editor names, else DIR, else the current directory; the server reads no
file outside it.
`

func init() {
	subcommands["lsp"] = runLSP
}

// runLSP implements "bitsh lsp".
func runLSP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh lsp", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	root := fs.String("root", "", "the workspace `DIR` when the editor names none")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, lspUsage)
			return exitOK
		}
		return usageError(stderr, "lsp: %v (bitsh lsp -h for usage)", err)
	}
	if fs.NArg() > 0 {
		return usageError(stderr, "lsp: unexpected arguments %q (bitsh lsp -h for usage)", fs.Args())
	}
	rwc := stdio{stdin, stdout}
	if err := lsp.Serve(context.Background(), rwc, lsp.Options{Root: *root, Log: stderr, Version: versionString()}); err != nil {
		fmt.Fprintf(stderr, "%s: lsp: %v\n", progName, err)
		return exitError
	}
	return exitOK
}

// stdio is standard input and output as one stream.
type stdio struct {
	io.Reader
	io.Writer
}

// Close closes standard input when it is a file.
func (s stdio) Close() error {
	if f, ok := s.Reader.(*os.File); ok {
		return f.Close()
	}
	return nil
}
