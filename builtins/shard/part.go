package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bitsh/bitsh/builtins/outfile"
)

// Format is the value of a part's "format" member; a reader refuses
// another.
const Format = "bitsh-shard/1"

// A Part is the JSON file a shard writes (-o), or the merge of parts.
//
//	{
//	  "format": "bitsh-shard/1",
//	  "script": "count.star",             // the script's name, for people
//	  "script_sha256": "9f86d0…",         // SHA-256 of the script's text
//	  "args": ["10"],                     // argv
//	  "hash": "sha256:5e88…",             // SHA-256 of text and args (Hash)
//	  "count": 4,                         // N, the number of shards
//	  "shards": [2],                      // the shard indices this file holds
//	  "results": {                        // each key, sorted: op and value
//	    "hits": {"op": "sum", "value": 17},
//	    "best": {"op": "max", "value": [3, "x"]}
//	  }
//	}
//
// A part written by -shard I/N holds [I]; a merged file holds 0..N-1.
// Values are JSON: ints of any size are written as bare JSON numbers.
type Part struct {
	Script       string
	ScriptSHA256 string
	Args         []string
	Hash         string
	Count        int
	Shards       []int
	Results      *Results
}

// NewPart describes the results of shards of the run of the script text
// src called name with args.
func NewPart(name string, src []byte, args []string, count int, shards []int, r *Results) *Part {
	sum := sha256.Sum256(src)
	return &Part{
		Script:       name,
		ScriptSHA256: hex.EncodeToString(sum[:]),
		Args:         slices.Clone(args),
		Hash:         Hash(src, args),
		Count:        count,
		Shards:       slices.Clone(shards),
		Results:      r,
	}
}

