package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bitsh/bitsh/interp/tooling"
	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"
)

// MaxMessage is the largest message the server reads, in bytes; a larger
// one is skipped and answered with an error.
const MaxMessage = 64 << 20

// codec is jsonrpc2's VSCodeObjectCodec framing (Content-Length headers)
// with three differences: a message that is not JSON, or not JSON-RPC, or
// too large, is answered with an error (id null) and skipped instead of
// ending the connection; every message goes out through one locked
// writer, so those answers never interleave with the connection's own;
// and messages are read ahead, so that a large didChange that a later one
// of the same document replaces is dropped undecoded (decoding one of a
// 2.6 MB document takes 0.1-0.2 s: a hundred quick changes took seconds
// to read).
type codec struct {
	mu     sync.Mutex
	w      io.Writer
	log    io.Writer
	broken error // the framing error that ended the stream, under mu

	start sync.Once
	q     queue
}

// collapseMin is the size from which a didChange is looked at for
// dropping: below it, decoding costs less than looking.
const collapseMin = 64 << 10

// maxAhead is how many bytes of messages the codec reads ahead at most
// (besides the one it is reading).
const maxAhead = MaxMessage

// A frame is one message read ahead: its body, or the error that ended
// the stream.
type frame struct {
	body   []byte
	err    error
	change string // for a large didChange notification, its document's URI
}

// A queue holds the frames read ahead.
type queue struct {
	mu     sync.Mutex
	cond   sync.Cond
	frames []frame
	bytes  int
	closed bool // no one reads on
}

func newCodec(w, log io.Writer) *codec {
	c := &codec{w: w, log: log}
	c.q.cond.L = &c.q.mu
	return c
}

// stop makes the reading goroutine stop at its next frame.
func (c *codec) stop() {
	c.q.mu.Lock()
	c.q.closed = true
	c.q.cond.Broadcast()
	c.q.mu.Unlock()
}

// readAhead reads frames from r into the queue until the stream ends.
func (c *codec) readAhead(r *bufio.Reader) {
	for {
		f := c.readFrame(r)
		q := &c.q
		q.mu.Lock()
		for q.bytes > maxAhead && !q.closed {
			q.cond.Wait()
		}
		if q.closed {
			q.mu.Unlock()
			return
		}
		q.frames = append(q.frames, f)
		q.bytes += len(f.body)
		q.cond.Broadcast()
		q.mu.Unlock()
		if f.err != nil {
			return
		}
	}
}

// readFrame reads the next message's body, skipping (and answering)
// those over MaxMessage.
func (c *codec) readFrame(r *bufio.Reader) frame {
	for {
		n, err := readHeader(r)
		if err != nil {
			return frame{err: c.fail(err)}
		}
		if n > MaxMessage {
			if _, err := io.CopyN(io.Discard, r, n); err != nil {
				return frame{err: c.fail(truncated(err))}
			}
			c.reject(jsonrpc2.CodeInvalidRequest, fmt.Sprintf("message of %d bytes is larger than the %d the server reads", n, MaxMessage))
			continue
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return frame{err: c.fail(truncated(err))}
		}
		return frame{body: body, change: changedDocument(body)}
	}
}

// changedDocument returns the URI of the document a large didChange
// notification replaces (the server takes whole documents), else "".
func changedDocument(body []byte) string {
	if len(body) < collapseMin {
		return ""
	}
	var m struct {
		ID     *json.RawMessage `json:"id"`
		Method string           `json:"method"`
		Params struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &m) != nil || m.ID != nil || m.Method != "textDocument/didChange" {
		return ""
	}
	return m.Params.TextDocument.URI
}

// next returns the next frame to decode, dropping the didChanges that
// a later one of the same document replaces, with only large didChanges
// (of any document) in between.
func (c *codec) next() frame {
	q := &c.q
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.frames) == 0 {
		q.cond.Wait()
	}
	for len(q.frames) > 1 && replaced(q.frames) {
		q.bytes -= len(q.frames[0].body)
		q.frames = q.frames[1:]
	}
	f := q.frames[0]
	q.frames[0] = frame{}
	q.frames = q.frames[1:]
	q.bytes -= len(f.body)
	q.cond.Broadcast()
	return f
}

// replaced reports whether frames[0] is a didChange that a later frame
// replaces.
func replaced(frames []frame) bool {
	doc := frames[0].change
	if doc == "" {
		return false
	}
	for _, f := range frames[1:] {
		switch f.change {
		case doc:
			return true
		case "":
			return false
		}
	}
	return false
}

// fail records err, the stream's end, unless it is a clean end of input
// (between messages), and returns it.
func (c *codec) fail(err error) error {
	if err != io.EOF {
		c.mu.Lock()
		if c.broken == nil {
			c.broken = err
		}
		c.mu.Unlock()
	}
	return err
}

