package docs_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tests of this file hold house.md, the map of the source, to the
// source: the import directions, the imports between fuse's packages,
// the thread-local keys and the files and tests it names.

// houseCommands returns the sh block of house.md that checks the import
// directions, and the output block after it.
func houseCommands(t *testing.T) (cmds []string, want string) {
	bs := blocks(t, "house.md")
	for i, b := range bs {
		if b.tag == "sh" && strings.Contains(b.text, "go list -deps") {
			if i+1 >= len(bs) || bs[i+1].tag != "output" {
				t.Fatalf("house.md:%d: the import commands want an output block after them", b.line)
			}
			for line := range strings.SplitSeq(b.text, "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					cmds = append(cmds, line)
				}
			}
			return cmds, bs[i+1].text
		}
	}
	t.Fatal("house.md has no sh block of go list -deps commands")
	return nil, ""
}

// TestHouseImports runs house.md's commands that check the direction of
// the imports: a command marked "prints nothing" must print nothing, and
// the last one must print the output block after them.
func TestHouseImports(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmds, want := houseCommands(t)
	if len(cmds) < 3 {
		t.Fatalf("house.md: %d import commands; want 3", len(cmds))
	}
	for i, c := range cmds {
		cmd := exec.Command("bash", "-o", "pipefail", "-c", strings.Split(c, "#")[0])
		cmd.Dir = ".."
		out, err := cmd.Output()
		switch {
		case strings.HasSuffix(c, "# prints nothing"):
			// grep finding nothing exits 1; go list failing must not pass.
			if len(out) != 0 {
				t.Errorf("house.md: %s\nprints\n%s\nwant nothing", c, out)
			}
			list := exec.Command("bash", "-c", strings.Split(c, "|")[0])
			list.Dir = ".."
			if o, err := list.CombinedOutput(); err != nil {
				t.Errorf("house.md: %s: %v\n%s", c, err, o)
			}
		case i == len(cmds)-1:
			if err != nil {
				t.Errorf("house.md: %s: %v", c, err)
			}
			if string(out) != want {
				t.Errorf("house.md: %s\nprints\n%s\nwant (house.md's output block)\n%s", c, out, want)
			}
		}
	}
}

