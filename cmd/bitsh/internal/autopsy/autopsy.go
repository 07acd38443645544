// Package autopsy runs the bitsh command under a supervising parent that
// learns for sure how the process doing the work died.
//
// Go's runtime exits with status 2 on a fatal error (a stack overflow,
// running out of address space) and nothing inside the process can change
// that; 2 is the status bitsh reserves for bad usage. So the command, as
// it starts, forks a child and waits: on Linux with cgo (the default
// build) from a C constructor, before Go's runtime starts, so that the
// parent never starts one (fork_linux.go); elsewhere from this package's
// init, which runs the command again as a child. The child hands its
// crash report to the parent through a pipe (runtime/debug.SetCrashOutput):
// when the report is not empty the child died of a Go fatal error or an
// unrecovered panic, and the parent says so in one line on standard error
// and exits with ExitFatal. Everything else is transparent: the child
// inherits standard input, output and error (and so the terminal), its
// exit status passes through, SIGTERM, SIGHUP and SIGQUIT are forwarded,
// SIGINT too unless the terminal sent it to the whole process group (the
// child got it already), a child killed by a signal gets the parent
// killed by the same one, and a parent killed (even by SIGKILL, which it
// cannot forward) takes the child with it.
//
// The parent also writes what the child left in standard output's buffer
// when it died of a crash or a signal (SharedOutput, Linux with cgo).
//
// Importing the package (for its side effect) starts the supervision: its
// C constructor, or else its init function, does the work, the latter
// before the packages the command imports run theirs, so that the parent
// skips them. Go initializes a package as soon as its imports are, in the order of the import paths otherwise;
// this one needs only the standard library's most basic packages, so it
// comes before every package that imports go.starlark.net (whose path
// sorts after it), and only kernels with no imports of bitsh's own come
// before it (GODEBUG=inittrace=1 shows the order: builtins/chess, 0.1 ms).
// Keep its imports so. The command bitsh imports it; an embedder of the
// interp package never does.
//
// Environment: BITSH_NO_SUPERVISOR set to anything but "" or "0" runs the
// command in one process (a Go fatal error then exits 2).
// BITSH_SUPERVISED marks the child that init runs again (not the forked
// one, which the constructor marks in memory). The notebook kernel (bitsh
// kernel) is not supervised: Jupyter sees its death and restarts it, and it
// interrupts a kernel by signalling its whole process group, which a
// parent would make two interrupts. Test binaries (named *.test) are not
// supervised either, except when they run as the bitsh command.
package autopsy

import (
	"os"
	"sync/atomic"
)

// The package imports as little as it can, none of strings, strconv, fmt
// or runtime/debug: each import must be initialized before this package,
// and the later this package's turn comes, the more of the command's
// start-up the parent pays for (see the package documentation). So the
// child's side, which needs runtime/debug, is left to the command
// (CrashOutput).

// ExitFatal is the exit status of a command whose process died of a Go
// fatal error or an unrecovered panic: an internal error of bitsh.
const ExitFatal = 3

const (
	// SupervisedEnv marks the child: its value is the file descriptor of
	// the pipe the crash report goes to.
	SupervisedEnv = "BITSH_SUPERVISED"

	// NoSupervisorEnv, set to anything but "" or "0", runs the command in
	// one process, without the parent.
	NoSupervisorEnv = "BITSH_NO_SUPERVISOR"
)

// crashFD is the child's end of the pipe for the crash report.
const crashFD = 3

func init() {
	if forkedInit() {
		return
	}
	if os.Getenv(SupervisedEnv) != "" {
		watchParent() // the child, which dies with its parent
		return
	}
	if supervised(os.Args) {
		if status, ok := supervise(os.Args); ok {
			os.Exit(status)
		}
		// The child could not be started: do the work here.
	}
}

