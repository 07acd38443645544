package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/interp/tooling/lsp"
)

// A client speaks to a server over a pipe.
type client struct {
	t      testing.TB
	conn   net.Conn
	r      *bufio.Reader
	nextID int
	done   chan struct{}
	notes  []message // notifications read while waiting for a response
}

type message struct {
	ID     *json.RawMessage `json:"id"`
	Method string           `json:"method"`
	Params json.RawMessage  `json:"params"`
	Result json.RawMessage  `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func newClient(t testing.TB, root string) *client {
	a, b := net.Pipe()
	c := &client{t: t, conn: a, r: bufio.NewReader(a), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		lsp.Serve(context.Background(), b, lsp.Options{Root: root, Log: io.Discard})
	}()
	t.Cleanup(func() {
		a.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop when the stream closed")
		}
	})
	return c
}

func (c *client) sendRaw(body string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(c.conn, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		c.t.Fatalf("writing: %v", err)
	}
}

func (c *client) send(method string, id int, params any) {
	c.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method, "params": params}
	if id != 0 {
		m["id"] = id
	}
	data, _ := json.Marshal(m)
	c.sendRaw(string(data))
}

func (c *client) read() message {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	var n int
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("reading: %v", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			break
		}
		fmt.Sscanf(line, "Content-Length: %d", &n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(c.r, body); err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	var m message
	if err := json.Unmarshal(body, &m); err != nil {
		c.t.Fatalf("server sent %q: %v", body, err)
	}
	return m
}

// call sends a request and returns its response, keeping notifications.
func (c *client) call(method string, params any) message {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	c.send(method, id, params)
	for {
		m := c.read()
		if m.ID != nil && string(*m.ID) == fmt.Sprint(id) {
			return m
		}
		c.notes = append(c.notes, m)
	}
}

// notification returns the next notification of a method.
func (c *client) notification(method string) message {
	c.t.Helper()
	for i, m := range c.notes {
		if m.Method == method {
			c.notes = append(c.notes[:i], c.notes[i+1:]...)
			return m
		}
	}
	for {
		m := c.read()
		if m.Method == method {
			return m
		}
		c.notes = append(c.notes, m)
	}
}

type diagnostic struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Message  string `json:"message"`
}

func (c *client) diagnostics() []diagnostic {
	c.t.Helper()
	m := c.notification("textDocument/publishDiagnostics")
	var p struct {
		Diagnostics []diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		c.t.Fatal(err)
	}
	return p.Diagnostics
}

func (c *client) initialize(root string) {
	c.t.Helper()
	r := c.call("initialize", map[string]any{"rootUri": "file://" + root, "capabilities": map[string]any{}})
	if r.Error != nil {
		c.t.Fatalf("initialize: %s", r.Error.Message)
	}
	c.send("initialized", 0, map[string]any{})
}

func (c *client) open(uri, text string) {
	c.send("textDocument/didOpen", 0, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "starlark", "version": 1, "text": text}})
}

const libSrc = `def low(x, width = 8):
    """Returns the low width bits of x."""
    return x & ((1 << width) - 1)
`

const mainSrc = `load("lib.star", "low")

def bad(x):
    return [x]

print(popcount(1, 2))
print(chess.rook_attacked(0, 0))
f=fuse(bad)
print(low(3, wid))
`

func workspace(t testing.TB) string {
	dir := t.TempDir()
	for name, src := range map[string]string{"lib.star": libSrc, "main.star": mainSrc, "self.star": "load(\"self.star\", \"x\")\nx = 1\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func pos(line, char int) map[string]any {
	return map[string]any{"line": line, "character": char}
}

func TestServerFeatures(t *testing.T) {
	root := workspace(t)
	c := newClient(t, root)
	c.initialize(root)
	uri := "file://" + filepath.Join(root, "main.star")
	c.open(uri, mainSrc)
	ds := c.diagnostics()
	want := map[string]bool{
		"5:6 popcount: got 2 arguments, want at most 1 (popcount(x))":                                false,
		"6:12 chess has no member rook_attacked (did you mean chess.rook_attacks?)":                  false,
		"3:11 fuse: 4:12: a fused function cannot build a list; use a scratch array: name = [0] * N": false,
		"8:13 undefined: wid": false,
	}
	for _, d := range ds {
		key := fmt.Sprintf("%d:%d %s", d.Range.Start.Line, d.Range.Start.Character, d.Message)
		if _, ok := want[key]; !ok {
			t.Errorf("unexpected diagnostic %s", key)
		}
		want[key] = true
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("missing diagnostic %s", k)
		}
	}

	doc := map[string]any{"uri": uri}
	r := c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": pos(8, 7)})
	if !strings.Contains(string(r.Result), "low(x, width=8)\\nReturns the low width bits of x.") {
		t.Errorf("hover on low: %s", r.Result)
	}
	r = c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": pos(5, 8)})
	if !strings.Contains(string(r.Result), "popcount(x)") {
		t.Errorf("hover on popcount: %s", r.Result)
	}

	r = c.call("textDocument/completion", map[string]any{"textDocument": doc, "position": pos(8, 16)})
	if !strings.Contains(string(r.Result), `"label":"width="`) {
		t.Errorf("completion in low(3, wid: %s", r.Result)
	}

	r = c.call("textDocument/signatureHelp", map[string]any{"textDocument": doc, "position": pos(8, 13)})
	if !strings.Contains(string(r.Result), `"label":"low(x, width=8)"`) || !strings.Contains(string(r.Result), `"activeParameter":1`) {
		t.Errorf("signature help in low(3, |: %s", r.Result)
	}

	r = c.call("textDocument/definition", map[string]any{"textDocument": doc, "position": pos(8, 7)})
	var loc struct {
		URI   string `json:"uri"`
		Range struct {
			Start struct{ Line, Character int } `json:"start"`
		} `json:"range"`
	}
	json.Unmarshal(r.Result, &loc)
	if !strings.HasSuffix(loc.URI, "/lib.star") || loc.Range.Start.Line != 0 || loc.Range.Start.Character != 4 {
		t.Errorf("definition of low: %s, want lib.star 0:4", r.Result)
	}

	r = c.call("textDocument/formatting", map[string]any{"textDocument": doc, "options": map[string]any{"tabSize": 4, "insertSpaces": true}})
	var edits []struct {
		NewText string `json:"newText"`
	}
	json.Unmarshal(r.Result, &edits)
	if len(edits) != 1 || !strings.Contains(edits[0].NewText, "f = fuse(bad)\nprint(low(3, wid))\n") || strings.Contains(edits[0].NewText, "\n\n\n") {
		t.Errorf("formatting: %s", r.Result)
	}

	// A change is analysed again: the mistakes fixed, no diagnostics.
	c.send("textDocument/didChange", 0, map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": "load(\"lib.star\", \"low\")\nprint(low(3))\n"}}})
	if ds := c.diagnostics(); len(ds) != 0 {
		t.Errorf("after the fix: %v", ds)
	}
}

func TestServerBadInput(t *testing.T) {
	root := workspace(t)
	c := newClient(t, root)

	// Before initialize, requests are refused.
	if r := c.call("textDocument/hover", map[string]any{}); r.Error == nil {
		t.Errorf("hover before initialize: %s, want an error", r.Result)
	}
	c.initialize(root)

	c.sendRaw(`{"jsonrpc": "2.0", "id": 99, "method": `)
	if m := c.read(); m.Error == nil || m.Error.Code != -32700 || m.ID != nil {
		t.Errorf("malformed JSON: got %+v, want a parse error with id null", m)
	}
	c.sendRaw(`[1, 2, 3]`)
	if m := c.read(); m.Error == nil || m.Error.Code != -32600 {
		t.Errorf("not JSON-RPC: got %+v, want invalid request", m)
	}
	if r := c.call("bitsh/noSuchMethod", map[string]any{}); r.Error == nil || r.Error.Code != -32601 {
		t.Errorf("unknown method: got %+v, want method not found", r)
	}
	if r := c.call("textDocument/hover", "not an object"); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("bad params: got %+v, want invalid params", r)
	}
	if r := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": "file:///not/open.star"}, "position": pos(0, 0)}); r.Error == nil {
		t.Errorf("hover on a document not open: %s, want an error", r.Result)
	}

	// A file that loads itself; one that loads outside the workspace.
	c.open("file://"+filepath.Join(root, "self.star"), "load(\"self.star\", \"x\")\nx = 1\n")
	if ds := c.diagnostics(); len(ds) != 1 || !strings.Contains(ds[0].Message, "load cycle: self.star -> self.star") {
		t.Errorf("self-load: %v", ds)
	}
	c.open("file://"+filepath.Join(root, "out.star"), "load(\"../secret.star\", \"x\")\n")
	if ds := c.diagnostics(); len(ds) != 1 || !strings.Contains(ds[0].Message, "invalid module path") {
		t.Errorf("load outside the workspace: %v", ds)
	}

	// A huge file gets one warning, not an analysis.
	huge := strings.Repeat("x = 1\n", lsp.MaxDocument/6+1)
	c.open("file://"+filepath.Join(root, "huge.star"), huge)
	if ds := c.diagnostics(); len(ds) != 1 || ds[0].Severity != 2 || !strings.Contains(ds[0].Message, "more than") {
		t.Errorf("huge file: %v", ds)
	}

	// The server is still up.
	if r := c.call("shutdown", nil); r.Error != nil {
		t.Errorf("shutdown: %+v", r.Error)
	}
	c.send("exit", 0, nil)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		t.Error("server did not exit")
	}
}

// script returns a bitsh script of about n lines: defs, loops, calls of
// builtins.
func script(n int) string {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, "def f%d(x, width = 8):\n    \"\"\"Step %d.\"\"\"\n    y = rotl(x, %d) ^ popcount(x)\n    for i in range(3):\n        y = y + i\n    return y & ((1 << width) - 1)\n\nv%d = f%d(%d) + chess.rook_attacks(0, 0)\n\n", i, i, i%64, i, i, i)
	}
	return b.String()
}

// BenchmarkDiagnostics measures a change to a 2,000-line script until its
// diagnostics arrive (the target is 50 ms).
func BenchmarkDiagnostics(b *testing.B) {
	root := b.TempDir()
	c := newClient(b, root)
	c.initialize(root)
	uri := "file://" + filepath.Join(root, "big.star")
	src := script(2000)
	c.open(uri, src)
	if ds := c.diagnostics(); len(ds) != 0 {
		b.Fatalf("the script has diagnostics: %v", ds[0])
	}
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.send("textDocument/didChange", 0, map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 2},
			"contentChanges": []any{map[string]any{"text": src + fmt.Sprintf("z = %d\n", i)}}})
		c.diagnostics()
	}
}

// Hover and go-to-definition of a loaded name wherever it is used, inside
// a def too (where the resolver gives the use a binding of its own, and
// both used to stop at the load statement), through a module that loads
// another.
func TestServerAcrossLoads(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"lib.star": "def helper(x):\n    \"\"\"Doubles x.\"\"\"\n    return 2 * x\n",
		"mid.star": "load(\"lib.star\", \"helper\")\n\ndef twice(y):\n    \"\"\"Doubles y twice.\"\"\"\n    return helper(helper(y))\n",
		"main.star": "load(\"lib.star\", \"helper\")\nload(\"mid.star\", \"twice\")\n\ndef f(b):\n    return helper(b) + twice(b)\n\n" +
			"g = lambda b: helper(b)\nprint(f(1), twice(2))\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(root, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, root)
	c.initialize(root)
	for _, name := range []string{"main.star", "mid.star"} {
		c.open("file://"+filepath.Join(root, name), files[name])
		if ds := c.diagnostics(); len(ds) != 0 {
			t.Fatalf("%s: %v", name, ds)
		}
	}
	for _, q := range []struct {
		file       string
		line, char int
		hover      string
		defFile    string
		defLine    int
		defChar    int
	}{
		{"main.star", 4, 12, `helper(x)\nDoubles x.`, "lib.star", 0, 4},      // inside a def
		{"main.star", 4, 25, `twice(y)\nDoubles y twice.`, "mid.star", 2, 4}, // inside a def, from a module that loads
		{"main.star", 6, 16, `helper(x)\nDoubles x.`, "lib.star", 0, 4},      // inside a lambda
		{"main.star", 7, 14, `twice(y)\nDoubles y twice.`, "mid.star", 2, 4}, // at top level
		{"mid.star", 4, 19, `helper(x)\nDoubles x.`, "lib.star", 0, 4},       // nested calls in the loaded module
	} {
		doc := map[string]any{"uri": "file://" + filepath.Join(root, q.file)}
		r := c.call("textDocument/hover", map[string]any{"textDocument": doc, "position": pos(q.line, q.char)})
		if !strings.Contains(string(r.Result), q.hover) {
			t.Errorf("hover at %s:%d:%d: %s, want %q", q.file, q.line, q.char, r.Result, q.hover)
		}
		r = c.call("textDocument/definition", map[string]any{"textDocument": doc, "position": pos(q.line, q.char)})
		var loc struct {
			URI   string `json:"uri"`
			Range struct {
				Start struct{ Line, Character int } `json:"start"`
			} `json:"range"`
		}
		json.Unmarshal(r.Result, &loc)
		if !strings.HasSuffix(loc.URI, "/"+q.defFile) || loc.Range.Start.Line != q.defLine || loc.Range.Start.Character != q.defChar {
			t.Errorf("definition at %s:%d:%d: %s, want %s %d:%d", q.file, q.line, q.char, r.Result, q.defFile, q.defLine, q.defChar)
		}
	}
}

// A burst of changes to a large document costs an analysis or two, of the
// latest text, not one each (100 changes of a 100,000-line document made
// a hover wait 55 s); the latest text's diagnostics come last, and a
// request answers on it.
func TestServerCoalescesChanges(t *testing.T) {
	root := t.TempDir()
	c := newClient(t, root)
	c.initialize(root)
	uri := "file://" + filepath.Join(root, "big.star")
	src := script(5000)
	c.open(uri, src)
	if ds := c.diagnostics(); len(ds) != 0 {
		t.Fatalf("the script has diagnostics: %v", ds[0])
	}
	const changes = 40
	for i := 1; i <= changes; i++ {
		c.send("textDocument/didChange", 0, map[string]any{"textDocument": map[string]any{"uri": uri, "version": i + 1},
			"contentChanges": []any{map[string]any{"text": src + fmt.Sprintf("z%d = undefined%d\n", i, i)}}})
	}
	// The hover is on the last line, which only the latest text has.
	last := strings.Count(src, "\n")
	r := c.call("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos(last, 1)})
	if r.Error != nil {
		t.Fatalf("hover: %s", r.Error.Message)
	}
	var published [][]diagnostic
	for _, m := range c.notes {
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p struct {
			Diagnostics []diagnostic `json:"diagnostics"`
		}
		json.Unmarshal(m.Params, &p)
		published = append(published, p.Diagnostics)
	}
	t.Logf("%d changes, %d analyses published before the hover's answer", changes, len(published))
	if len(published) == 0 || len(published) > changes/4 {
		t.Fatalf("%d analyses published for %d quick changes, want a few", len(published), changes)
	}
	latest := published[len(published)-1]
	want := fmt.Sprintf("undefined: undefined%d", changes)
	if len(latest) != 1 || latest[0].Message != want || latest[0].Range.Start.Line != last {
		t.Errorf("the last diagnostics published: %v, want %q on line %d", latest, want, last)
	}
}
