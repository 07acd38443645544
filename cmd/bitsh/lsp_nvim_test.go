package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// nvimSrc has mistakes for the diagnostics, a def to hover and jump to,
// and lines to format.
const nvimSrc = `load("lib.star", "low")

def spread(x):
    """Spreads the bits of x."""
    return pdep(x, 0x5555)

print(popcount(1, 2))
print(chess.rook_attacked(0, 0))
y=spread(low(3))
print(chess.rook_a)
`

// TestNeovimLSP runs Neovim's own LSP client (Debian's neovim, 0.7 or
// later, headless) against bitsh lsp on a file with mistakes, and checks
// the diagnostics, hover text, completion items, definition and
// formatting edit that Neovim received.
func TestNeovimLSP(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("Neovim is not installed (apt-get install neovim; .ci/run installs it as root): the real-editor test of bitsh lsp is skipped")
	}
	bitsh, err := exec.LookPath("bitsh") // the test binary, put on $PATH by TestMain
	if err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/nvim_lsp.lua")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib.star", "def low(x):\n    \"\"\"Returns the low byte of x.\"\"\"\n    return x & 0xff\n")
	write("main.star", nvimSrc)
	out := filepath.Join(root, "got.json")
	config, _ := json.Marshal(map[string]any{
		"bitsh":      bitsh,
		"root":       root,
		"file":       filepath.Join(root, "main.star"),
		"out":        out,
		"hover":      []int{8, 3},  // spread in y=spread(...)
		"completion": []int{9, 18}, // after chess.rook_a
		"definition": []int{8, 10}, // low, loaded from lib.star
	})
	write("config.json", string(config))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "--clean", "-n", "-c", "luafile "+script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BITSH_NVIM_CONFIG="+filepath.Join(root, "config.json"), "HOME="+root, "XDG_STATE_HOME="+root, "XDG_DATA_HOME="+root)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, output)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("Neovim wrote no result: %v", err)
	}
	var got struct {
		Log         []string `json:"log"`
		Diagnostics []struct {
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
			Message string `json:"message"`
		} `json:"diagnostics"`
		Hover struct {
			Contents struct {
				Value string `json:"value"`
			} `json:"contents"`
		} `json:"hover"`
		Completion []struct {
			Label string `json:"label"`
		} `json:"completion"`
		Definition struct {
			URI   string `json:"uri"`
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		} `json:"definition"`
		Formatting []struct {
			NewText string `json:"newText"`
		} `json:"formatting"`
		Formatted string `json:"formatted"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	for _, l := range got.Log {
		t.Logf("nvim: %s", l)
	}

	var diags []string
	for _, d := range got.Diagnostics {
		diags = append(diags, d.Message)
	}
	joined := strings.Join(diags, "\n")
	for _, want := range []string{
		"popcount: got 2 arguments, want at most 1 (popcount(x))",
		"chess has no member rook_attacked (did you mean chess.rook_attacks?)",
		"chess has no member rook_a (did you mean chess.rook_attacks?)",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("Neovim's diagnostics lack %q; got:\n%s", want, joined)
		}
	}
	if want := "spread(x)\nSpreads the bits of x."; got.Hover.Contents.Value != want {
		t.Errorf("Neovim's hover = %q, want %q", got.Hover.Contents.Value, want)
	}
	var labels []string
	for _, c := range got.Completion {
		labels = append(labels, c.Label)
	}
	if !strings.Contains(" "+strings.Join(labels, " ")+" ", " rook_attacks ") {
		t.Errorf("Neovim's completion after chess.rook_a = %v, want rook_attacks", labels)
	}
	if !strings.HasSuffix(got.Definition.URI, "/lib.star") || got.Definition.Range.Start.Line != 0 || got.Definition.Range.Start.Character != 4 {
		t.Errorf("Neovim's definition of low = %+v, want lib.star 0:4", got.Definition)
	}
	if len(got.Formatting) != 1 || !strings.Contains(got.Formatting[0].NewText, "y = spread(low(3))") {
		t.Errorf("Neovim's formatting edits = %+v", got.Formatting)
	}
	if !strings.Contains(got.Formatted, "\ny = spread(low(3))\n") || strings.Contains(got.Formatted, "y=spread") {
		t.Errorf("the buffer after Neovim applied the formatting:\n%s", got.Formatted)
	}
}
