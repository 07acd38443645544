package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/interp"
	"github.com/bitsh/bitsh/interp/tooling"
	"github.com/go-zeromq/zmq4"
	"go.starlark.net/starlark"
)

const kernelUsage = `usage: bitsh kernel -f CONNECTION_FILE
       bitsh kernel install [--user | --prefix DIR]

Runs bitsh as a Jupyter kernel (messaging protocol 5.3), one interpreter
per kernel. "install" writes the kernelspec (kernel.json and a logo) into
Jupyter's system data directory, the user's (--user) or DIR/share/jupyter
(--prefix DIR).
`

// protocolVersion is the Jupyter messaging protocol version spoken.
const protocolVersion = "5.3"

// runKernel implements "bitsh kernel".
func runKernel(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "install" {
		return runKernelInstall(args[1:], stdout, stderr)
	}
	fs := flag.NewFlagSet("bitsh kernel", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	connFile := fs.String("f", "", "the connection `FILE` Jupyter wrote")
	workers := fs.Int("workers", 0, "cap the goroutines of parallel builtins at `N`; 0 means GOMAXPROCS")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, kernelUsage)
			return exitOK
		}
		return usageError(stderr, "kernel: %v (bitsh kernel -h for usage)", err)
	}
	if *connFile == "" || fs.NArg() > 0 {
		return usageError(stderr, "kernel: want -f CONNECTION_FILE (bitsh kernel -h for usage)")
	}
	info, err := readConnection(*connFile)
	if err != nil {
		return usageError(stderr, "kernel: %v", err)
	}
	k := newKernel(info, *workers)
	if err := k.serve(context.Background()); err != nil {
		fmt.Fprintf(stderr, "%s: kernel: %v\n", progName, err)
		return exitError
	}
	return exitOK
}

// connection is what Jupyter's connection file says.
type connection struct {
	Transport       string `json:"transport"`
	IP              string `json:"ip"`
	ShellPort       int    `json:"shell_port"`
	ControlPort     int    `json:"control_port"`
	StdinPort       int    `json:"stdin_port"`
	IOPubPort       int    `json:"iopub_port"`
	HBPort          int    `json:"hb_port"`
	Key             string `json:"key"`
	SignatureScheme string `json:"signature_scheme"`
}

func readConnection(name string) (connection, error) {
	var c connection
	data, err := os.ReadFile(name)
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("connection file %s: %v", name, err)
	}
	if c.SignatureScheme != "" && c.SignatureScheme != "hmac-sha256" {
		return c, fmt.Errorf("connection file %s: signature scheme %q is not supported (want hmac-sha256)", name, c.SignatureScheme)
	}
	if c.Transport == "" {
		c.Transport = "tcp"
	}
	return c, nil
}

func (c connection) endpoint(port int) string {
	if c.Transport == "ipc" {
		return fmt.Sprintf("ipc://%s-%d", c.IP, port)
	}
	return fmt.Sprintf("%s://%s:%d", c.Transport, c.IP, port)
}

// A kernel serves one notebook: one interpreter whose globals carry from
// cell to cell.
type kernel struct {
	info    connection
	key     []byte
	session string
	in      *interp.Interp
	out     *streamWriter
	errOut  *streamWriter
	count   int // execution count

	shell, control, iopub, stdin, hb zmq4.Socket
	sendMu                           sync.Mutex // one sender at a time per socket is all zmq4 needs; one lock keeps it simple

	runMu  sync.Mutex
	cancel context.CancelCauseFunc // of the running cell, nil between cells
	quit   chan struct{}
}

func newKernel(info connection, workers int) *kernel {
	k := &kernel{info: info, key: []byte(info.Key), session: newUUID(), quit: make(chan struct{})}
	k.out = &streamWriter{k: k, name: "stdout"}
	k.errOut = &streamWriter{k: k, name: "stderr"}
	k.in = interp.New(
		interp.WithStdout(k.out),
		interp.WithStderr(k.errOut),
		interp.WithWorkers(workers),
		interp.WithPredeclared(starlark.StringDict{"argv": starlark.NewList(nil)}),
	)
	return k
}

