//go:build !unix

package autopsy

// available: without Unix signals the command runs in one process.
const available = false

func supervise(args []string) (int, bool) { return 0, false }

func watchParent() {}