// CrashOutput returns, in the child of a supervising parent, the pipe
// where the parent reads a crash report: the command passes it to
// runtime/debug.SetCrashOutput, and may close it then. It returns nil in
// a process that is not supervised. It also removes the mark of the
// child from the environment: the processes a script starts (bitsh -j
// starts its workers) are not this parent's children.
func CrashOutput() *os.File {
	if f := forkedCrashOutput(); f != nil {
		return f
	}
	if os.Getenv(SupervisedEnv) != "3" {
		return nil
	}
	os.Unsetenv(SupervisedEnv)
	return os.NewFile(crashFD, "crash-report")
}

// supervised reports whether the command for args (os.Args) runs under a
// supervising parent (see the package documentation).
func supervised(args []string) bool {
	if !available {
		return false
	}
	if v := os.Getenv(NoSupervisorEnv); v != "" && v != "0" {
		return false
	}
	if len(args) == 0 || hasSuffix(args[0], ".test") {
		return false
	}
	return len(args) < 2 || args[1] != "kernel"
}

// quitDump reports whether a crash report is the goroutine dump Go prints
// on SIGQUIT (Ctrl-\ on a terminal, kill -QUIT): asked for, not an
// internal error; the child's status (Go's 2) passes through.
func quitDump(report string) bool {
	for _, l := range splitLines(report) {
		if l != "" {
			return hasPrefix(l, "SIGQUIT: quit")
		}
	}
	return false
}

// Summary returns what a crash report says went wrong: its panic line
// ("panic: ..."), else, for a fatal error of the runtime (whose message
// goes to standard error only, before the report), what the function that
// threw it names: "fatal error: stack overflow", "fatal error: out of
// memory", or "fatal error in runtime.F".
func Summary(report string) string {
	lines := splitLines(report)
	for _, l := range lines {
		if hasPrefix(l, "panic: ") || hasPrefix(l, "fatal error: ") {
			return l
		}
	}
	for i, l := range lines {
		if !hasPrefix(l, "runtime.throw(") && !hasPrefix(l, "runtime.fatal(") {
			continue
		}
		// The next frame: a function line, after the file line.
		for _, f := range lines[i+1:] {
			if f == "" || f[0] == '\t' {
				continue
			}
			fn := f // runtime.(*mcache).refill(0x5): the arguments last
			for j := len(f) - 1; j > 0; j-- {
				if f[j] == '(' {
					fn = f[:j]
					break
				}
			}
			switch {
			case fn == "runtime.newstack":
				return "fatal error: stack overflow"
			case contains(fn, "sysMap") || contains(fn, "mcache") || contains(fn, "mheap") || contains(fn, "arena"):
				return "fatal error: out of memory"
			}
			return "fatal error in " + fn
		}
	}
	return "fatal error"
}

// splitLines, hasPrefix, hasSuffix and contains do what package strings
// does, which this package does not import.
func splitLines(s string) []string {
	var lines []string
	for start, i := 0, 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '\n' {
			lines = append(lines, s[start:i])
			start = i + 1
		}
	}
	return lines
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func hasSuffix(s, p string) bool { return len(s) >= len(p) && s[len(s)-len(p):] == p }

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// An OutputMark heads standard output's buffer when it is shared with the
// supervising parent (SharedOutput): the bytes the buffer holds, and how
// many of them are written. The parent reads it after the child died of
// a crash or a signal, and writes what is left.
type OutputMark struct {
	Pending, Written atomic.Uint64
}

// SharedOutput returns, in the child of a parent forked before Go's
// runtime started (Linux with cgo), memory that the parent reads when the
// child dies of a crash or a signal: a buffer for standard output, and its
// mark, which the writer keeps up to date (bytes appended: Pending; bytes
// written: Written; both 0 once all is written). The first call gets it;
// later ones, and other processes, get nil.
func SharedOutput() ([]byte, *OutputMark) {
	if !sharedOutputTaken.CompareAndSwap(false, true) {
		return nil, nil
	}
	return forkedOutput()
}

var sharedOutputTaken atomic.Bool