// serve binds the five sockets and answers requests until a shutdown
// request or until ctx ends.
func (k *kernel) serve(ctx context.Context) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	k.shell = zmq4.NewRouter(ctx)
	k.control = zmq4.NewRouter(ctx)
	k.stdin = zmq4.NewRouter(ctx)
	k.iopub = zmq4.NewPub(ctx)
	k.hb = zmq4.NewRep(ctx)
	socks := []struct {
		s    zmq4.Socket
		port int
	}{{k.shell, k.info.ShellPort}, {k.control, k.info.ControlPort}, {k.stdin, k.info.StdinPort}, {k.iopub, k.info.IOPubPort}, {k.hb, k.info.HBPort}}
	for _, s := range socks {
		if err := s.s.Listen(k.info.endpoint(s.port)); err != nil {
			return fmt.Errorf("listening on %s: %v", k.info.endpoint(s.port), err)
		}
		defer s.s.Close()
	}

	// Jupyter interrupts a kernel with SIGINT unless its kernelspec asks
	// for interrupt_request messages; both cancel the running cell.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt)
	defer signal.Stop(sigc)
	go func() {
		for {
			select {
			case <-sigc:
				k.interrupt()
			case <-ctx.Done():
				return
			}
		}
	}()
	go k.heartbeat()
	go k.loop(k.control)
	k.publish(nil, "status", map[string]any{"execution_state": "starting"})
	go k.loop(k.shell)
	select {
	case <-k.quit:
	case <-ctx.Done():
	}
	// Let the last replies leave before the sockets close.
	time.Sleep(50 * time.Millisecond)
	return nil
}

func (k *kernel) heartbeat() {
	for {
		msg, err := k.hb.Recv()
		if err != nil {
			return
		}
		if err := k.hb.Send(msg); err != nil {
			return
		}
	}
}

// controlRequests are the requests the control socket serves: none of
// them waits on the interpreter, so that an interrupt or a shutdown is
// answered while a cell runs. Others get an error reply there.
var controlRequests = map[string]bool{
	"kernel_info_request": true,
	"interrupt_request":   true,
	"shutdown_request":    true,
	"inspect_request":     true, // the builtins' docstrings only
	"is_complete_request": true, // parses, runs nothing
	"comm_info_request":   true,
	"history_request":     true,
	"debug_request":       false,
	"execute_request":     false, // would replace the running cell's cancel function and wait for the interpreter
	"complete_request":    false, // reads the interpreter's globals, which the running cell holds
}

// loop answers the requests of the shell or control socket in order.
func (k *kernel) loop(sock zmq4.Socket) {
	for {
		raw, err := sock.Recv()
		if err != nil {
			return
		}
		m, err := k.decode(raw.Frames)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: kernel: dropped a message: %v\n", progName, err)
			continue
		}
		if sock == k.control && !controlRequests[m.Header.MsgType] {
			k.refuseOnControl(sock, m)
			continue
		}
		k.handle(sock, m)
	}
}

// refuseOnControl answers a request the control socket does not serve
// with an error reply naming the socket that does.
func (k *kernel) refuseOnControl(sock zmq4.Socket, m *message) {
	if !strings.HasSuffix(m.Header.MsgType, "_request") {
		return // not a request: nothing to answer
	}
	k.reply(sock, m, map[string]any{
		"status":    "error",
		"ename":     "ControlChannel",
		"evalue":    m.Header.MsgType + " is served on the shell channel, not on control",
		"traceback": []string{},
	})
}

// A message is one Jupyter message with the routing identities it came with.
type message struct {
	ids      [][]byte
	Header   header          `json:"header"`
	Parent   json.RawMessage `json:"parent_header"`
	Metadata json.RawMessage `json:"metadata"`
	Content  json.RawMessage `json:"content"`
}

