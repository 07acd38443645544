// Command bitsh runs bitsh scripts and the bitsh REPL.
//
// Usage:
//
//	bitsh [flags]                 the REPL (or stdin as a script when it is not a terminal)
//	bitsh [flags] FILE [ARGS...]  run FILE
//	bitsh [flags] - [ARGS...]     run standard input
//	bitsh [flags] -c CODE [ARGS...]  run CODE
//	bitsh merge [-o PATH] FILES...   merge the results of shards
//
// The script sees ARGS, as strings, in the list argv.
//
// Flags: -timeout DURATION, -max-steps N, -max-memory SIZE, -workers N,
// -shard I/N, -j N, -o PATH (docs/cluster.md), -profile FILE, -interpret,
// -native-report, -native-strict, -version. The exit status
// is 0 on success, 1 on a script error (a timeout or the memory budget
// included), 2 on bad usage, 3 on an internal error (the process died of
// a Go fatal error, seen by a supervising parent: package autopsy) and 130
// when Ctrl-C stopped a script.
// See docs/scripting.md and docs/repl.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bitsh/bitsh/cmd/bitsh/internal/autopsy"
	"github.com/bitsh/bitsh/interp"
	"github.com/chzyer/readline"
	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
)

// version is bitsh's version when the binary was not built from a tagged
// module version (go install ...@vX.Y.Z reports that one instead).
const version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK     = 0
	exitError  = 1 // the script failed
	exitUsage  = 2 // bad flags or arguments, unreadable script file
	progName   = "bitsh"
	stdinName  = "<stdin>"
	cmdLineArg = "<command-line>"
)

func main() {
	reportCrashes()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// reportCrashes makes a Go fatal error's report go to the supervising
// parent too (package autopsy), when there is one.
func reportCrashes() {
	if f := autopsy.CrashOutput(); f != nil {
		// SetCrashOutput keeps a close-on-exec duplicate, so that
		// processes the script starts do not hold the pipe open.
		debug.SetCrashOutput(f, debug.CrashOptions{})
		f.Close()
	}
}

// versionString returns the module version from the build information
// when there is one, else the version constant.
func versionString() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return version
}

const usageText = `usage: bitsh [flags] [FILE [ARGS...]]
       bitsh [flags] -c CODE [ARGS...]
       bitsh help [NAME]                  help() or help(NAME), as in the REPL
       bitsh fmt|check|kernel|lsp|merge ... (each with -h for its usage)

With no FILE, bitsh starts the REPL when standard input is a terminal and
otherwise runs standard input as a script ("-" names standard input).
The script sees ARGS as the list of strings argv. A script named like a
subcommand (help, merge) runs as ./NAME.
Exit status: 0 on success, 1 on a script error (timeout and memory budget
included) or a failed write to standard output, 2 on bad usage, 3 on an internal error (Go fatal error), 130
when Ctrl-C stopped the script.

flags:
`

// subcommands are the words that, first on the command line, run
// something other than a script (bitsh merge ...). Each lives in a file
// of its own that adds itself here from an init function. A script whose
// name is a subcommand runs as ./NAME (or after --: bitsh -- merge).
var subcommands = map[string]func(args []string, stdin io.Reader, stdout, stderr io.Writer) int{}

// run is bitsh's main program: it parses args (without the program name),
// runs what they ask for and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &watchedOutput{w: stdout}
	return out.failed(runArgs(args, stdin, out, stderr), stderr)
}

