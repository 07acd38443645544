//go:build unix && !linux

package autopsy

import (
	"os"
	"syscall"
	"time"
)

// childAttr: other systems have no parent-death signal; the child watches
// its parent instead (watchParent).
func childAttr() *syscall.SysProcAttr { return nil }

// watchParent, in the child, kills the child when its parent is gone, as
// Linux's parent-death signal does: the parent cannot forward a SIGKILL
// (timeout -s KILL, the OOM killer, a job manager), and the child,
// reparented, would run on. A reparented process has another parent ID.
func watchParent() {
	parent := os.Getppid()
	go func() {
		for range time.Tick(100 * time.Millisecond) {
			if os.Getppid() != parent {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}()
}