type header struct {
	MsgID    string `json:"msg_id"`
	Session  string `json:"session"`
	Username string `json:"username"`
	Date     string `json:"date"`
	MsgType  string `json:"msg_type"`
	Version  string `json:"version"`
}

const delimiter = "<IDS|MSG>"

func (k *kernel) sign(parts ...[]byte) string {
	if len(k.key) == 0 {
		return ""
	}
	mac := hmac.New(sha256.New, k.key)
	for _, p := range parts {
		mac.Write(p)
	}
	return hex.EncodeToString(mac.Sum(nil))
}

func (k *kernel) decode(frames [][]byte) (*message, error) {
	i := 0
	for i < len(frames) && string(frames[i]) != delimiter {
		i++
	}
	if len(frames) < i+6 {
		return nil, fmt.Errorf("malformed message of %d frames", len(frames))
	}
	m := &message{ids: frames[:i]}
	sig, h, p, md, c := frames[i+1], frames[i+2], frames[i+3], frames[i+4], frames[i+5]
	if want := k.sign(h, p, md, c); !hmac.Equal([]byte(want), sig) {
		return nil, errors.New("bad signature")
	}
	if err := json.Unmarshal(h, &m.Header); err != nil {
		return nil, fmt.Errorf("header: %v", err)
	}
	m.Parent, m.Metadata, m.Content = p, md, c
	return m, nil
}

// send sends a message of type typ in reply to parent (nil for none) on
// sock, to the parent's identities (for router sockets) or to topic.
func (k *kernel) send(sock zmq4.Socket, ids [][]byte, parent *message, typ string, content any) {
	h, _ := json.Marshal(header{
		MsgID:    newUUID(),
		Session:  k.session,
		Username: "bitsh",
		Date:     time.Now().UTC().Format(time.RFC3339Nano),
		MsgType:  typ,
		Version:  protocolVersion,
	})
	p := []byte("{}")
	if parent != nil {
		p, _ = json.Marshal(parent.Header)
	}
	md := []byte("{}")
	c, err := json.Marshal(content)
	if err != nil {
		c, _ = json.Marshal(map[string]string{"status": "error", "ename": "EncodingError", "evalue": err.Error()})
	}
	frames := append([][]byte{}, ids...)
	frames = append(frames, []byte(delimiter), []byte(k.sign(h, p, md, c)), h, p, md, c)
	k.sendMu.Lock()
	defer k.sendMu.Unlock()
	if err := sock.SendMulti(zmq4.NewMsgFrom(frames...)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: kernel: sending %s: %v\n", progName, typ, err)
	}
}

func (k *kernel) reply(sock zmq4.Socket, req *message, content any) {
	typ := strings.TrimSuffix(req.Header.MsgType, "_request") + "_reply"
	k.send(sock, req.ids, req, typ, content)
}

// publish sends a message on IOPub, its topic the message type.
func (k *kernel) publish(parent *message, typ string, content any) {
	k.send(k.iopub, [][]byte{[]byte("kernel." + k.session[:8] + "." + typ)}, parent, typ, content)
}

func (k *kernel) handle(sock zmq4.Socket, m *message) {
	k.publish(m, "status", map[string]any{"execution_state": "busy"})
	defer k.publish(m, "status", map[string]any{"execution_state": "idle"})
	switch m.Header.MsgType {
	case "kernel_info_request":
		k.reply(sock, m, kernelInfo())
	case "execute_request":
		k.execute(sock, m)
	case "complete_request":
		k.complete(sock, m)
	case "inspect_request":
		k.inspect(sock, m)
	case "is_complete_request":
		k.isComplete(sock, m)
	case "interrupt_request":
		k.interrupt()
		k.reply(sock, m, map[string]any{"status": "ok"})
	case "shutdown_request":
		var req struct {
			Restart bool `json:"restart"`
		}
		json.Unmarshal(m.Content, &req)
		k.interrupt()
		k.reply(sock, m, map[string]any{"status": "ok", "restart": req.Restart})
		select {
		case <-k.quit:
		default:
			close(k.quit)
		}
	case "comm_info_request":
		k.reply(sock, m, map[string]any{"status": "ok", "comms": map[string]any{}})
	case "history_request":
		k.reply(sock, m, map[string]any{"status": "ok", "history": []any{}})
	default:
		// Unknown requests (comm_open, ...) get no reply, as the protocol allows.
	}
}

