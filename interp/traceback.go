package interp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bitsh/bitsh/builtins"
	"go.starlark.net/starlark"
)

// MaxTracebackLines bounds the frame lines of Backtrace: an unbounded
// recursion stops at go.starlark.net's depth limit with thousands of
// frames, and no reader wants megabytes of them.
const MaxTracebackLines = 100

// foldAfter is how many times a repeated frame (or cycle of frames) is
// shown before the rest are counted, as Python does.
const foldAfter = 3

// maxCycle is the longest cycle of frames (mutual recursion) that folds.
const maxCycle = 8

// Backtrace returns the error's Starlark call stack and message, like
// (*starlark.EvalError).Backtrace, but short: consecutive repetitions of
// a frame or of a cycle of frames are shown three times and then counted
// ("  … 9,990 more calls of fact"), and when more than MaxTracebackLines
// frame lines remain, the middle ones are counted too. The REPL, bitsh's
// scripts and a notebook kernel print errors with it.
func Backtrace(e *starlark.EvalError) string {
	stack := e.CallStack
	suffix := ""
	if last := len(stack) - 1; last >= 0 && stack[last].Pos.Filename() == "<builtin>" {
		suffix = " in " + stack[last].Name
		stack = stack[:last]
	}
	var b strings.Builder
	if len(stack) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
	}
	lines := foldFrames(stack)
	if len(lines) > MaxTracebackLines {
		head, tail := MaxTracebackLines/2, MaxTracebackLines/2-1
		hidden := len(lines) - head - tail
		lines = append(append(lines[:head:head], fmt.Sprintf("  … %s more lines of the call stack", group(hidden))), lines[len(lines)-tail:]...)
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "Error%s: %s", suffix, shortMessage(e.Msg))
	return b.String()
}

// maxMessageBytes bounds the message Backtrace shows: builtins abbreviate
// the values they name (builtins.Short), and a message still longer (a
// value named by code that does not) keeps its start and its end.
const maxMessageBytes = 2000

// shortMessage returns msg when it is at most maxMessageBytes long, else
// msg with its long numbers abbreviated (builtins.ShortText), and if that
// is still too long its first and last bytes with the number of bytes
// left out.
func shortMessage(msg string) string {
	if len(msg) <= maxMessageBytes {
		return msg
	}
	if msg = builtins.ShortText(msg); len(msg) <= maxMessageBytes {
		return msg // its long numbers abbreviated
	}
	head, tail := maxMessageBytes*3/4, maxMessageBytes/4
	for head > 0 && msg[head]&0xC0 == 0x80 {
		head--
	}
	for tail > 0 && msg[len(msg)-tail]&0xC0 == 0x80 {
		tail--
	}
	return fmt.Sprintf("%s … (%s bytes left out) … %s", msg[:head], group(len(msg)-head-tail), msg[len(msg)-tail:])
}

// foldFrames formats the frames one per line, folding repetitions.
func foldFrames(stack starlark.CallStack) []string {
	var lines []string
	for i := 0; i < len(stack); {
		p, reps := cycleAt(stack, i)
		if reps <= foldAfter {
			lines = append(lines, frameLine(stack[i]))
			i++
			continue
		}
		for j := range foldAfter * p {
			lines = append(lines, frameLine(stack[i+j]))
		}
		names := make([]string, 0, p)
		for _, fr := range stack[i : i+p] {
			if !slices.Contains(names, fr.Name) {
				names = append(names, fr.Name)
			}
		}
		lines = append(lines, fmt.Sprintf("  … %s more calls of %s", group((reps-foldAfter)*p), strings.Join(names, ", ")))
		i += reps * p
	}
	return lines
}

// cycleAt finds the shortest cycle of frames starting at i that repeats
// more than foldAfter times, and returns its length and repetitions
// (reps is 1 when there is none).
func cycleAt(stack starlark.CallStack, i int) (period, reps int) {
	for p := 1; p <= maxCycle && i+p <= len(stack); p++ {
		n := 1
		for i+(n+1)*p <= len(stack) && sameFrames(stack[i:i+p], stack[i+n*p:i+(n+1)*p]) {
			n++
		}
		if n > foldAfter {
			return p, n
		}
	}
	return 1, 1
}

func sameFrames(a, b starlark.CallStack) bool {
	for k := range a {
		if a[k].Name != b[k].Name || a[k].Pos != b[k].Pos {
			return false
		}
	}
	return true
}

func frameLine(fr starlark.CallFrame) string { return fmt.Sprintf("  %s: in %s", fr.Pos, fr.Name) }

// group writes n with thousands separators (9,990).
func group(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
