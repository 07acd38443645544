package compile

import (
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Where recursion is broken. A helper that is part of a cycle of calls is
// compiled as a Proc when the compiler finds the cycle closing: the first
// helper of the cycle called again along the chain of inlined calls. In a
// cycle of two or more helpers that is not always the cheaper helper to
// call: a perft's perft calls play for each move in a loop, and play calls
// perft once after its move; breaking the cycle at play makes a call per
// move, at perft one per position. So before compiling, the compiler
// looks at the calls among the helpers the function reaches and, in each
// cycle of two or more, prefers as Procs the helpers that are called in
// the cycle only outside loops, where the cycle also has a call inside a
// loop: those run as calls wherever they are called, and the others are
// inlined into them.

// callEdge is a call of a helper by a helper (or the fused function).
type callEdge struct {
	from, to any // helperOf keys; the fused function is rootKey
	inLoop   bool
}

type rootKeyT struct{}

var rootKey rootKeyT

// preferredProcs returns the keys of the helpers that root's cycles of
// calls are best broken at (see above).
func (c *compiler) preferredProcs(root *Source) map[any]bool {
	var edges []callEdge
	seen := map[any]bool{rootKey: true}
	type node struct {
		key any
		src *Source
	}
	queue := []node{{rootKey, root}}
	for len(queue) > 0 && len(seen) < 256 {
		n := queue[0]
		queue = queue[1:]
		c.callsOf(n.src, func(h helperOf, inLoop bool) {
			edges = append(edges, callEdge{n.key, h.key(), inLoop})
			if seen[h.key()] {
				return
			}
			seen[h.key()] = true
			if src, err := h.source(); err == nil {
				queue = append(queue, node{h.key(), src})
			}
		})
	}
	// The strongly connected components (Tarjan), and in each of two or
	// more helpers, those that its calls reach only outside loops, where
	// some other call of it is in a loop.
	out := map[any][]callEdge{}
	for _, e := range edges {
		out[e.from] = append(out[e.from], e)
	}
	index, low, onStack := map[any]int{}, map[any]int{}, map[any]bool{}
	comp := map[any]int{}
	var stack []any
	next, ncomp := 0, 0
	var visit func(v any)
	visit = func(v any) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
		for _, e := range out[v] {
			if _, ok := index[e.to]; !ok {
				visit(e.to)
				low[v] = min(low[v], low[e.to])
			} else if onStack[e.to] {
				low[v] = min(low[v], index[e.to])
			}
		}
		if low[v] == index[v] {
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = ncomp
				if w == v {
					break
				}
			}
			ncomp++
		}
	}
	for k := range seen {
		if _, ok := index[k]; !ok {
			visit(k)
		}
	}
	size := map[int]int{}
	for _, cp := range comp {
		size[cp]++
	}
	inLoop, outLoop, loopy := map[any]bool{}, map[any]bool{}, map[int]bool{}
	for _, e := range edges {
		if comp[e.from] != comp[e.to] || size[comp[e.to]] < 2 {
			continue
		}
		if e.inLoop {
			inLoop[e.to] = true
			loopy[comp[e.to]] = true
		} else {
			outLoop[e.to] = true
		}
	}
	pref := map[any]bool{}
	for k := range outLoop {
		if !inLoop[k] && loopy[comp[k]] && k != rootKey {
			pref[k] = true
		}
	}
	return pref
}

// callsOf calls f with each helper that src's body calls by name, and
// whether the call is inside a loop.
func (c *compiler) callsOf(src *Source, f func(h helperOf, inLoop bool)) {
	params := map[string]bool{}
	for _, p := range src.Params {
		params[p.Name] = true
	}
	expr := func(x syntax.Node, inLoop bool) {
		if x == nil {
			return
		}
		syntax.Walk(x, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			name, ok := callee(call)
			if !ok || params[name] {
				return true
			}
			if c.opt.CheckOnly && c.opt.Defs != nil {
				if hsrc, ok := c.opt.Defs(name); ok {
					f(helperOf{name: name, source: func() (*Source, error) { return hsrc, nil }}, inLoop)
				}
				return true
			}
			if src.Free == nil || c.opt.Helper == nil {
				return true
			}
			if v, ok := src.Free(name); ok {
				if fn, ok := v.(*starlark.Function); ok {
					f(helperOf{id: fn, name: fn.Name(), source: func() (*Source, error) { return c.opt.Helper(fn) }}, inLoop)
				}
			}
			return true
		})
	}
	var stmts func(ss []syntax.Stmt, inLoop bool)
	stmts = func(ss []syntax.Stmt, inLoop bool) {
		for _, s := range ss {
			switch s := s.(type) {
			case *syntax.ForStmt:
				expr(s.X, inLoop)
				stmts(s.Body, true)
			case *syntax.WhileStmt:
				expr(s.Cond, true)
				stmts(s.Body, true)
			case *syntax.IfStmt:
				expr(s.Cond, inLoop)
				stmts(s.True, inLoop)
				stmts(s.False, inLoop)
			default:
				expr(s, inLoop)
			}
		}
	}
	stmts(src.Body, false)
}