// Hash returns "sha256:" and the hex SHA-256 of the script text followed,
// for each argument, by a NUL byte and the argument.
func Hash(src []byte, args []string) string {
	h := sha256.New()
	h.Write(src)
	for _, a := range args {
		h.Write([]byte{0})
		h.Write([]byte(a))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MarshalJSON writes the format above, indented, keys sorted.
func (p *Part) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	str := func(s string) { q, _ := json.Marshal(s); b.Write(q) }
	b.WriteString("{\n  \"format\": ")
	str(Format)
	b.WriteString(",\n  \"script\": ")
	str(p.Script)
	b.WriteString(",\n  \"script_sha256\": ")
	str(p.ScriptSHA256)
	b.WriteString(",\n  \"args\": ")
	b.WriteByte('[')
	for i, a := range p.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		str(a)
	}
	b.WriteByte(']')
	b.WriteString(",\n  \"hash\": ")
	str(p.Hash)
	fmt.Fprintf(&b, ",\n  \"count\": %d,\n  \"shards\": ", p.Count)
	b.WriteByte('[')
	for i, x := range p.Shards {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte(']')
	b.WriteString(",\n  \"results\": {")
	r := p.Results
	if r == nil {
		r = &Results{}
	}
	for i, k := range r.Keys() {
		e, _ := r.Get(k)
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		str(k)
		b.WriteString(": {\"op\": ")
		str(string(e.Op))
		b.WriteString(", \"value\": ")
		if err := writeJSON(&b, e.Value); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		b.WriteString("}")
	}
	if r.Len() > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("}\n}\n")
	return b.Bytes(), nil
}

func writeJSON(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case *big.Int:
		b.WriteString(v.String())
	case string:
		q, _ := json.Marshal(v)
		b.Write(q)
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			if err := writeJSON(b, x); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			q, _ := json.Marshal(k)
			b.Write(q)
			b.WriteString(": ")
			if err := writeJSON(b, v.Values[i]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("%T is not a JSON value", v)
	}
	return nil
}

func mustJSON(v any) []byte {
	var b bytes.Buffer
	if err := writeJSON(&b, v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// JSON returns v's JSON text.
func JSON(v any) (string, error) {
	var b bytes.Buffer
	err := writeJSON(&b, v)
	return b.String(), err
}

// ReadPart parses a part from its JSON text; name names it in errors.
func ReadPart(name string, data []byte) (*Part, error) {
	fail := func(format string, args ...any) (*Part, error) {
		return nil, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decode(dec, 0)
	if err != nil {
		return fail("not a bitsh shard part: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fail("not a bitsh shard part: data after the JSON object")
	}
	obj, ok := v.(*Object)
	if !ok {
		return fail("not a bitsh shard part: want a JSON object")
	}
	m := map[string]any{}
	for i, k := range obj.Keys {
		m[k] = obj.Values[i]
	}
	if f, _ := m["format"].(string); f != Format {
		return fail("not a bitsh shard part: format = %s, want %q", jsonOr(m["format"]), Format)
	}
	p := &Part{Results: &Results{}}
	var okS, okH, okN bool
	p.Script, _ = m["script"].(string)
	p.ScriptSHA256, okS = m["script_sha256"].(string)
	p.Hash, okH = m["hash"].(string)
	n, okN := m["count"].(*big.Int)
	if !okS || !okH || !okN {
		return fail("a part needs script_sha256 and hash strings and an int count")
	}
	if !n.IsInt64() || n.Int64() < 1 || n.Int64() > 1<<20 {
		return fail("count = %s is not in 1..%d", n, 1<<20)
	}
	p.Count = int(n.Int64())
	args, ok := m["args"].([]any)
	if !ok {
		return fail("args: want a list of strings")
	}
	for _, a := range args {
		s, ok := a.(string)
		if !ok {
			return fail("args: want a list of strings")
		}
		p.Args = append(p.Args, s)
	}
	shards, ok := m["shards"].([]any)
	if !ok || len(shards) == 0 {
		return fail("shards: want a non-empty list of shard indices")
	}
	for _, s := range shards {
		i, ok := s.(*big.Int)
		if !ok || !i.IsInt64() || i.Int64() < 0 || i.Int64() >= int64(p.Count) {
			return fail("shards: %s is not a shard index in 0..%d", jsonOr(s), p.Count-1)
		}
		p.Shards = append(p.Shards, int(i.Int64()))
	}
	sort.Ints(p.Shards)
	for i := 1; i < len(p.Shards); i++ {
		if p.Shards[i] == p.Shards[i-1] {
			return fail("shards: %d is listed twice", p.Shards[i])
		}
	}
	res, ok := m["results"].(*Object)
	if !ok {
		return fail("results: want an object")
	}
	for i, k := range res.Keys {
		e, ok := res.Values[i].(*Object)
		if !ok || len(e.Keys) != 2 {
			return fail("results: key %q: want {\"op\": …, \"value\": …}", k)
		}
		em := map[string]any{e.Keys[0]: e.Values[0], e.Keys[1]: e.Values[1]}
		ops, _ := em["op"].(string)
		op, err := ParseOp(ops)
		if err != nil {
			return fail("results: key %q: %v", k, err)
		}
		val, ok := em["value"]
		if !ok {
			return fail("results: key %q: no value", k)
		}
		if err := p.Results.set(k, Entry{Op: op, Value: val}); err != nil {
			return fail("results: %v", err)
		}
	}
	return p, nil
}

func jsonOr(v any) string {
	if s, err := JSON(v); err == nil {
		return s
	}
	return "?"
}

// MaxDepth is how deeply a part's JSON may nest: the part's own object,
// results and entry, and a value nested as deeply as emit allows (100),
// with room to spare. Deeper input is refused before it can exhaust the
// stack of the recursive decoder.
const MaxDepth = 128

// MaxIntDigits is the most decimal digits an int of a part may have (a
// minus sign aside). Converting decimal digits to binary takes time
// quadratic in their number (10,000 digits take about a millisecond, a
// million minutes), so emit refuses a larger int and a reader refuses to
// parse one.
const MaxIntDigits = 10000

// decode reads one JSON value at nesting depth depth, keeping object
// member order and integers exact; a number that is not an integer is an
// error, and so are nesting deeper than MaxDepth, an int of more than
// MaxIntDigits digits and a key given twice in an object.
func decode(dec *json.Decoder, depth int) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := t.(type) {
	case json.Delim:
		if depth >= MaxDepth {
			return nil, fmt.Errorf("JSON nested more than %d deep", MaxDepth)
		}
		switch t {
		case '[':
			l := []any{}
			for dec.More() {
				v, err := decode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				l = append(l, v)
			}
			_, err := dec.Token()
			return l, err
		case '{':
			o := &Object{}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k := kt.(string)
				if seen[k] {
					return nil, fmt.Errorf("object key %q given twice", k)
				}
				seen[k] = true
				v, err := decode(dec, depth+1)
				if err != nil {
					return nil, err
				}
				o.Keys = append(o.Keys, k)
				o.Values = append(o.Values, v)
			}
			_, err := dec.Token()
			return o, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	case json.Number:
		if digits := len(strings.TrimPrefix(string(t), "-")); digits > MaxIntDigits {
			return nil, fmt.Errorf("number of %d digits: ints of a part have at most %d", digits, MaxIntDigits)
		}
		n, ok := new(big.Int).SetString(string(t), 10)
		if !ok {
			return nil, fmt.Errorf("number %s is not an integer", t)
		}
		return n, nil
	case string, bool, nil:
		return t, nil
	}
	return nil, fmt.Errorf("unexpected token %v", t)
}

// WriteFile writes the part to what path names (outfile.Write): a
// regular file, through symbolic links, atomically (a temporary file in
// its directory, then renamed, so that a reader never sees half a part and
// a failed write leaves the file as it was); a fifo or a device in place.
func (p *Part) WriteFile(path string) error {
	data, err := p.MarshalJSON()
	if err != nil {
		return err
	}
	return outfile.Write(path, data, 0o644)
}

// Merge combines parts of one job into one part holding every shard. It
// refuses, naming the problem, parts of different scripts, arguments or
// shard counts, a shard given twice, and missing shards.
func Merge(parts []*Part, names []string) (*Part, error) {
	if len(parts) == 0 {
		return nil, errors.New("no parts to merge")
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("part %d", i)
	}
	first := parts[0]
	owner := map[int]int{}
	for i, p := range parts {
		switch {
		case p.ScriptSHA256 != first.ScriptSHA256:
			return nil, fmt.Errorf("%s and %s come from different scripts (%s: %.12s…, %s: %.12s…)",
				name(0), name(i), first.Script, first.ScriptSHA256, p.Script, p.ScriptSHA256)
		case !slices.Equal(p.Args, first.Args):
			return nil, fmt.Errorf("%s and %s were run with different arguments (%s and %s)",
				name(0), name(i), quoteArgs(first.Args), quoteArgs(p.Args))
		case p.Hash != first.Hash:
			return nil, fmt.Errorf("%s and %s have different hashes", name(0), name(i))
		case p.Count != first.Count:
			return nil, fmt.Errorf("%s and %s have different shard counts (%d and %d)", name(0), name(i), first.Count, p.Count)
		}
		for _, s := range p.Shards {
			if j, dup := owner[s]; dup {
				if j == i {
					return nil, fmt.Errorf("%s lists shard %d twice", name(i), s)
				}
				return nil, fmt.Errorf("shard %d is given twice (%s and %s)", s, name(j), name(i))
			}
			owner[s] = i
		}
	}
	var missing []string
	for s := 0; s < first.Count; s++ {
		if _, ok := owner[s]; !ok {
			missing = append(missing, strconv.Itoa(s))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("missing shard%s %s of %d", plural(len(missing)), strings.Join(missing, ", "), first.Count)
	}
	// Append and union need shard order: each shard's results once, in
	// index order. A merged file holds several shards' combined results,
	// which keep shard order only if its shards are contiguous.
	order := make([]int, 0, len(parts))
	for i := range parts {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return parts[order[a]].Shards[0] < parts[order[b]].Shards[0] })
	var rs []*Results
	for _, i := range order {
		p := parts[i]
		if last := p.Shards[len(p.Shards)-1]; last-p.Shards[0] != len(p.Shards)-1 {
			return nil, fmt.Errorf("%s holds shards %v, not a contiguous range: its append results lost shard order", name(i), p.Shards)
		}
		rs = append(rs, p.Results)
	}
	merged, err := MergeResults(rs...)
	if err != nil {
		return nil, err
	}
	all := make([]int, first.Count)
	for i := range all {
		all[i] = i
	}
	return &Part{
		Script:       first.Script,
		ScriptSHA256: first.ScriptSHA256,
		Args:         slices.Clone(first.Args),
		Hash:         first.Hash,
		Count:        first.Count,
		Shards:       all,
		Results:      merged,
	}, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func quoteArgs(a []string) string {
	q, _ := json.Marshal(append([]string{}, a...))
	return string(q)
}