// runArgs is run, its standard output watched for a write error.
func runArgs(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if sub, ok := subcommands[args[0]]; ok {
			return sub(args[1:], stdin, stdout, stderr)
		}
	}
	fs := flag.NewFlagSet(progName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		code      = fs.String("c", "", "run `CODE` instead of a file")
		timeout   = fs.Duration("timeout", 0, "cancel the run (each input, in the REPL) after `DURATION`; 0 means never")
		maxSteps  = fs.Uint64("max-steps", 0, "cap the Starlark execution steps of a run at `N`; 0 means no cap")
		maxMem    = fs.String("max-memory", "", "stop a run when the heap exceeds `SIZE` (512M, 2G; 0: no budget); default 3/4 of the memory available")
		workers   = fs.Int("workers", 0, "cap the goroutines of parallel builtins at `N`; 0 means GOMAXPROCS")
		showVer   = fs.Bool("version", false, "print the version and exit")
		profOut   = fs.String("profile", "", "write a profile of the run's Starlark functions (wall time, pprof format) to `FILE`; go tool pprof -top FILE reads it")
		interpOn  = fs.Bool("interpret", false, "run every plain function in the interpreter (no function runs as machine code; docs/scripting.md)")
		natReport = fs.Bool("native-report", false, "print to stderr, when the script ends, for each function offered to run as machine code, its calls run as code and by the interpreter, and why")
		natStrict = fs.Bool("native-strict", false, "make a function offered to run as machine code that is not compiled, or a call of it that the interpreter runs, an error")
		sh        = addShardFlags(fs) // -shard, -j, -o: shard.go
	)
	usage := func() {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, usageText)
		fs.PrintDefaults()
	}
	// As for FILE (and as python -c does), the arguments after -c CODE
	// are the script's, flags included.
	flagArgs, codeArgs := splitAtCode(fs, args)
	if err := fs.Parse(flagArgs); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			usage()
			return exitOK
		}
		return usageError(stderr, "%v (bitsh -h for usage)", err)
	}
	codeSet := false
	fs.Visit(func(f *flag.Flag) { codeSet = codeSet || f.Name == "c" })
	if *showVer {
		fmt.Fprintf(stdout, "%s %s (%s)\n", progName, versionString(), runtime.Version())
		return exitOK
	}
	if *timeout < 0 {
		return usageError(stderr, "-timeout %v is negative", *timeout)
	}
	if *workers < 0 {
		return usageError(stderr, "-workers %d is negative", *workers)
	}
	if *natStrict && (*interpOn || *maxSteps > 0 || *profOut != "") {
		return usageError(stderr, "-native-strict with -interpret, -max-steps or -profile: those runs interpret every function")
	}
	budget, err := memoryBudget(*maxMem)
	if err != nil {
		return usageError(stderr, "%v", err)
	}

	rest := fs.Args()
	var (
		filename string // names the script in errors
		src      []byte // nil for the REPL
		argv     []string
		repl     bool
	)
	switch {
	case codeSet:
		filename, src, argv = cmdLineArg, []byte(*code), append(rest, codeArgs...)
	case len(rest) > 0 && rest[0] != "-":
		data, status, ok := readSource("", rest[0], nil, *timeout, budget, stderr)
		if !ok {
			return status
		}
		filename, src, argv = rest[0], data, rest[1:]
	default:
		if f, ok := stdin.(*os.File); ok && len(rest) == 0 && readline.IsTerminal(int(f.Fd())) {
			repl = true
			break
		}
		data, status, ok := readSource("", stdinName, stdin, *timeout, budget, stderr)
		if !ok {
			return status
		}
		filename, src, argv = stdinName, data, rest[min(1, len(rest)):]
	}

	list := make([]starlark.Value, len(argv))
	for i, a := range argv {
		list[i] = starlark.String(a)
	}
	if msg := sh.validate(repl); msg != "" {
		return usageError(stderr, "%s", msg)
	}
	interpStderr := stderr
	if !repl {
		// Buffered standard output: bufout.go.
		out := newBufferedOutput(stdout)
		out.share()
		defer out.stop()
		flushing := flushingWriter{w: stderr, out: out}
		if f, ok := stderr.(*os.File); !ok || !readline.IsTerminal(int(f.Fd())) {
			interpStderr = flushing // progress bars want the terminal's *os.File
		}
		stdout, stderr = out, flushing
	}
	opts := []interp.Option{
		interp.WithStdout(stdout),
		interp.WithStderr(interpStderr),
		interp.WithMaxSteps(*maxSteps),
		interp.WithMaxMemory(budget),
		interp.WithWorkers(*workers),
		interp.WithInterpreted(*interpOn),
		interp.WithNativeStrict(*natStrict),
		// Nothing runs after a script: its globals need not be frozen (a
		// REPL's never are).
		interp.WithUnfrozenScript(true),
		interp.WithPredeclared(starlark.StringDict{"argv": starlark.NewList(list)}),
	}
	if *natReport {
		opts = append(opts, interp.WithNativeReport(stderr))
	}
	in := interp.New(append(opts, sh.options()...)...)
	if *profOut != "" {
		stop, err := profileFile(*profOut, stderr)
		if err != nil {
			return usageError(stderr, "-profile: %v", err)
		}
		defer stop()
	}
	if repl {
		status := runREPL(in, stdin.(*os.File), stdout, stderr, *timeout)
		if *natReport {
			in.WriteNativeReport(stderr)
		}
		return status
	}

	return sh.run(in, opts, filename, src, argv, *timeout, stdout, stderr)
}

// splitAtCode cuts args after the flag -c CODE: it returns the flags up
// to CODE, for fs to parse, and the arguments after it. Without -c it
// returns args whole.
func splitAtCode(fs *flag.FlagSet, args []string) (flags, after []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break // the flags end here
		}
		name, _, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name == "c" {
			if hasValue {
				return args[:i+1], args[i+1:]
			}
			if i+1 < len(args) {
				return args[:i+2], args[i+2:]
			}
			break
		}
		if f := fs.Lookup(name); f != nil && !hasValue {
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				i++ // the flag's value
			}
		}
	}
	return args, nil
}

// withTimeout returns ctx with a deadline d from now (none when d == 0)
// whose cause says "timeout after d".
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d == 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeoutCause(ctx, d, fmt.Errorf("timeout after %v", d))
}

func usageError(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", progName, fmt.Sprintf(format, args...))
	return exitUsage
}

// printError writes err to w: the Starlark backtrace (each frame as
// file:line:col) for an evaluation error, every message of a resolve
// error list, else the error's text. A cancelled run also gets its cause
// when the message does not already say it.
func printError(w io.Writer, err error) {
	var text string
	var ee *starlark.EvalError
	var el resolve.ErrorList
	switch {
	case errors.As(err, &ee):
		text = interp.Backtrace(ee)
	case errors.As(err, &el):
		lines := make([]string, len(el))
		for i, e := range el {
			lines[i] = e.Error()
		}
		text = strings.Join(lines, "\n")
	default:
		text = err.Error()
	}
	fmt.Fprintln(w, strings.TrimRight(text, "\n"))
	var ce *interp.CancelledError
	if errors.As(err, &ce) && ce.Cause != nil && !strings.Contains(text, ce.Cause.Error()) {
		fmt.Fprintf(w, "%s: %v\n", progName, ce.Cause)
	}
}
