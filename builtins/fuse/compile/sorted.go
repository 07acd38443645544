package compile

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
	"go.starlark.net/syntax"
)

// sorted(x) of ints: the elements of x (a list, a list comprehension, a
// list written out, a set or a dict's keys) copied into a list of the
// function's own, sorted by a heapsort written in Starlark (heapSource)
// and compiled in the caller's scope under names no script can write
// (each prefixed with a space), then bound to a name (ys = sorted(xs)) or
// looped over (for v in sorted(d)).

// heapSource is the heapsort: a is the list, n its length.
const heapSource = `
def heapsort():
    start = n // 2
    while start > 0:
        start -= 1
        root = start
        while 2 * root + 1 < n:
            child = 2 * root + 1
            if child + 1 < n and a[child] < a[child + 1]:
                child += 1
            if a[root] < a[child]:
                t = a[root]
                a[root] = a[child]
                a[child] = t
                root = child
            else:
                break
    end = n
    while end > 1:
        end -= 1
        t = a[0]
        a[0] = a[end]
        a[end] = t
        root = 0
        while 2 * root + 1 < end:
            child = 2 * root + 1
            if child + 1 < end and a[child] < a[child + 1]:
                child += 1
            if a[root] < a[child]:
                t = a[root]
                a[root] = a[child]
                a[child] = t
                root = child
            else:
                break
`

// sortedCall reports whether e is sorted(x) of the builtin, with one
// argument.
func (c *compiler) sortedCall(e syntax.Expr) (*syntax.CallExpr, bool) {
	call, ok := unparen(e).(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || !c.opt.Exact {
		return nil, false
	}
	if kv, ok := call.Args[0].(*syntax.BinaryExpr); ok && kv.Op == syntax.EQ {
		return nil, false
	}
	if name, ok := callee(call); !ok || name != "sorted" || !c.isBuiltin(name) {
		return nil, false
	}
	return call, true
}

// sortedList compiles sorted(x) into a fresh list of the unit's own and
// returns its name (a hidden one) and binding.
func (c *compiler) sortedList(call *syntax.CallExpr) (*syntax.Ident, binding, error) {
	at := call.Lparen
	tmp := &syntax.Ident{NamePos: at, Name: fmt.Sprintf(" sorted %d:%d", at.Line, at.Col)}
	c.scope.appended[tmp.Name] = true
	if ok, err := c.growAssign(tmp, &syntax.ListExpr{Lbrack: at, Rbrack: at}); !ok || err != nil {
		if err == nil {
			err = errAt(at, "sorted is not allowed here in a function run as machine code")
		}
		return nil, binding{}, err
	}
	b := c.scope.names[tmp.Name]
	x := call.Args[0]
	if h, _, err := c.hashNamed(x); err != nil {
		return nil, binding{}, err
	} else if h != nil {
		// for k in d: tmp.append(k)
		u := &syntax.Ident{NamePos: at, Name: tmp.Name + " key"}
		add := &syntax.ExprStmt{X: &syntax.CallExpr{Fn: &syntax.DotExpr{X: tmp, Dot: at, NamePos: at, Name: &syntax.Ident{NamePos: at, Name: "append"}},
			Lparen: at, Args: []syntax.Expr{u}, Rparen: at}}
		if err := c.stmt(&syntax.ForStmt{For: at, Vars: u, X: x, Body: []syntax.Stmt{add}}); err != nil {
			return nil, binding{}, err
		}
	} else {
		ok, err := c.eachElement(x, func(elem *fuse.Expr) error { return c.appendWord(tmp, b, elem, at) })
		if err != nil {
			return nil, binding{}, err
		}
		if !ok {
			return nil, binding{}, errAt(pos(x), "sorted of %s is not allowed in a function run as machine code (a list, a list comprehension, a set or a dict)", describe(x))
		}
	}
	// The heapsort, its names made the caller's hidden ones.
	f, err := syntax.Parse("sorted", heapSource, 0)
	if err != nil {
		return nil, binding{}, fmt.Errorf("the heapsort: %w", err)
	}
	body := f.Stmts[0].(*syntax.DefStmt).Body
	// n, the list's length, is its length variable; the sort's other
	// locals are hidden names of its own.
	nName := tmp.Name + " n"
	c.scope.names[nName] = binding{kind: bVar, id: b.count - 1}
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			if id, ok := n.(*syntax.Ident); ok {
				switch id.Name {
				case "a":
					id.Name = tmp.Name
				case "n":
					id.Name = nName
				default:
					id.Name = tmp.Name + " " + id.Name
				}
				id.NamePos = at
			}
			return true
		})
	}
	if err := c.stmts(body); err != nil {
		return nil, binding{}, err
	}
	return tmp, b, nil
}

// sortedAssign compiles name = sorted(x); it reports false where rhs is
// no such call.
func (c *compiler) sortedAssign(id *syntax.Ident, rhs syntax.Expr) (bool, error) {
	call, ok := c.sortedCall(rhs)
	if !ok || !c.scope.appended[id.Name] {
		return false, nil
	}
	_, t, err := c.sortedList(call)
	if err != nil {
		return true, err
	}
	if ok, err := c.growAssign(id, &syntax.ListExpr{Lbrack: call.Lparen, Rbrack: call.Rparen}); !ok || err != nil {
		return true, err
	}
	b := c.scope.names[id.Name]
	if c.proc.Scratch[b.id].Bias != 0 {
		return true, errAt(id.NamePos, "%s holds negative ints; a function run as machine code assigns it no sorted list", id.Name)
	}
	c.copyArray(b.id, t.id, c.proc.Scratch[t.id].Len, varExpr(t.count-1), call.Lparen)
	c.emit(fuse.Stmt{Kind: fuse.SAssign, Var: b.count - 1, X: varExpr(t.count - 1)})
	return true, nil
}

// forSorted compiles for v in sorted(x); it reports false where s is no
// such loop.
func (c *compiler) forSorted(s *syntax.ForStmt) (bool, error) {
	call, ok := c.sortedCall(s.X)
	if !ok {
		return false, nil
	}
	tmp, _, err := c.sortedList(call)
	if err != nil {
		return true, err
	}
	return true, c.stmt(&syntax.ForStmt{For: s.For, Vars: s.Vars, X: tmp, Body: s.Body})
}
