// Package lsp is bitsh's language server: the Language Server Protocol
// (3.16) over a byte stream, answering with the source tooling of package
// tooling. It publishes diagnostics when a document is opened, changed or
// saved (on a goroutine of its own, once for a burst of changes, at the
// latest text), and answers hover, completion, signature help,
// go-to-definition and formatting requests on the latest text. docs/editors.md shows how editors start it
// (bitsh lsp).
//
// The protocol's types and method dispatch are github.com/tliron/glsp's,
// the connection is github.com/sourcegraph/jsonrpc2's. A message that is
// not JSON, or not a JSON-RPC message, is answered with a JSON-RPC error
// and the server reads on; only a stream whose framing is lost (no
// Content-Length header) ends the connection.
//
// The server reads files only below the workspace root, through the same
// load rules as scripts (interp.WithFS): open documents as the editor has
// them, other modules from disk.
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/interp/tooling"
	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"
	"go.starlark.net/syntax"
)

// MaxDocument is the largest document the server analyses, in bytes; a
// larger one gets a single diagnostic saying so.
const MaxDocument = 8 << 20

// Options configure a server.
type Options struct {
	// Root is the workspace directory used when the client names none.
	Root string
	// Log receives the server's own errors (os.Stderr when nil).
	Log io.Writer
	// Version is reported to the client as the server's version.
	Version string
}

// A server is one connection's state.
type server struct {
	opts    Options
	handler protocol.Handler
	conn    *jsonrpc2.Conn
	ready   chan struct{} // closed once conn is set

	mu      sync.Mutex // guards the fields below and the checker; held while analysing
	root    string
	overlay *overlay
	checker *tooling.Checker
	docs    map[string]*document // by URI

	// Changes wait here for the analysis goroutine (analyseLoop), so
	// that a burst of them costs one analysis, of the latest text, and
	// the connection goes on reading meanwhile.
	pendMu   sync.Mutex
	pending  map[string][]byte // by URI: the latest text not yet analysed
	stale    context.CancelCauseFunc
	staleURI string        // the document being analysed, for stale
	kick     chan struct{} // a change is pending
}

// A document is an open file as the editor has it.
type document struct {
	uri  string
	name string // its path relative to the root, with slashes
	text []byte
	mod  *tooling.Module // the latest analysis
	good *tooling.Module // the latest analysis that parsed
}

// Serve runs the language server on rwc until the client sends exit, the
// stream ends or ctx is cancelled. It returns an error when the stream
// broke: a header it cannot read, or the input ending inside a message.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	s := &server{opts: opts, docs: map[string]*document{}, pending: map[string][]byte{}, kick: make(chan struct{}, 1), ready: make(chan struct{})}
	s.setRoot(opts.Root)
	s.handler = protocol.Handler{
		Initialize:                     s.initialize,
		Initialized:                    func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:                       func(*glsp.Context) error { return nil },
		Exit:                           func(*glsp.Context) error { return nil },
		SetTrace:                       func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		CancelRequest:                  func(*glsp.Context, *protocol.CancelParams) error { return nil },
		TextDocumentDidOpen:            s.didOpen,
		TextDocumentDidChange:          s.didChange,
		TextDocumentDidSave:            s.didSave,
		TextDocumentDidClose:           s.didClose,
		TextDocumentHover:              s.hover,
		TextDocumentCompletion:         s.completion,
		TextDocumentSignatureHelp:      s.signatureHelp,
		TextDocumentDefinition:         s.definition,
		TextDocumentFormatting:         s.formatting,
		WorkspaceDidChangeWatchedFiles: func(*glsp.Context, *protocol.DidChangeWatchedFilesParams) error { return nil },
	}
	c := newCodec(rwc, opts.Log)
	defer c.stop()
	stream := jsonrpc2.NewBufferedStream(rwc, c)
	s.conn = jsonrpc2.NewConn(ctx, stream, jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(connLogger{opts.Log}))
	close(s.ready)
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		s.analyseLoop(s.conn.DisconnectNotify())
	}()
	select {
	case <-s.conn.DisconnectNotify():
	case <-ctx.Done():
		s.conn.Close()
	}
	<-loopDone
	if err := c.framingError(); err != nil {
		return fmt.Errorf("reading the client's messages: %w", err)
	}
	return nil
}

// connLogger writes jsonrpc2's log to the server's, without its protocol
// errors: Serve returns those, and the command reports them.
type connLogger struct{ w io.Writer }

func (l connLogger) Printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(msg, "jsonrpc2: protocol error") {
		fmt.Fprintf(l.w, "bitsh lsp: %s\n", strings.TrimSuffix(msg, "\n"))
	}
}

