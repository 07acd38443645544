//go:build linux && cgo

package autopsy

// The supervising parent, forked before Go's runtime starts. A C
// constructor runs when the program is loaded, before the runtime and any
// package's init: there the process is a small single-threaded C program,
// and fork(2) gives the child at the cost of copying a few page tables,
// where running the command again (supervise, the fallback of the other
// builds) pays for a second exec, dynamic loader and Go runtime. The child
// returns from the constructor and starts bitsh as usual; the parent waits
// for it, forwards signals and reads the crash report, all in C, and exits
// with the child's status without ever starting Go's runtime. Only when
// the report is not empty does it return from the constructor, so that Go
// starts in the parent too and init (parentAfterCrash) reports the crash
// as supervise did.

/*
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

// bitsh_autopsy_role: what the constructor made of this process.
enum {
	ROLE_NONE = 0,   // not supervised here: the Go side decides
	ROLE_CHILD = 1,  // the forked child: bitsh_autopsy_fd is the report's pipe
	ROLE_CRASH = 2,  // the parent of a child whose report is not empty
	ROLE_ALONE = 3,  // the fork failed: the command runs in one process
};
int bitsh_autopsy_role;
int bitsh_autopsy_fd = -1;
char *bitsh_autopsy_report;
size_t bitsh_autopsy_report_len;
int bitsh_autopsy_status; // the child's wait status, for ROLE_CRASH

// bitsh_autopsy_out is standard output's buffer, shared by the child
// (autopsy.SharedOutput) with the parent: a header (the bytes held, and
// those of them written), then BITSH_OUT_BYTES bytes. NULL when mmap
// failed.
#define BITSH_OUT_BYTES (64 << 10)
struct bitsh_out_header { uint64_t pending, written; };
void *bitsh_autopsy_out;

static pid_t bitsh_autopsy_child;
static const int bitsh_forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// from_terminal: fromTerminal of autopsy_unix.go.
static int bitsh_from_terminal(int sig) {
	if (sig != SIGINT && sig != SIGQUIT) {
		return 0;
	}
	pid_t pgrp = getpgrp();
	for (int fd = 0; fd < 3; fd++) {
		pid_t fg;
		if (ioctl(fd, TIOCGPGRP, &fg) == 0) {
			return fg == pgrp;
		}
	}
	return 0;
}

static void bitsh_forward(int sig) {
	int saved = errno;
	if (!bitsh_from_terminal(sig)) {
		kill(bitsh_autopsy_child, sig);
	}
	errno = saved;
}

static void bitsh_on_child(int sig) { (void)sig; }

static int bitsh_supervised(int argc, char **argv) {
	const char *v = getenv("BITSH_NO_SUPERVISOR");
	if (v != NULL && v[0] != '\0' && strcmp(v, "0") != 0) {
		return 0;
	}
	if (getenv("BITSH_SUPERVISED") != NULL) {
		return 0; // the child of supervise, run again by the Go side
	}
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		return 0;
	}
	size_t n = strlen(argv[0]);
	if (n >= 5 && strcmp(argv[0] + n - 5, ".test") == 0) {
		return 0;
	}
	return argc < 2 || strcmp(argv[1], "kernel") != 0;
}

static void bitsh_write_err(const char *s) {
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(2, s, n);
		if (w < 0 && errno == EINTR) {
			continue;
		}
		if (w <= 0) {
			return;
		}
		s += w;
		n -= (size_t)w;
	}
}

// bitsh_die_of: dieOf of autopsy_unix.go, then the status a shell reports.
static void bitsh_die_of(int sig) {
	switch (sig) {
	case SIGQUIT: case SIGABRT: case SIGILL: case SIGTRAP: case SIGSEGV:
	case SIGBUS: case SIGFPE: case SIGSYS: case SIGPIPE:
		_exit(128 + sig);
	}
	signal(sig, SIG_DFL);
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(SIG_UNBLOCK, &s, NULL);
	kill(getpid(), sig);
	struct timespec ts = {0, 100 * 1000 * 1000};
	nanosleep(&ts, NULL);
	_exit(128 + sig);
}

// bitsh_write_left writes to standard output what a dead child had
// buffered and not written.
static void bitsh_write_left(void) {
	if (bitsh_autopsy_out == NULL) {
		return;
	}
	struct bitsh_out_header *h = bitsh_autopsy_out;
	uint64_t p = h->pending, w = h->written;
	const char *data = (const char *)bitsh_autopsy_out + 4096;
	while (w < p && p <= BITSH_OUT_BYTES) {
		ssize_t n = write(1, data + w, p - w);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return;
		}
		w += (uint64_t)n;
	}
}

static double bitsh_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

// glibc passes a constructor the program's arguments.
__attribute__((constructor)) static void bitsh_autopsy_fork(int argc, char **argv, char **envp) {
	(void)envp;
	if (!bitsh_supervised(argc, argv)) {
		return;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		bitsh_autopsy_role = ROLE_ALONE;
		return;
	}
	// Block the forwarded signals and SIGCHLD before the fork, so that
	// none reaching the parent is lost before its handlers are in place;
	// the child restores the mask it was started with.
	sigset_t block, old;
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof bitsh_forwarded / sizeof bitsh_forwarded[0]; i++) {
		sigaddset(&block, bitsh_forwarded[i]);
	}
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	void *out = mmap(NULL, 4096 + BITSH_OUT_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	bitsh_autopsy_out = out == MAP_FAILED ? NULL : out;
	pid_t parent = getpid();
	pid_t child = fork();
	if (child < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[0]);
		close(fds[1]);
		bitsh_autopsy_role = ROLE_ALONE;
		if (bitsh_autopsy_out != NULL) {
			munmap(bitsh_autopsy_out, 4096 + BITSH_OUT_BYTES);
			bitsh_autopsy_out = NULL;
		}
		return;
	}
	if (child == 0) {
		// The child dies with the parent, even of SIGKILL, which the
		// parent cannot forward; if the parent is gone already, now.
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) {
			raise(SIGKILL);
		}
		close(fds[0]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		bitsh_autopsy_role = ROLE_CHILD;
		bitsh_autopsy_fd = fds[1];
		return;
	}
	close(fds[1]);
	bitsh_autopsy_child = child;
	struct sigaction sa, saved[4], savedChld;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = bitsh_forward;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < 4; i++) {
		sigaction(bitsh_forwarded[i], &sa, &saved[i]);
	}
	sa.sa_handler = bitsh_on_child;
	sigaction(SIGCHLD, &sa, &savedChld);
	sigset_t forwardedOnly = block;
	sigdelset(&forwardedOnly, SIGCHLD);
	sigprocmask(SIG_UNBLOCK, &forwardedOnly, NULL);
	// ppoll waits with SIGCHLD unblocked: a child's end between the
	// waitpid and the wait cannot be missed.
	sigset_t waitmask;
	sigprocmask(SIG_BLOCK, NULL, &waitmask);
	sigdelset(&waitmask, SIGCHLD);

	char *report = NULL;
	size_t len = 0, cap = 0;
	int status = 0, exited = 0, eof = 0;
	double deadline = 0;
	for (;;) {
		if (!exited) {
			pid_t w = waitpid(child, &status, WNOHANG);
			if (w == child) {
				exited = 1;
				// Something the child started may hold the pipe: its
				// report, if any, was written before the child exited.
				deadline = bitsh_now() + 1.0;
			} else if (w < 0 && errno != EINTR) {
				bitsh_write_err("bitsh: internal error: lost the child process\n");
				_exit(3);
			}
		}
		if (exited && eof) {
			break;
		}
		struct timespec ts, *tsp = NULL;
		if (exited) {
			double left = deadline - bitsh_now();
			if (left <= 0) {
				break;
			}
			ts.tv_sec = (time_t)left;
			ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
			tsp = &ts;
		}
		struct pollfd p = {fds[0], POLLIN, 0};
		int r = ppoll(&p, eof ? 0 : 1, tsp, &waitmask);
		if (r <= 0 || eof) {
			continue;
		}
		if (len == cap) {
			size_t ncap = cap == 0 ? 65536 : 2 * cap;
			char *nr = realloc(report, ncap);
			if (nr == NULL) {
				eof = 1;
				continue;
			}
			report = nr;
			cap = ncap;
		}
		ssize_t n = read(fds[0], report + len, cap - len);
		if (n > 0) {
			len += (size_t)n;
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			eof = 1;
		}
	}
	close(fds[0]);
	// A child that died of a crash or a signal other than SIGPIPE (which
	// says standard output is gone) leaves its buffered output here.
	if (len > 0 || (WIFSIGNALED(status) && WTERMSIG(status) != SIGPIPE)) {
		bitsh_write_left();
	}
	if (len > 0) {
		// Go reports it (parentAfterCrash): restore what Go's runtime
		// should find.
		for (int i = 0; i < 4; i++) {
			sigaction(bitsh_forwarded[i], &saved[i], NULL);
		}
		sigaction(SIGCHLD, &savedChld, NULL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		bitsh_autopsy_role = ROLE_CRASH;
		bitsh_autopsy_report = report;
		bitsh_autopsy_report_len = len;
		bitsh_autopsy_status = status;
		return;
	}
	if (WIFSIGNALED(status)) {
		bitsh_die_of(WTERMSIG(status));
	}
	_exit(WEXITSTATUS(status));
}
*/
import "C"

