package interp

import (
	"fmt"

	"go.starlark.net/syntax"
)

// MaxNesting is how deep a script's syntax tree may be. go.starlark.net's
// parser refuses brackets nested more than about 80 deep ("excessive
// nesting"), but builds chains of binary operators, calls, indexes and
// attributes (1+1+1+..., f()()()..., a.b.b...) in a loop, as trees as deep
// as the chain is long, which its resolver, its compiler and syntax.Walk
// then descend recursively: a chain of four million additions exhausted
// the stack and killed the process. A chain of 100,000 compiles in a
// fraction of a second.
const MaxNesting = 100000

// CheckNesting returns a syntax.Error when the tree under n is more than
// MaxNesting deep. It descends at most MaxNesting levels itself, so it
// is safe on any tree the parser returns. Call it on a parsed file before
// resolving, compiling or walking it recursively; bitsh's ways of running
// code (Exec, ExecFile, Eval, ExecInteractive) do.
func CheckNesting(n syntax.Node) error {
	// ifs[i] says whether the node at depth i+1 of the path is an if
	// statement (an elif is an if in the else of the one before), to say
	// which construct went too deep.
	var ifs []bool
	nIfs, deepIfs := 0, 0
	var deep syntax.Node
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil {
			if ifs[len(ifs)-1] {
				nIfs--
			}
			ifs = ifs[:len(ifs)-1]
			return false
		}
		if deep != nil {
			return false
		}
		if len(ifs) == MaxNesting {
			deep, deepIfs = n, nIfs // Walk does not call f(nil) for a node it does not descend
			return false
		}
		_, isIf := n.(*syntax.IfStmt)
		if isIf {
			nIfs++
		}
		ifs = append(ifs, isIf)
		return true
	})
	if deep == nil {
		return nil
	}
	pos, _ := deep.Span()
	if deepIfs > MaxNesting/2 {
		return syntax.Error{Pos: pos, Msg: fmt.Sprintf("if/elif chain nested more than %d deep (each elif is an if inside the else of the one before: split the chain, or look the cases up in a dict)", MaxNesting)}
	}
	return syntax.Error{Pos: pos, Msg: fmt.Sprintf("expression nested more than %d deep (a chain of operators, calls or attributes this long: split it)", MaxNesting)}
}
