package autopsy

import "syscall"

// childAttr makes the kernel kill the child when the parent dies, even of
// SIGKILL (timeout -s KILL, the OOM killer, a job manager), which the
// parent cannot forward: without it the child, reparented, ran on. The
// signal comes when the thread that started the child ends, so the parent
// starts it from a goroutine locked to its thread (supervise).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// watchParent has nothing to do on Linux: childAttr's signal does it.
func watchParent() {}
