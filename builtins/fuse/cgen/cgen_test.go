package cgen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/block"
	"github.com/bitsh/bitsh/builtins/internal/progtest"
	"github.com/bitsh/bitsh/internal/testscale"
)

// TestGeneratedC compiles the C generated for random programs with the
// system C compiler and compares it with the block executor item by item.
func TestGeneratedC(t *testing.T) {
	cc := cCompiler()
	if cc == "" {
		t.Skip("no C compiler (cc, gcc or clang) found: the generated C is not checked")
	}
	r := rand.New(rand.NewPCG(3, 4))
	rounds := 40
	if testscale.Short() {
		rounds = 12
	}
	// One C file holding every program, to pay the compiler once.
	var src strings.Builder
	var progs []*fuse.Line
	var inputs [][][3]uint64
	for i := 0; i < rounds; i++ {
		p := progtest.Line(r, 1+r.IntN(3), 1+r.IntN(30))
		progs = append(progs, p)
		body := ItemFunc(p, C)
		if i > 0 {
			// The prelude once; then only the function, renamed.
			body = body[strings.Index(body, "FUSE_FN u64 fused_item"):]
		}
		src.WriteString(strings.Replace(body, "fused_item", fmt.Sprintf("fused_item%d", i), 1))
		var in [][3]uint64
		for j := 0; j < 200; j++ {
			in = append(in, [3]uint64{progtest.Word(r), progtest.Word(r), progtest.Word(r)})
		}
		inputs = append(inputs, in)
	}
	src.WriteString("#include <stdio.h>\nint main(void) {\n\tint err; u64 v;\n")
	for i, in := range inputs {
		for _, x := range in {
			fmt.Fprintf(&src, "\terr = 0; v = fused_item%d(%#xULL, %#xULL, %#xULL, &err); printf(\"%%d %%llu\\n\", err, v);\n", i, x[0], x[1], x[2])
		}
	}
	src.WriteString("\treturn 0;\n}\n")
	out := runC(t, cc, src.String())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	k := 0
	for i, p := range progs {
		c := block.New(p)
		for _, x := range inputs[i] {
			var errC int
			var vC uint64
			fmt.Sscanf(lines[k], "%d %d", &errC, &vC)
			k++
			v, err := c.Call(x[:p.Params])
			wantErr := 0
			var ie *fuse.ItemError
			if errors.As(err, &ie) {
				for ci := range p.Checks {
					if &p.Checks[ci] == ie.Check {
						wantErr = ci + 1
					}
				}
				v = 0
			}
			if errC != wantErr || vC != v {
				t.Fatalf("program %d on %#x: C gives (err %d, %#x), executor (err %d, %#x)\n%s\n%s", i, x, errC, vC, wantErr, v, p, ItemFunc(p, C))
			}
		}
	}
}

func cCompiler() string {
	for _, cc := range []string{os.Getenv("CC"), "cc", "gcc", "clang"} {
		if cc == "" {
			continue
		}
		if path, err := exec.LookPath(cc); err == nil {
			return path
		}
	}
	return ""
}

func runC(t *testing.T, cc, src string) string {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.c")
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "f")
	if out, err := exec.Command(cc, "-O1", "-w", "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	out, err := exec.Command(exe).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
