package stdlib

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/bitsh/bitsh/builtins/dialect"

	"go.starlark.net/syntax"
)

// Doc returns the help text of the stdlib module file (such as
// "board.star"): its docstring, then each exported name (a top-level def
// or assignment whose name does not start with _) with its signature and
// docstring, in the order of the file.
func Doc(file string) (string, error) {
	src, err := fs.ReadFile(FS, file)
	if err != nil {
		return "", fmt.Errorf("no stdlib module %q (there are %s)", file, strings.Join(Modules(), ", "))
	}
	f, err := dialect.FileOptions().Parse(file, src, 0)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(dialect.StdlibPrefix + file + "\n")
	if doc, _ := dialect.Docstring(f.Stmts); doc != "" {
		b.WriteString(doc + "\n")
	}
	b.WriteString("\nExports:\n")
	seen := map[string]bool{}
	for _, st := range f.Stmts {
		switch st := st.(type) {
		case *syntax.DefStmt:
			name := st.Name.Name
			if strings.HasPrefix(name, "_") || seen[name] {
				continue
			}
			seen[name] = true
			fmt.Fprintf(&b, "  %s\n", dialect.DefSignature(st, src))
			if doc, _ := dialect.Docstring(st.Body); doc != "" {
				for _, l := range strings.Split(doc, "\n") {
					fmt.Fprintln(&b, strings.TrimRight("      "+l, " "))
				}
			}
		case *syntax.AssignStmt:
			if id, ok := st.LHS.(*syntax.Ident); ok && !strings.HasPrefix(id.Name, "_") && !seen[id.Name] {
				seen[id.Name] = true
				fmt.Fprintf(&b, "  %s (a value)\n", id.Name)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// Modules returns the names of the stdlib modules, as load() spells them.
func Modules() []string {
	entries, _ := fs.ReadDir(FS, ".")
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".star") && !strings.HasSuffix(e.Name(), "_test.star") {
			out = append(out, dialect.StdlibPrefix+e.Name())
		}
	}
	sort.Strings(out)
	return out
}
