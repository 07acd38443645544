// bitsh fork: predeclared and universal names looked up once per module
// (README.bitsh.md, change 36).

package starlark

// resolveNames returns, for each name of the program's Names table, its
// value in predeclared and in Universe (nil where absent): the values the
// interpreter's PREDECLARED and UNIVERSAL push, looked up once when the
// module is made instead of in a map at every execution. A module's
// environment is fixed when it is made (Program.Init, ExecREPLChunk), and
// a name missing from it is still reported where it is read.
func resolveNames(names []string, predeclared StringDict) (pre, univ []Value) {
	pre = make([]Value, len(names))
	univ = make([]Value, len(names))
	for i, name := range names {
		pre[i] = predeclared[name]
		univ[i] = Universe[name]
	}
	return pre, univ
}
