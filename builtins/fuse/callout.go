package fuse

import (
	"strconv"
	"strings"
)

// Callouts (docs/internals/fuse.md, "Callouts"): an operation a Func's
// code cannot do itself, a print or an emit, is handed to whoever runs it, which does
// it and lets the run go on. The statements SOperand set the operands (one
// each), then SCallout names the callout; the runner reads the operands as
// words and the Callout says what they mean.

// MaxCalloutOperands bounds the operands of one callout.
const MaxCalloutOperands = 16

// A Callout is a line of text built from constant pieces and operands,
// the words a run computes: print's line, its separators included; or
// an emit of one operand.
type Callout struct {
	// Emit, where not "", makes the callout emit(Emit, operand 0, op=Op)
	// (a shard result) instead of a line: Parts then holds operand 0
	// alone, and End and the text are not used.
	Emit, Op string
	Parts    []CalloutPart
	Operands int // operands 0 .. Operands-1 (the SOperand statements before the SCallout)
	// End follows the text (print's end: "\n" unless it says otherwise);
	// Text leaves it out, for the runner to write a line as print does.
	End string
	// Callee, where not nil, makes the callout a call of a function that
	// stays interpreted (a *starlark.Function, or a builtin whose result
	// a print writes: a compile.Builtin, for the runner), with the
	// operands as its arguments, ints or, where Parts[i].Bool, bools;
	// Name is its name, for reports. Parts then holds one part per
	// operand, and Emit, End and the text are not used.
	Callee any
	Name   string
	// Result says what the call's result must be: the runner writes its
	// word into operand 0 (which the runner's view always has), and
	// OpResult reads it after the callout. A result that is not of its
	// kind ends the run with an error.
	Result CalloutResult
	// Keep, with Callee, says that the runner keeps the call's result,
	// whatever it is, for a later print's part (CalloutPart.Kept).
	Keep bool
}

// CalloutResult is the kind of value a call callout brings back.
type CalloutResult uint8

// The kinds of results of a call callout.
const (
	ResultAny  CalloutResult = iota // anything: the call is a statement, its result dropped
	ResultWord                      // an int in [0, 2^64), as its word
	ResultBool                      // a bool: 1 for True, 0 for False
)

// View returns the operands a runner is handed for c out of the room
// ops (at least one word, where the runner writes a call's result).
func (c *Callout) View(ops []uint64) []uint64 {
	return ops[:max(c.Operands, 1)]
}

// A CalloutPart is constant text, or an operand as Starlark writes it.
type CalloutPart struct {
	Text    string // where Operand < 0
	Operand int    // the operand, or -1 for Text
	// Verb is how the operand is written: 's' as str() does, 'd', 'o',
	// 'x' and 'X' as Starlark's % operator does.
	Verb byte
	// Bool, set by Exact, says that the operand is a bool (1 for True,
	// 0 for False), which only the verb 's' writes; else it is an int in
	// [0, 2^64).
	Bool bool
	// Kept, where not 0, makes the part the result that callout Kept-1
	// (a call with Keep) gave, a value only the runner holds, written as
	// str() does (Verb 's') or repr ('r'); Operand is then -1.
	Kept int
}

// Text returns the text c makes of the operands ops, without End.
func (c *Callout) Text(ops []uint64) string { return c.TextWith(ops, nil) }

// TextWith is Text where the parts may be results kept (CalloutPart.Kept):
// kept writes the result of callout k with the verb given.
func (c *Callout) TextWith(ops []uint64, kept func(k int, verb byte) string) string {
	var b strings.Builder
	var num [24]byte
	for _, p := range c.Parts {
		if p.Kept > 0 {
			if kept != nil {
				b.WriteString(kept(p.Kept-1, p.Verb))
			}
			continue
		}
		if p.Operand < 0 {
			b.WriteString(p.Text)
			continue
		}
		w := ops[p.Operand]
		switch {
		case p.Bool && w != 0:
			b.WriteString("True")
		case p.Bool:
			b.WriteString("False")
		case p.Verb == 'o':
			b.Write(strconv.AppendUint(num[:0], w, 8))
		case p.Verb == 'x':
			b.Write(strconv.AppendUint(num[:0], w, 16))
		case p.Verb == 'X':
			b.WriteString(strings.ToUpper(string(strconv.AppendUint(num[:0], w, 16))))
		default:
			b.Write(strconv.AppendUint(num[:0], w, 10))
		}
	}
	return b.String()
}

// SetCallout makes st hand its callouts to do, which gets the callout's
// index in Func.Callouts and its operands (a view, valid during the
// call); an error from do ends the run with it. Without one, a callout
// ends the run with ErrNoCallout.
func (st *FlowState) SetCallout(do func(k int, ops []uint64) error) { st.callout = do }

// ErrNoCallout ends a run that meets a callout with nobody to hand it to.
var ErrNoCallout = errorString("fused run: a callout with no runner to do it")

type errorString string

func (e errorString) Error() string { return string(e) }