// TestHouseInsideFuse holds the last column of house.md's table "Inside
// fuse" (the imports of fuse's own packages) to what the packages import.
func TestHouseInsideFuse(t *testing.T) {
	data, err := os.ReadFile("house.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("^\\| `(builtins/fuse(?:/[a-z]+)?)` \\|.*\\| ([^|]*) \\|$")
	name := regexp.MustCompile("`([a-z]+)`")
	table := map[string][]string{}
	for line := range strings.SplitSeq(string(data), "\n") {
		m := row.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var imps []string
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			if n[1] == "fuse" {
				imps = append(imps, "builtins/fuse")
			} else {
				imps = append(imps, "builtins/fuse/"+n[1])
			}
		}
		slices.Sort(imps)
		table[m[1]] = imps
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}:{{join .Imports " "}}`, "./builtins/fuse/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/bitsh/bitsh/"
	seen := 0
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(strings.TrimPrefix(line, mod), ":")
		var got []string
		for imp := range strings.FieldsSeq(imports) {
			if p := strings.TrimPrefix(imp, mod); p != imp && (p == "builtins/fuse" || strings.HasPrefix(p, "builtins/fuse/")) {
				got = append(got, p)
			}
		}
		slices.Sort(got)
		want, ok := table[pkg]
		if !ok {
			t.Errorf("house.md's table Inside fuse has no row for %s", pkg)
			continue
		}
		seen++
		if !slices.Equal(got, want) {
			t.Errorf("house.md says %s imports %q of fuse's packages; it imports %q", pkg, want, got)
		}
	}
	if seen != len(table) {
		t.Errorf("house.md's table Inside fuse has %d rows; go list found %d of them", len(table), seen)
	}
}

// goFiles returns the Go files under dir, tests apart or not.
func goFiles(t *testing.T, dir string, tests bool) []string {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, ".go") && strings.HasSuffix(path, "_test.go") == tests {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestHouseThreadLocals holds house.md's list of the thread-local keys
// bitsh sets to the SetLocal calls of its own code, and checks that every
// key bitsh's fork of go.starlark.net reads is one of them.
func TestHouseThreadLocals(t *testing.T) {
	setLocal := regexp.MustCompile(`\.SetLocal\((\w+|"[^"]*"),`)
	local := regexp.MustCompile(`\.Local\((\w+|"[^"]*")\)`)
	constDecl := regexp.MustCompile(`(?m)^\s*(?:const\s+)?(\w+)\s*=\s*("[^"]*"|string\(threadkey\.\w+\))`)
	// shared holds the typed constants of builtins/threadkey, the keys
	// of the hooks the fork reads, by their names in a const declaration
	// ("string(threadkey.Native)").
	shared := map[string]string{}
	data, err := os.ReadFile("../builtins/threadkey/threadkey.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?m)^\s*(\w+)\s+Key\s*=\s*("[^"]*")`).FindAllStringSubmatch(string(data), -1) {
		shared["string(threadkey."+m[1]+")"] = m[2]
	}
	if len(shared) == 0 {
		t.Fatal("builtins/threadkey declares no Key constant")
	}
	// keys returns the keys a file's calls use, each constant resolved
	// to its value.
	keys := func(files []string, call *regexp.Regexp) map[string]bool {
		consts := map[string]string{}
		var srcs []string
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, string(data))
			for _, m := range constDecl.FindAllStringSubmatch(string(data), -1) {
				v := m[2]
				if !strings.HasPrefix(v, `"`) {
					if v = shared[v]; v == "" {
						t.Errorf("%s: %s is %s, not a constant of builtins/threadkey", f, m[1], m[2])
					}
				} else if fork := strings.Contains(f, "third_party"); fork && strings.HasSuffix(m[1], "Key") {
					t.Errorf("%s: the key %s is a string literal; the fork's keys are builtins/threadkey's constants", f, m[1])
				}
				consts[filepath.Dir(f)+"."+m[1]] = v
			}
		}
		out := map[string]bool{}
		for i, src := range srcs {
			for _, m := range call.FindAllStringSubmatch(src, -1) {
				k := m[1]
				if !strings.HasPrefix(k, `"`) {
					v, ok := consts[filepath.Dir(files[i])+"."+k]
					if !ok {
						t.Errorf("%s: the key %s is not a string constant of its package", files[i], k)
						continue
					}
					k = v
				}
				out[strings.Trim(k, `"`)] = true
			}
		}
		return out
	}
	var own []string
	for _, dir := range []string{"../builtins", "../interp", "../cmd", "../stdlib"} {
		own = append(own, goFiles(t, dir, false)...)
	}
	set := keys(own, setLocal)
	if len(set) == 0 {
		t.Fatal("no SetLocal call found in builtins/, interp/, cmd/ or stdlib/")
	}
	read := keys(goFiles(t, "../third_party/starlark/starlark", false), local)
	for k := range read {
		if !set[k] {
			t.Errorf("the fork reads the thread-local key %q, which bitsh never sets", k)
		}
	}
	data, err = os.ReadFile("house.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for line := range strings.SplitSeq(string(data), "\n") {
		if strings.Contains(line, "thread-local key") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("house.md names no thread-local key")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("`((?:bitsh|go\\.starlark\\.net)[./][a-z./-]+)`").FindAllStringSubmatch(row, -1) {
		listed[m[1]] = true
	}
	for k := range set {
		if !listed[k] {
			t.Errorf("bitsh sets the thread-local key %q; house.md does not list it", k)
		}
	}
	for k := range listed {
		if !set[k] {
			t.Errorf("house.md lists the thread-local key %q; bitsh never sets it", k)
		}
	}
}