// handle dispatches one request or notification through glsp's handler,
// turning its answers into JSON-RPC errors as glsp's own server does, and
// a panic into an internal error rather than the end of the server.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (result any, err error) {
	<-s.ready
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(s.opts.Log, "bitsh lsp: panic in %s: %v\n%s", req.Method, p, debug.Stack())
			result, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: fmt.Sprintf("%s: internal error: %v", req.Method, p)}
		}
	}()
	gc := &glsp.Context{
		Method: req.Method,
		Notify: func(method string, params any) {
			if err := conn.Notify(ctx, method, params); err != nil {
				fmt.Fprintf(s.opts.Log, "bitsh lsp: %s: %v\n", method, err)
			}
		},
		Call: func(method string, params, result any) {
			if err := conn.Call(ctx, method, params, result); err != nil {
				fmt.Fprintf(s.opts.Log, "bitsh lsp: %s: %v\n", method, err)
			}
		},
	}
	if req.Params != nil {
		gc.Params = *req.Params
	} else {
		gc.Params = []byte("null")
	}
	if req.Method == protocol.MethodExit {
		return nil, conn.Close()
	}
	r, validMethod, validParams, err := s.handler.Handle(gc)
	switch {
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params for " + req.Method
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: err.Error()}
	}
	return r, nil
}

// setRoot makes dir the workspace: the checker reads modules below it.
func (s *server) setRoot(dir string) {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	s.root = dir
	s.overlay = &overlay{base: os.DirFS(dir), docs: map[string][]byte{}}
	s.checker = tooling.NewChecker(interp.WithFS(s.overlay))
}

func (s *server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case p.RootURI != nil && *p.RootURI != "":
		if dir, ok := uriPath(*p.RootURI); ok {
			s.setRoot(dir)
		}
	case p.RootPath != nil && *p.RootPath != "":
		s.setRoot(*p.RootPath)
	case len(p.WorkspaceFolders) > 0:
		if dir, ok := uriPath(p.WorkspaceFolders[0].URI); ok {
			s.setRoot(dir)
		}
	}
	caps := s.handler.CreateServerCapabilities()
	caps.TextDocumentSync = map[string]any{
		"openClose": true,
		"change":    protocol.TextDocumentSyncKindFull,
		"save":      map[string]any{"includeText": true},
	}
	caps.CompletionProvider = &protocol.CompletionOptions{TriggerCharacters: []string{"."}}
	caps.SignatureHelpProvider = &protocol.SignatureHelpOptions{TriggerCharacters: []string{"(", ","}}
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: caps,
		ServerInfo:   &protocol.InitializeResultServerInfo{Name: "bitsh", Version: &version},
	}, nil
}

// uriPath returns the file path of a file: URI.
func uriPath(uri string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// fileURI returns the file: URI of a path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// nameOf returns the name the checker knows a document by: its path
// relative to the root, with slashes. A document outside the workspace
// is known by its base name, so that its loads resolve in the workspace
// and never outside it.
func (s *server) nameOf(uri string) string {
	path, ok := uriPath(uri)
	if !ok {
		return strings.TrimPrefix(uri, "untitled:")
	}
	rel, err := filepath.Rel(s.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Base(path)
	}
	return filepath.ToSlash(rel)
}

// change records a document's new text for the analysis goroutine and
// gives up the analysis of an older text of it, if one is running: a
// burst of changes (typing) costs one analysis, of the latest text. It
// never waits for an analysis.
func (s *server) change(uri string, text []byte) {
	s.pendMu.Lock()
	s.pending[uri] = text
	if s.stale != nil && s.staleURI == uri {
		s.stale(errStale)
	}
	s.pendMu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// errStale is the cause of an analysis given up for a newer text.
var errStale = errors.New("the document changed")

// analyseLoop analyses the pending changes, one at a time, until done
// is closed.
func (s *server) analyseLoop(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		case <-s.kick:
		}
		for s.analyseNext() {
		}
	}
}

// analyseNext analyses one pending change, if any, and reports whether it
// found one. It takes the change under s.mu, so that a request, which
// holds s.mu, sees either the change pending or its analysis done.
func (s *server) analyseNext() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pendMu.Lock()
	var uri string
	var text []byte
	for u, t := range s.pending {
		uri, text = u, t
		break
	}
	if text == nil {
		s.pendMu.Unlock()
		return false
	}
	delete(s.pending, uri)
	ctx, cancel := context.WithCancelCause(context.Background())
	s.stale, s.staleURI = cancel, uri
	s.pendMu.Unlock()
	s.update(ctx, uri, text)
	s.pendMu.Lock()
	s.stale, s.staleURI = nil, ""
	s.pendMu.Unlock()
	cancel(nil)
	return true
}