func kernelInfo() map[string]any {
	return map[string]any{
		"status":                 "ok",
		"protocol_version":       protocolVersion,
		"implementation":         "bitsh",
		"implementation_version": versionString(),
		"language_info": map[string]any{
			"name":               "starlark",
			"version":            versionString(),
			"mimetype":           "text/x-starlark",
			"file_extension":     ".star",
			"pygments_lexer":     "python",
			"codemirror_mode":    "python",
			"nbconvert_exporter": "script",
		},
		"banner": fmt.Sprintf("bitsh %s: Starlark with native bit-manipulation kernels. help() lists the builtins.", versionString()),
		"help_links": []map[string]string{
			{"text": "bitsh builtins", "url": "https://github.com/bitsh/bitsh/blob/main/docs/builtins.md"},
		},
	}
}

// interrupt cancels the running cell, if any.
func (k *kernel) interrupt() {
	k.runMu.Lock()
	defer k.runMu.Unlock()
	if k.cancel != nil {
		k.cancel(errInterrupted)
	}
}

func (k *kernel) execute(sock zmq4.Socket, m *message) {
	var req struct {
		Code         string `json:"code"`
		Silent       bool   `json:"silent"`
		StoreHistory *bool  `json:"store_history"`
	}
	if err := json.Unmarshal(m.Content, &req); err != nil {
		k.reply(sock, m, map[string]any{"status": "error", "ename": "BadRequest", "evalue": err.Error(), "traceback": []string{}, "execution_count": k.count})
		return
	}
	if !req.Silent && (req.StoreHistory == nil || *req.StoreHistory) {
		k.count++
	}
	count := k.count
	if !req.Silent {
		k.publish(m, "execute_input", map[string]any{"code": req.Code, "execution_count": count})
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	k.runMu.Lock()
	k.cancel = cancel
	k.runMu.Unlock()
	k.out.begin(m)
	k.errOut.begin(m)
	v, err := tooling.RunCell(ctx, k.in, fmt.Sprintf("<cell %d>", count), req.Code)
	k.out.end()
	k.errOut.end()
	k.runMu.Lock()
	k.cancel = nil
	k.runMu.Unlock()
	cancel(nil)

	if err != nil {
		ename := "Error"
		if errors.Is(err, errInterrupted) {
			ename = "KeyboardInterrupt"
		}
		tb := strings.Split(strings.TrimRight(errorText(err), "\n"), "\n")
		content := map[string]any{"ename": ename, "evalue": firstLine(err.Error()), "traceback": tb}
		if !req.Silent {
			k.publish(m, "error", content)
		}
		content["status"] = "error"
		content["execution_count"] = count
		k.reply(sock, m, content)
		return
	}
	if v != nil && v != starlark.None && !req.Silent {
		k.publish(m, "execute_result", map[string]any{
			"execution_count": count,
			"data":            displayData(v),
			"metadata":        map[string]any{},
		})
	}
	k.reply(sock, m, map[string]any{"status": "ok", "execution_count": count, "user_expressions": map[string]any{}, "payload": []any{}})
}

// displayData is a value's MIME bundle: its repr, and an SVG picture for
// values that have one (boards, cards, plots).
func displayData(v starlark.Value) map[string]any {
	data := map[string]any{"text/plain": v.String()}
	if p, ok := v.(builtins.Pictured); ok {
		data["text/plain"] = p.PictureText(false)
		data["image/svg+xml"] = p.PictureSVG()
	}
	return data
}

// errorText is what printError writes for err, as a string.
func errorText(err error) string {
	var b strings.Builder
	printError(&b, err)
	return b.String()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func (k *kernel) complete(sock zmq4.Socket, m *message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	json.Unmarshal(m.Content, &req)
	before := runePrefix(req.Code, req.CursorPos)
	names, partial := k.in.Completions(before)
	if names == nil {
		names = []string{}
	}
	cursor := utf8.RuneCountInString(before)
	k.reply(sock, m, map[string]any{
		"status":       "ok",
		"matches":      names,
		"cursor_start": cursor - utf8.RuneCountInString(partial),
		"cursor_end":   cursor,
		"metadata":     map[string]any{},
	})
}

// runePrefix returns the first n code points of s (Jupyter counts the
// cursor in code points).
func runePrefix(s string, n int) string {
	if n < 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func (k *kernel) inspect(sock zmq4.Socket, m *message) {
	var req struct {
		Code      string `json:"code"`
		CursorPos int    `json:"cursor_pos"`
	}
	json.Unmarshal(m.Content, &req)
	name := nameAt(req.Code, len(runePrefix(req.Code, req.CursorPos)))
	content := map[string]any{"status": "ok", "found": false, "data": map[string]any{}, "metadata": map[string]any{}}
	// On control, a cell may be running and hold the interpreter: only
	// bitsh's own docstrings, which need no interpreter.
	lookup := func(name string) (string, bool) { return tooling.DocOf(k.in, name) }
	if sock == k.control {
		lookup = tooling.Doc
	}
	if doc, ok := lookup(name); ok {
		content["found"] = true
		content["data"] = map[string]any{"text/plain": doc}
	}
	k.reply(sock, m, content)
}

// nameAt returns the (dotted) name around byte offset i of code. It
// loops rather than recursing: a message's code is untrusted, and a
// recursion per '(' let "(" * 20000000 exhaust the stack.
func nameAt(code string, i int) string {
	isName := func(b byte) bool {
		return b == '_' || b == '.' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
	}
	for {
		start, end := i, i
		for start > 0 && isName(code[start-1]) {
			start--
		}
		for end < len(code) && isName(code[end]) {
			end++
		}
		// A call's name when the cursor sits in its argument list: "popcount(|".
		if start == end && start > 0 && code[start-1] == '(' {
			i = start - 1
			continue
		}
		return strings.Trim(code[start:end], ".")
	}
}

func (k *kernel) isComplete(sock zmq4.Socket, m *message) {
	var req struct {
		Code string `json:"code"`
	}
	json.Unmarshal(m.Content, &req)
	content := map[string]any{}
	switch interp.IsComplete(req.Code) {
	case interp.Complete:
		content["status"] = "complete"
	case interp.Incomplete:
		content["status"] = "incomplete"
		content["indent"] = "    "
	default:
		content["status"] = "invalid"
	}
	k.reply(sock, m, content)
}

// A streamWriter sends what the running cell prints to IOPub as stream
// messages, a line at a time.
type streamWriter struct {
	k      *kernel
	name   string
	mu     sync.Mutex
	parent *message
	buf    []byte
}

func (w *streamWriter) begin(parent *message) {
	w.mu.Lock()
	w.parent, w.buf = parent, nil
	w.mu.Unlock()
}

func (w *streamWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if i := strings.LastIndexByte(string(w.buf), '\n'); i >= 0 {
		w.flush(i + 1)
	}
	return len(p), nil
}

func (w *streamWriter) flush(n int) {
	if n == 0 || w.parent == nil {
		return
	}
	w.k.publish(w.parent, "stream", map[string]any{"name": w.name, "text": string(w.buf[:n])})
	w.buf = w.buf[n:]
}

func (w *streamWriter) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.flush(len(w.buf))
	w.parent = nil
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
