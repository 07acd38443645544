package bitops_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/bitops"
)

// TestBuiltinsDeclared checks each word builtin's declaration: distinct
// names, required parameters before optional ones, a doc that does not
// restate the signature, and Lookup finding it.
func TestBuiltinsDeclared(t *testing.T) {
	seen := map[string]bool{}
	for _, b := range bitops.Builtins {
		if seen[b.Name] {
			t.Errorf("%s declared twice", b.Name)
		}
		seen[b.Name] = true
		if d, ok := bitops.Lookup(b.Name); !ok || d != b {
			t.Errorf("Lookup(%q) = %v, %v; want its declaration", b.Name, d, ok)
		}
		if len(b.Params) == 0 || b.Params[0].Name != "x" || b.Params[0].Kind != bitops.Word {
			t.Errorf("%s: first parameter %v; want the word x", b.Name, b.Params)
		}
		for i, p := range b.Params {
			if p.Optional != (i >= b.Required()) {
				t.Errorf("%s: parameter %s is required after an optional one", b.Name, p.Name)
			}
		}
		if b.Doc == "" || strings.HasPrefix(b.Doc, b.Name+"(") {
			t.Errorf("%s: doc %q; want the help text after the signature", b.Name, b.Doc)
		}
	}
	if _, ok := bitops.Lookup("snoob"); ok {
		t.Error("Lookup(snoob) found a declaration; snoob is not a word builtin of bitops")
	}
}

func TestDefaultText(t *testing.T) {
	for _, c := range []struct {
		p    bitops.Param
		want string
	}{
		{bitops.Param{Name: "width", Kind: bitops.Width, Optional: true, Default: 64}, "64"},
		{bitops.Param{Name: "magic", Optional: true, Default: 0x03f79d71b4cb0a89}, "0x03f79d71b4cb0a89"},
	} {
		if got := c.p.DefaultText(); got != c.want {
			t.Errorf("%s.DefaultText() = %q; want %q", c.p.Name, got, c.want)
		}
	}
}