// settle analyses the pending change of a document, if any, before a
// request about it is answered; s.mu is held.
func (s *server) settle(uri string) {
	s.pendMu.Lock()
	text, ok := s.pending[uri]
	delete(s.pending, uri)
	s.pendMu.Unlock()
	if ok {
		s.update(context.Background(), uri, text)
	}
}

// update records a document's new text, analyses it and publishes its
// diagnostics, unless ctx is cancelled first (a newer text is pending:
// the document keeps its previous text and analysis until that one's).
// s.mu is held.
func (s *server) update(ctx context.Context, uri string, text []byte) {
	d, ok := s.docs[uri]
	if !ok {
		d = &document{uri: uri, name: s.nameOf(uri)}
		s.docs[uri] = d
	}
	var diags []tooling.Diagnostic
	if len(text) > MaxDocument {
		d.text, d.mod = text, nil
		s.overlay.set(d.name, text)
		diags = []tooling.Diagnostic{{Pos: syntax.MakePosition(&d.name, 1, 1), Severity: tooling.Warning,
			Message: fmt.Sprintf("bitsh lsp: %d bytes is more than the %d the server analyses", len(text), MaxDocument)}}
	} else {
		old, hadOld := s.overlay.get(d.name)
		s.overlay.set(d.name, text)
		mod, err := s.checker.AnalyzeContext(ctx, d.name, text)
		if err != nil {
			if hadOld {
				s.overlay.set(d.name, old)
			} else {
				s.overlay.set(d.name, nil)
			}
			if d.text == nil {
				delete(s.docs, uri) // opened, and changed before its first analysis
			}
			return
		}
		d.text, d.mod = text, mod
		if d.mod.File != nil {
			d.good = d.mod
		}
		diags = d.mod.Diagnostics
	}
	lines := newLineIndex(text)
	out := make([]protocol.Diagnostic, 0, len(diags))
	source := "bitsh"
	for _, dg := range diags {
		if dg.Pos.Filename() != d.name && dg.Pos.Line != 0 {
			continue // a problem of another module, reported where it is loaded
		}
		sev := protocol.DiagnosticSeverity(dg.Severity)
		out = append(out, protocol.Diagnostic{Range: lines.diagRange(dg), Severity: &sev, Source: &source, Message: dg.Message})
	}
	if err := s.conn.Notify(context.Background(), protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: out}); err != nil {
		fmt.Fprintf(s.opts.Log, "bitsh lsp: %s: %v\n", protocol.ServerTextDocumentPublishDiagnostics, err)
	}
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.change(p.TextDocument.URI, []byte(p.TextDocument.Text))
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	// The server asks for whole documents: the last change holds the text.
	for i := len(p.ContentChanges) - 1; i >= 0; i-- {
		switch c := p.ContentChanges[i].(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			s.change(p.TextDocument.URI, []byte(c.Text))
			return nil
		case protocol.TextDocumentContentChangeEvent:
			return fmt.Errorf("textDocument/didChange: the server takes whole documents, not ranges")
		}
	}
	return nil
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	if p.Text != nil {
		s.change(p.TextDocument.URI, []byte(*p.Text))
		return nil
	}
	s.pendMu.Lock()
	_, pending := s.pending[p.TextDocument.URI]
	s.pendMu.Unlock()
	if pending {
		return nil // its analysis is coming
	}
	s.mu.Lock()
	d, ok := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	if ok {
		s.change(d.uri, d.text)
	}
	return nil
}

func (s *server) didClose(ctx *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.pendMu.Lock()
	delete(s.pending, p.TextDocument.URI)
	if s.stale != nil && s.staleURI == p.TextDocument.URI {
		s.stale(errStale)
	}
	s.pendMu.Unlock()
	s.mu.Lock()
	if d, ok := s.docs[p.TextDocument.URI]; ok {
		s.overlay.set(d.name, nil)
		delete(s.docs, p.TextDocument.URI)
	}
	s.mu.Unlock()
	ctx.Notify(protocol.ServerTextDocumentPublishDiagnostics, protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
	return nil
}

// doc returns an open document, its latest text analysed, and the
// starlark position of an LSP one; s.mu is held.
func (s *server) doc(uri string, p protocol.Position) (*document, int, int, error) {
	s.settle(uri)
	d, ok := s.docs[uri]
	if !ok {
		return nil, 0, 0, fmt.Errorf("%s is not open", uri)
	}
	line, col := newLineIndex(d.text).fromLSP(p)
	return d, line, col, nil
}

// module returns the analysis to answer from: the latest, or the latest
// that parsed when the text is mid-edit.
func (d *document) module() *tooling.Module {
	if d.mod != nil && d.mod.File == nil && d.good != nil {
		return d.good
	}
	return d.mod
}

func (s *server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, line, col, err := s.doc(p.TextDocument.URI, p.Position)
	if err != nil || d.mod == nil {
		return nil, err
	}
	text, ok := d.mod.Hover(line, col)
	if !ok {
		return nil, nil
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: text}}, nil
}