import (
	"os"
	"syscall"
	"unsafe"
)

// The roles of bitsh_autopsy_role.
const (
	roleChild = 1
	roleCrash = 2
	roleAlone = 3
)

// forkedInit is init's part when the constructor forked (or tried to): it
// reports the crash of a forked child and exits, and returns true in the
// child, or where the fork failed, so that init has nothing left to do. It
// returns false where the constructor left supervision to supervise.
func forkedInit() bool {
	switch C.bitsh_autopsy_role {
	case roleCrash:
		report := C.GoBytes(unsafe.Pointer(C.bitsh_autopsy_report), C.int(C.bitsh_autopsy_report_len))
		os.Exit(ended(report, syscall.WaitStatus(C.bitsh_autopsy_status)))
	case roleChild, roleAlone:
		return true
	}
	return false
}

// forkedOutput returns, in a forked child, standard output's buffer
// shared with the parent and its header; nil elsewhere.
func forkedOutput() ([]byte, *OutputMark) {
	if C.bitsh_autopsy_role != roleChild || C.bitsh_autopsy_out == nil {
		return nil, nil
	}
	base := unsafe.Pointer(C.bitsh_autopsy_out)
	return unsafe.Slice((*byte)(unsafe.Add(base, 4096)), C.BITSH_OUT_BYTES), (*OutputMark)(base)
}

// forkedCrashOutput returns, in a forked child, the pipe of its crash
// report; nil elsewhere.
func forkedCrashOutput() *os.File {
	if C.bitsh_autopsy_role != roleChild {
		return nil
	}
	return os.NewFile(uintptr(C.bitsh_autopsy_fd), "crash-report")
}