// framingError returns what ended the stream when it was not a clean end
// of input, else nil.
func (c *codec) framingError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.broken
}

// WriteObject writes obj as one framed message.
func (c *codec) WriteObject(_ io.Writer, obj any) error {
	data, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(data)); err != nil {
		return err
	}
	_, err = c.w.Write(data)
	return err
}

// ReadObject reads the next message that decodes into v, answering those
// that do not. It is called with the same r every time, by one goroutine.
func (c *codec) ReadObject(r *bufio.Reader, v any) error {
	c.start.Do(func() { go c.readAhead(r) })
	for {
		f := c.next()
		if f.err != nil {
			return f.err
		}
		body := f.body
		reflect.ValueOf(v).Elem().SetZero()
		if err := json.Unmarshal(body, v); err != nil {
			code := int64(jsonrpc2.CodeInvalidRequest)
			if !json.Valid(body) {
				code = jsonrpc2.CodeParseError
			}
			c.reject(code, err.Error())
			continue
		}
		return nil
	}
}

// reject answers a message that could not be read.
func (c *codec) reject(code int64, msg string) {
	fmt.Fprintf(c.log, "bitsh lsp: rejected a message: %s\n", msg)
	resp := map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}}
	if err := c.WriteObject(nil, resp); err != nil {
		fmt.Fprintf(c.log, "bitsh lsp: %v\n", err)
	}
}

// readHeader reads a message's header lines and returns its
// Content-Length. The end of input before a message is io.EOF; inside
// one, an error.
func readHeader(r *bufio.Reader) (int64, error) {
	n := int64(-1)
	for first := true; ; first = false {
		line, err := r.ReadString('\n')
		if err == io.EOF && (!first || line != "") {
			return 0, fmt.Errorf("the input ends inside a message's header (%q)", line)
		}
		if err != nil {
			return 0, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if n < 0 {
				return 0, fmt.Errorf("a message without Content-Length")
			}
			return n, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, fmt.Errorf("bad header line %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("bad Content-Length %q", value)
			}
		}
	}
}

// truncated names the end of input inside a message's body.
func truncated(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("the input ends inside a message")
	}
	return err
}

// A lineIndex converts between go.starlark.net positions (lines from 1,
// columns from 1 in code points) and LSP ones (from 0, in UTF-16 units).
type lineIndex struct {
	text   []byte
	starts []int // byte offset of each line
}

func newLineIndex(text []byte) lineIndex {
	starts := []int{0}
	for i, b := range text {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return lineIndex{text: text, starts: starts}
}

// line returns line i (from 0) without its newline.
func (x lineIndex) line(i int) []byte {
	if i < 0 || i >= len(x.starts) {
		return nil
	}
	end := len(x.text)
	if i+1 < len(x.starts) {
		end = x.starts[i+1] - 1
	}
	return x.text[x.starts[i]:end]
}

// fromLSP converts an LSP position.
func (x lineIndex) fromLSP(p protocol.Position) (line, col int) {
	l := x.line(int(p.Line))
	units, col := 0, 1
	for len(l) > 0 && units < int(p.Character) {
		r, size := utf8.DecodeRune(l)
		l = l[size:]
		units += utf16.RuneLen(r)
		if utf16.RuneLen(r) < 0 {
			units++
		}
		col++
	}
	return int(p.Line) + 1, col
}

// toLSP converts a position; a column past the line's end is its end.
func (x lineIndex) toLSP(line, col int) protocol.Position {
	l := x.line(line - 1)
	units := 0
	for c := 1; c < col && len(l) > 0; c++ {
		r, size := utf8.DecodeRune(l)
		l = l[size:]
		if n := utf16.RuneLen(r); n > 0 {
			units += n
		} else {
			units++
		}
	}
	return protocol.Position{Line: protocol.UInteger(max(line-1, 0)), Character: protocol.UInteger(units)}
}

// diagRange is the range a diagnostic underlines: from its position to
// its end, or else to the end of the word there (at least one character).
func (x lineIndex) diagRange(d tooling.Diagnostic) protocol.Range {
	if d.Pos.Line == 0 {
		return protocol.Range{}
	}
	start := x.toLSP(int(d.Pos.Line), int(d.Pos.Col))
	if d.End.Line != 0 {
		return protocol.Range{Start: start, End: x.toLSP(int(d.End.Line), int(d.End.Col))}
	}
	l := []rune(string(x.line(int(d.Pos.Line) - 1)))
	c := int(d.Pos.Col) - 1
	e := c
	for e < len(l) && (l[e] == '_' || l[e] >= '0' && l[e] <= '9' || l[e] >= 'a' && l[e] <= 'z' || l[e] >= 'A' && l[e] <= 'Z') {
		e++
	}
	if e == c {
		e = c + 1
	}
	return protocol.Range{Start: start, End: x.toLSP(int(d.Pos.Line), e+1)}
}