func (s *server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, line, col, err := s.doc(p.TextDocument.URI, p.Position)
	if err != nil || d.module() == nil {
		return nil, err
	}
	items := []protocol.CompletionItem{}
	for _, c := range d.module().Complete(d.text, line, col) {
		kind := completionKinds[c.Kind]
		item := protocol.CompletionItem{Label: c.Label, Kind: &kind}
		if c.Detail != "" {
			detail := c.Detail
			item.Detail = &detail
		}
		items = append(items, item)
	}
	return items, nil
}

var completionKinds = map[tooling.CompletionKind]protocol.CompletionItemKind{
	tooling.Variable:   protocol.CompletionItemKindVariable,
	tooling.Function:   protocol.CompletionItemKindFunction,
	tooling.ModuleKind: protocol.CompletionItemKindModule,
	tooling.Keyword:    protocol.CompletionItemKindKeyword,
	tooling.Argument:   protocol.CompletionItemKindProperty,
}

func (s *server) signatureHelp(_ *glsp.Context, p *protocol.SignatureHelpParams) (*protocol.SignatureHelp, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, line, col, err := s.doc(p.TextDocument.URI, p.Position)
	if err != nil || d.module() == nil {
		return nil, err
	}
	sig, arg, ok := d.module().SignatureHelp(d.text, line, col)
	if !ok {
		return nil, nil
	}
	info := protocol.SignatureInformation{Label: sig.Text}
	if sig.Doc != "" {
		info.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindPlainText, Value: sig.Doc}
	}
	for _, prm := range sig.Params {
		label := prm.Name
		if prm.Default != "" {
			label += "=" + prm.Default
		}
		info.Parameters = append(info.Parameters, protocol.ParameterInformation{Label: label})
	}
	zero, active := protocol.UInteger(0), protocol.UInteger(arg)
	return &protocol.SignatureHelp{Signatures: []protocol.SignatureInformation{info}, ActiveSignature: &zero, ActiveParameter: &active}, nil
}

func (s *server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	d, line, col, err := s.doc(p.TextDocument.URI, p.Position)
	if err != nil || d.mod == nil {
		return nil, err
	}
	loc, ok := d.mod.Definition(line, col)
	if !ok || strings.HasPrefix(loc.File, interp.StdlibPrefix) {
		return nil, nil // an embedded stdlib module has no file to open
	}
	uri := fileURI(filepath.Join(s.root, filepath.FromSlash(loc.File)))
	var text []byte
	if od, ok := s.docs[uri]; ok {
		text = od.text
	} else if data, err := fs.ReadFile(s.overlay, loc.File); err == nil {
		text = data
	}
	pos := newLineIndex(text).toLSP(int(loc.Pos.Line), int(loc.Pos.Col))
	return protocol.Location{URI: uri, Range: protocol.Range{Start: pos, End: pos}}, nil
}

func (s *server) formatting(_ *glsp.Context, p *protocol.DocumentFormattingParams) ([]protocol.TextEdit, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.settle(p.TextDocument.URI)
	d, ok := s.docs[p.TextDocument.URI]
	if !ok {
		return nil, fmt.Errorf("%s is not open", p.TextDocument.URI)
	}
	out, err := tooling.Format(d.name, d.text)
	if err != nil {
		return nil, fmt.Errorf("bitsh fmt: %v", err)
	}
	if string(out) == string(d.text) {
		return []protocol.TextEdit{}, nil
	}
	lines := newLineIndex(d.text)
	end := lines.toLSP(len(lines.starts), 1<<30)
	return []protocol.TextEdit{{Range: protocol.Range{Start: protocol.Position{}, End: end}, NewText: string(out)}}, nil
}

// overlay is the workspace as the checker reads it: open documents as
// the editor has them, other files from disk.
type overlay struct {
	mu   sync.Mutex
	base fs.FS
	docs map[string][]byte
}

// get returns an open document's text, as the checker reads it.
func (o *overlay) get(name string) ([]byte, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	text, ok := o.docs[name]
	return text, ok
}

func (o *overlay) set(name string, text []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if text == nil {
		delete(o.docs, name)
		return
	}
	o.docs[name] = text
}

// Open opens a file of the workspace on disk.
func (o *overlay) Open(name string) (fs.File, error) { return o.base.Open(name) }

// ReadFile returns an open document's text, else the file's on disk.
func (o *overlay) ReadFile(name string) ([]byte, error) {
	o.mu.Lock()
	text, ok := o.docs[name]
	o.mu.Unlock()
	if ok {
		return text, nil
	}
	return fs.ReadFile(o.base, name)
}