// TestHouseNames checks that each test and each file house.md names exists.
func TestHouseNames(t *testing.T) {
	data, err := os.ReadFile("house.md")
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" && path != "..") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			all = append(all, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string]bool{}
	for _, f := range all {
		if strings.HasSuffix(f, "_test.go") {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range regexp.MustCompile(`(?m)^func (Test\w+)\(`).FindAllStringSubmatch(string(src), -1) {
				tests[m[1]] = true
			}
		}
	}
	for _, m := range regexp.MustCompile("`(Test\\w+)`").FindAllStringSubmatch(string(data), -1) {
		if !tests[m[1]] {
			t.Errorf("house.md names %s, which no test file declares", m[1])
		}
	}
	for _, m := range regexp.MustCompile("`([\\w/.]+\\.(?:go|star|s))`").FindAllStringSubmatch(string(data), -1) {
		name := m[1]
		if !slices.ContainsFunc(all, func(f string) bool { return f == "../"+name || strings.HasSuffix(f, "/"+name) }) {
			t.Errorf("house.md names the file %s, which does not exist", name)
		}
	}
}

// goIndex is what the source declares: for each package name, its
// top-level names and, as "Type.Name", its methods and struct fields; and
// the types of every package.
type goIndex struct {
	decls map[string]map[string]bool // package name -> names
	types map[string]bool            // type names, any package
}

func indexSource(t *testing.T) goIndex {
	ix := goIndex{decls: map[string]map[string]bool{}, types: map[string]bool{}}
	fset := token.NewFileSet()
	for _, dir := range []string{"../builtins", "../interp", "../cmd", "../stdlib"} {
		for _, path := range goFiles(t, dir, false) {
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			names := ix.decls[f.Name.Name]
			if names == nil {
				names = map[string]bool{}
				ix.decls[f.Name.Name] = names
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						names[d.Name.Name] = true
						continue
					}
					typ := d.Recv.List[0].Type
					if s, ok := typ.(*ast.StarExpr); ok {
						typ = s.X
					}
					if g, ok := typ.(*ast.IndexExpr); ok {
						typ = g.X
					}
					if id, ok := typ.(*ast.Ident); ok {
						names[id.Name+"."+d.Name.Name] = true
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							names[s.Name.Name] = true
							ix.types[s.Name.Name] = true
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fld := range st.Fields.List {
									for _, n := range fld.Names {
										names[s.Name.Name+"."+n.Name] = true
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								names[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return ix
}

// fileExt are the endings of the file names house.md gives.
var fileExt = map[string]bool{"go": true, "s": true, "star": true, "md": true, "sh": true, "c": true, "py": true}

// TestHouseIdentifiers checks that the Go names house.md gives exist:
// pkg.Name, pkg.Type.Name and pkg.(*Type).Name for a package of bitsh,
// Type.Name for a type of any of them.
func TestHouseIdentifiers(t *testing.T) {
	data, err := os.ReadFile("house.md")
	if err != nil {
		t.Fatal(err)
	}
	ix := indexSource(t)
	ident := regexp.MustCompile("`([a-zA-Z]\\w*)\\.(?:\\(\\*(\\w+)\\)\\.(\\w+)|(\\w+)(?:\\.(\\w+))?)`")
	checked := 0
	for _, m := range ident.FindAllStringSubmatch(string(data), -1) {
		first, name := m[1], m[4]
		if m[5] == "" && fileExt[name] {
			continue // a file name, which TestHouseNames checks
		}
		if m[2] != "" {
			name = m[2] + "." + m[3]
		} else if m[5] != "" {
			name += "." + m[5]
		}
		switch {
		case ix.decls[first] != nil:
			checked++
			if !ix.decls[first][name] {
				t.Errorf("house.md names %s, which package %s does not declare", m[0], first)
			}
		case ix.types[first]:
			checked++
			found := false
			for _, names := range ix.decls {
				found = found || names[first+"."+name]
			}
			if !found {
				t.Errorf("house.md names %s, which type %s does not have", m[0], first)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d of house.md's Go names; want the 20 or more it gives", checked)
	}
}
