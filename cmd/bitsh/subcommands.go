package main

import "io"

// subcommands are the words that, as bitsh's first argument, name a tool
// rather than a script. A script whose file is called like one runs as
// "bitsh ./fmt" or "bitsh -- fmt".
var subcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{
	"fmt": func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runFmt(args, stdout, stderr)
	},
	"kernel": func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runKernel(args, stdout, stderr)
	},
	"check": func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runCheck(args, stdout, stderr)
	},
}
