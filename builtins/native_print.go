package builtins

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/starlark"
)

// Prints from machine code (docs/internals/fuse.md, "Callouts"). A plain
// function run as code hands each print to Go (a fuse.Callout), which
// prints the line at once, as the interpreter would, and the code goes
// on. A run that then fails is run again by the interpreter, from the
// start (native_calls.go), and that rerun would print the same lines
// again: the interpreter's rerun is deterministic up to where the code
// failed (the code changed nothing the program sees; lists it wrote are
// written back only when it succeeds), so its first lines are exactly
// those the code printed. printReplay keeps the thread's output the
// interpreter's: it counts the lines a rerun will reproduce, and the
// prints of the rerun (the interpreter's, or those of code the rerun
// calls) skip that many, each checked to be the line printed.

// maxReplayHashes bounds the lines of a failed run whose text a rerun's
// lines are checked against; the lines past it are only counted.
const maxReplayHashes = 1 << 16

// A printReplay is a thread's account of the lines printed by code that
// a rerun may reproduce. The lines of the thread's output are numbered
// as the interpreter would print them: pos is the next line's number,
// lines the number of lines written; pos < lines while a rerun reproduces
// lines written already, which are skipped. hashes holds the hashes of
// lines 0 .. len(hashes)-1 (at most maxReplayHashes). runs counts the runs
// of code with callouts in progress (more than one where a helper that
// code calls in the interpreter calls code in turn: each run notes where
// it started, and one that fails rewinds to there, its own lines and
// those of the runs within it); while none is and nothing is to be
// reproduced, the account is empty.
type printReplay struct {
	pos, lines int
	hashes     []uint64
	runs       int
}

// emitHash returns the hash of an emit, for the account of printed lines
// (an emit is replayed as a line is).
func emitHash(key, op string, value starlark.Value) uint64 {
	return printHash("\x00emit\x00"+key+"\x00"+op+"\x00", value.String())
}

// printHash returns the hash of a printed line: its text and end.
func printHash(text, end string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, text)
	io.WriteString(h, end)
	return h.Sum64()
}

// skip reports whether the line text+end is one a rerun reproduces, and
// counts it; one that is not the line expected (a rerun that ended before
// the line, on an error a catch caught) ends the replay.
func (rp *printReplay) skip(text, end string) bool {
	return rp.pos < rp.lines && rp.skipHash(printHash(text, end))
}

// skipHash is skip for a line (or an emit: emitHash) of hash h.
func (rp *printReplay) skipHash(h uint64) bool {
	if rp.pos >= rp.lines {
		return false
	}
	if rp.pos >= len(rp.hashes) || rp.hashes[rp.pos] == h {
		rp.pos++
		rp.settle()
		return true
	}
	rp.lines, rp.hashes = rp.pos, rp.hashes[:rp.pos]
	rp.settle()
	return false
}

// wrote counts a line written while code with callouts runs.
func (rp *printReplay) wrote(text, end string) {
	if rp.runs > 0 {
		rp.wroteHash(printHash(text, end))
	}
}

// wroteHash is wrote for a line (or an emit: emitHash) of hash h.
func (rp *printReplay) wroteHash(h uint64) {
	if rp.runs == 0 {
		return
	}
	if rp.lines == len(rp.hashes) && rp.lines < maxReplayHashes {
		rp.hashes = append(rp.hashes, h)
	}
	rp.lines++
	rp.pos++
}

// start records the start of a run of code with callouts and returns
// where the thread's lines are at it, for end.
func (rp *printReplay) start() int {
	rp.runs++
	return rp.pos
}

// end records the end of the run that started at line p0: where it
// failed, the interpreter runs the call again and reproduces the lines
// from p0 on.
func (rp *printReplay) end(p0 int, failed bool) {
	rp.runs--
	if failed {
		rp.pos = p0
	}
	rp.settle()
}

// settle empties the account where nothing is left to reproduce and no
// run records lines.
func (rp *printReplay) settle() {
	if rp.runs == 0 && rp.pos >= rp.lines {
		rp.pos, rp.lines, rp.hashes = 0, 0, rp.hashes[:0]
	}
}

// replayOf returns thread's account of lines, nil where the thread has no
// environment (SetEnv).
func replayOf(thread *starlark.Thread) *printReplay {
	if e := envOf(thread); e != nil {
		return &e.replay
	}
	return nil
}

// writePrint writes a printed line as print does: text followed by end,
// through the thread's Print where end ends a line, else to its standard
// output; a line a rerun reproduces is skipped (printReplay).
func writePrint(thread *starlark.Thread, text, end string) error {
	rp := replayOf(thread)
	if rp != nil && rp.skip(text, end) {
		return nil
	}
	line0 := text
	// A line goes through the thread's Print, as Starlark's print does
	// (an embedder may capture it there); a partial line goes to the
	// thread's standard output, where Print writes in bitsh.
	if line, ok := strings.CutSuffix(end, "\n"); ok && thread.Print != nil {
		if line != "" {
			text += line
		}
		thread.Print(thread, text)
	} else {
		if end != "" {
			text += end
		}
		if _, err := io.WriteString(Stdout(thread), text); err != nil {
			return fmt.Errorf("print: %w", err)
		}
	}
	if rp != nil {
		rp.wrote(line0, end)
	}
	return nil
}

// calloutOf returns the function a worker of nf hands its callouts to:
// each prints its line on the thread of r's run.
func (nf *nativeFunc) calloutOf(r *nativeRun) func(k int, ops []uint64) error {
	return func(k int, ops []uint64) error {
		c := &nf.f.Callouts[k]
		if c.Callee != nil {
			return nf.callOut(r, k, c, ops) // (native_callouts.go)
		}
		var err error
		if c.Emit != "" {
			var v starlark.Value = starlark.MakeUint64(ops[0])
			if c.Parts[0].Bool {
				v = starlark.Bool(ops[0] != 0)
			}
			err = emitValue(r.thread, "emit", c.Emit, c.Op, v)
		} else {
			err = writePrint(r.thread, c.TextWith(ops, r.keptText), c.End)
		}
		if err != nil {
			return err
		}
		if r.poll() {
			// The run was cancelled (by the print itself where its
			// output cannot be written): the code stops now.
			return fuse.ErrStopped
		}
		return nil
	}
}

// runPrinting runs one item of nf's code on r's worker, keeping the
// account of the lines it prints on thread where it has callouts: where
// the run fails (or panics), the interpreter's rerun reproduces them.
func (nf *nativeFunc) runPrinting(r *nativeRun, thread *starlark.Thread) (res []uint64, err error) {
	var rp *printReplay
	if hasCallouts(nf.f) {
		rp = replayOf(thread)
	}
	if rp == nil {
		_, res, err = r.w.Run(1, false)
		return res, err
	}
	p0, ran := rp.start(), false
	defer func() { rp.end(p0, !ran || err != nil) }()
	_, res, err = r.w.Run(1, false)
	ran = true
	return res, err
}

// hasCallouts reports whether f's code prints.
func hasCallouts(f *fuse.Func) bool { return len(f.Callouts) > 0 }
