//go:build unix

package autopsy

import (
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// No os/exec, io or golang.org/x/sys/unix here: see the imports of
// autopsy.go (runtime is initialized before os).

// available: the parent needs Unix signals and process groups.
const available = true

// supervise runs the command again as a child process with args (os.Args)
// and waits for it; it returns the child's exit status, ExitFatal when the
// child died of a Go fatal error, and ok false when the child could not be
// started. A child killed by a signal gets the parent killed by the same
// signal.
func supervise(args []string) (status int, ok bool) {
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	defer pr.Close()

	// Catch (not ignore: an ignored signal stays ignored in the child)
	// before the child starts, so that none is lost in between.
	sigc := make(chan os.Signal, 4)
	signal.Notify(sigc, forwarded...)
	defer signal.Stop(sigc)

	// The child dies with the parent (childAttr): on Linux when the
	// thread that starts it ends, so this goroutine keeps its thread to
	// the end (the parent exits from here).
	runtime.LockOSThread()
	child, err := os.StartProcess(exe, args, &os.ProcAttr{
		Env:   append(os.Environ(), SupervisedEnv+"=3"),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr, pw}, // the report on 3
		Sys:   childAttr(),
	})
	pw.Close()
	if err != nil {
		return 0, false
	}

	report := make(chan []byte, 1)
	go func() { report <- readAll(pr) }()
	exited := make(chan *os.ProcessState, 1)
	go func() {
		ps, _ := child.Wait()
		exited <- ps
	}()
	var ps *os.ProcessState
	for waiting := true; waiting; {
		select {
		case sig := <-sigc:
			if fromTerminal(sig) {
				// The terminal sent it to the whole foreground process
				// group, the child included: delivering it again would
				// count as a second Ctrl-C.
				continue
			}
			child.Signal(sig)
		case ps = <-exited:
			waiting = false
		}
	}
	if ps == nil || ps.Sys() == nil {
		os.Stderr.WriteString("bitsh: internal error: lost the child process\n")
		return ExitFatal, true
	}

	var crash []byte
	select {
	case crash = <-report:
	case <-time.After(time.Second):
		// Something the child started holds the pipe: its report, if
		// any, was written before the child exited.
	}
	ws, _ := ps.Sys().(syscall.WaitStatus)
	return ended(crash, ws), true
}

// ended returns the status the parent exits with for a child that ended
// with wait status ws and left the crash report crash: ExitFatal for a
// crash (reported on standard error), else the child's status; a child
// killed by a signal gets the parent killed by the same one first.
func ended(crash []byte, ws syscall.WaitStatus) int {
	if len(crash) > 0 && !quitDump(string(crash)) {
		reportCrash(string(crash))
		return ExitFatal
	}
	if ws.Signaled() {
		dieOf(ws.Signal())
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// readAll reads f to its end.
func readAll(f *os.File) []byte {
	var data []byte
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		data = append(data, buf[:n]...)
		if err != nil {
			return data
		}
	}
}

// forwarded are the signals the parent passes on to the child.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// fromTerminal reports whether sig is one a terminal sends to its
// foreground process group (Ctrl-C, Ctrl-\) while this process is in that
// group: the child, in the same group, got it too. Sent to the parent
// alone (kill PID, a process with no terminal), it is forwarded.
func fromTerminal(sig os.Signal) bool {
	if sig != syscall.SIGINT && sig != syscall.SIGQUIT {
		return false
	}
	pgrp := syscall.Getpgrp()
	for fd := range 3 {
		var fg int32
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&fg)))
		if errno == 0 {
			return int(fg) == pgrp
		}
	}
	return false
}

// reportCrash says on standard error that the child died of a Go fatal
// error: the runtime has printed the report there already; the parent
// keeps a copy in a file, since a goroutine dump can be long, and ends
// with one line that says what happened and where the report is.
func reportCrash(report string) {
	where := "above"
	if f, err := os.CreateTemp("", "bitsh-crash-*.txt"); err == nil {
		_, werr := f.WriteString(report)
		if cerr := f.Close(); werr == nil && cerr == nil {
			where = "above, and in " + f.Name()
		}
	}
	os.Stderr.WriteString("bitsh: internal error (Go fatal error): " + Summary(report) + " (the report is " + where + ")\n")
}

// dieOf kills this process with sig, as the child died of it, so that a
// shell sees the same end. It returns when the signal did not kill it:
// for the signals Go's runtime turns into a goroutine dump and status 2
// (SIGQUIT, SIGABRT, ...), whose dump would be the parent's, and for
// SIGPIPE, which Go ignores unless a write to standard output or error
// raised it; the caller then exits 128 + sig, as a shell reports it.
func dieOf(sig syscall.Signal) {
	switch sig {
	case syscall.SIGQUIT, syscall.SIGABRT, syscall.SIGILL, syscall.SIGTRAP,
		syscall.SIGSEGV, syscall.SIGBUS, syscall.SIGFPE, syscall.SIGSYS:
		return
	}
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(100 * time.Millisecond)
}
