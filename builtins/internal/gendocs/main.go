// Command gendocs writes docs/builtins.md from the builtin registry.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"

	"github.com/bitsh/bitsh/builtins"
)

func main() {
	out := flag.String("o", "docs/builtins.md", "output file")
	flag.Parse()
	var buf bytes.Buffer
	if err := builtins.WriteMarkdown(&buf); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
