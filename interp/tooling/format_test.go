package tooling_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/bitsh/bitsh/builtins/dialect"
	"github.com/bitsh/bitsh/interp/tooling"
)

// TestFormatRepository formats every .star file of the repository: the
// result parses in bitsh's dialect and formatting it again changes nothing.
func TestFormatRepository(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../../examples/*.star", "../../stdlib/*.star", "../../builtins/testdata/*.star"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no .star files found")
	}
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		once, err := tooling.Format(name, src)
		if err != nil {
			t.Errorf("tooling.Format(%s): %v", name, err)
			continue
		}
		if _, err := dialect.FileOptions().Parse(name, once, 0); err != nil {
			t.Errorf("formatted %s does not parse: %v", name, err)
			continue
		}
		twice, err := tooling.Format(name, once)
		if err != nil {
			t.Errorf("tooling.Format(formatted %s): %v", name, err)
			continue
		}
		if !bytes.Equal(once, twice) {
			t.Errorf("formatting %s is not idempotent", name)
		}
	}
}
