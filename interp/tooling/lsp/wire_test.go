package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// A large didChange that a later one of the same document replaces, with
// only large didChanges in between, is dropped before it is decoded;
// everything else is read in order (the requests in between included).
func TestReadAheadDropsReplacedChanges(t *testing.T) {
	big := strings.Repeat("x = 1\n", collapseMin/6+1)
	change := func(doc string, n int, text string) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": map[string]any{
			"textDocument":   map[string]any{"uri": doc, "version": n},
			"contentChanges": []any{map[string]any{"text": text + fmt.Sprintf("# %d\n", n)}}}}
	}
	msgs := []map[string]any{
		change("a", 1, big),
		change("a", 2, big),
		change("b", 3, big),
		change("a", 4, big),
		{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": map[string]any{}},
		change("a", 5, big),
		change("a", 6, "small"),
		change("a", 7, big),
		change("a", 8, big),
	}
	var in bytes.Buffer
	for _, m := range msgs {
		data, _ := json.Marshal(m)
		fmt.Fprintf(&in, "Content-Length: %d\r\n\r\n%s", len(data), data)
	}
	c := newCodec(io.Discard, io.Discard)
	c.readAhead(bufio.NewReader(&in)) // to the end of input, so next sees every frame
	var got []string
	for {
		f := c.next()
		if f.err != nil {
			break
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				TextDocument struct {
					URI     string `json:"uri"`
					Version int    `json:"version"`
				} `json:"textDocument"`
			} `json:"params"`
		}
		if err := json.Unmarshal(f.body, &m); err != nil {
			t.Fatal(err)
		}
		if m.Method == "textDocument/didChange" {
			got = append(got, fmt.Sprintf("%s%d", m.Params.TextDocument.URI, m.Params.TextDocument.Version))
		} else {
			got = append(got, m.Method)
		}
	}
	want := "b3 a4 textDocument/hover a5 a6 a8"
	if strings.Join(got, " ") != want {
		t.Errorf("read %q, want %q", strings.Join(got, " "), want)
	}
}
