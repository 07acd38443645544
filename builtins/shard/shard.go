// Package shard holds what the shards of one job share without Starlark:
// the results a shard emits (keys, each with an op and a value), the way
// parts combine (Merge), the JSON format of a part, and the cut of a space
// into contiguous index ranges (Range).
//
// Values are the JSON-representable ones: nil, bool, *big.Int, string,
// []any and *Object (a dict with string keys, in insertion order).
package shard

import (
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// An Op says how the values of one key combine.
type Op string

// The ops of emit.
const (
	Sum    Op = "sum"    // exact integer sum
	Min    Op = "min"    // least value
	Max    Op = "max"    // greatest value
	Append Op = "append" // list of values: shard order, then emission order
	Union  Op = "union"  // set of values, kept sorted (see Compare)
)

// ParseOp returns the op called s.
func ParseOp(s string) (Op, error) {
	switch op := Op(s); op {
	case Sum, Min, Max, Append, Union:
		return op, nil
	}
	return "", fmt.Errorf("op = %q is not one of \"sum\", \"min\", \"max\", \"append\", \"union\"", s)
}

// An Object is a JSON object whose members keep their order.
type Object struct {
	Keys   []string
	Values []any
}

// An Entry is one key's op and its value so far: for Append a []any, for
// Union a sorted []any without duplicates.
type Entry struct {
	Op    Op
	Value any
}

// Results are the keys a run emitted. The zero value is empty and ready;
// its methods are safe for concurrent use.
type Results struct {
	mu      sync.Mutex
	entries map[string]*Entry
}

// Emit records value under key with op. A key keeps the op it was first
// emitted with; another op is an error, as is a value that op cannot
// combine (a non-int for Sum, values of different kinds for Min and Max).
func (r *Results) Emit(key string, op Op, value any) error {
	if err := check(value); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.entries == nil {
		r.entries = map[string]*Entry{}
	}
	e, ok := r.entries[key]
	if !ok {
		e = &Entry{Op: op}
		switch op {
		case Append, Union:
			e.Value = []any{}
		}
		if err := e.add(value, true); err != nil {
			return err
		}
		r.entries[key] = e
		return nil
	}
	if e.Op != op {
		return fmt.Errorf("key %q was emitted with op %q, not %q (one key keeps one op)", key, e.Op, op)
	}
	return e.add(value, false)
}

// add folds one emitted value into e.
func (e *Entry) add(v any, first bool) error {
	switch e.Op {
	case Sum:
		n, ok := v.(*big.Int)
		if !ok {
			return fmt.Errorf("op \"sum\" wants an int, got %s", kind(v))
		}
		if first {
			e.Value = new(big.Int).Set(n)
			return nil
		}
		e.Value = new(big.Int).Add(e.Value.(*big.Int), n)
	case Min, Max:
		if first {
			e.Value = v
			return nil
		}
		c, err := orderedCompare(v, e.Value)
		if err != nil {
			return fmt.Errorf("op %q: %w", e.Op, err)
		}
		if (e.Op == Min && c < 0) || (e.Op == Max && c > 0) {
			e.Value = v
		}
	case Append:
		e.Value = append(e.Value.([]any), v)
	case Union:
		e.Value = insertSorted(e.Value.([]any), v)
	default:
		return fmt.Errorf("unknown op %q", e.Op)
	}
	return nil
}

// combine folds the entry of a later shard into e (both of e's op).
func (e *Entry) combine(o *Entry) error {
	switch e.Op {
	case Sum, Min, Max:
		return e.add(o.Value, false)
	case Append:
		e.Value = append(slices.Clone(e.Value.([]any)), o.Value.([]any)...)
	case Union:
		u := slices.Clone(e.Value.([]any))
		for _, v := range o.Value.([]any) {
			u = insertSorted(u, v)
		}
		e.Value = u
	default:
		return fmt.Errorf("unknown op %q", e.Op)
	}
	return nil
}

func insertSorted(s []any, v any) []any {
	i := sort.Search(len(s), func(i int) bool { return Compare(s[i], v) >= 0 })
	if i < len(s) && Compare(s[i], v) == 0 {
		return s
	}
	return slices.Insert(s, i, v)
}

// Keys returns the emitted keys, sorted.
func (r *Results) Keys() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]string, 0, len(r.entries))
	for k := range r.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Len returns the number of keys.
func (r *Results) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// Get returns key's entry (a copy whose Value must not be modified).
func (r *Results) Get(key string) (Entry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.entries[key]
	if !ok {
		return Entry{}, false
	}
	return *e, true
}

// set stores an entry read from a part, checking its shape.
func (r *Results) set(key string, e Entry) error {
	if err := check(e.Value); err != nil {
		return fmt.Errorf("key %q: %w", key, err)
	}
	switch e.Op {
	case Sum:
		if _, ok := e.Value.(*big.Int); !ok {
			return fmt.Errorf("key %q: op \"sum\" holds %s, want int", key, kind(e.Value))
		}
	case Min, Max:
	case Append, Union:
		l, ok := e.Value.([]any)
		if !ok {
			return fmt.Errorf("key %q: op %q holds %s, want list", key, e.Op, kind(e.Value))
		}
		if e.Op == Union {
			for i := 1; i < len(l); i++ {
				if Compare(l[i-1], l[i]) >= 0 {
					return fmt.Errorf("key %q: op \"union\" list is not sorted without duplicates", key)
				}
			}
		}
	default:
		return fmt.Errorf("key %q: unknown op %q", key, e.Op)
	}
	if r.entries == nil {
		r.entries = map[string]*Entry{}
	}
	r.entries[key] = &e
	return nil
}

// mergeInto folds r, the results of a later shard, into dst.
func mergeInto(dst, r *Results) error {
	for _, k := range r.Keys() {
		o, _ := r.Get(k)
		e, ok := dst.entries[k]
		if !ok {
			c := o
			dst.set(k, c)
			continue
		}
		if e.Op != o.Op {
			return fmt.Errorf("key %q has op %q in one part and %q in another", k, e.Op, o.Op)
		}
		if err := e.combine(&o); err != nil {
			return fmt.Errorf("key %q: %w", k, err)
		}
	}
	return nil
}

// MergeResults combines the results of shards given in shard order.
func MergeResults(parts ...*Results) (*Results, error) {
	out := &Results{entries: map[string]*Entry{}}
	for _, p := range parts {
		if err := mergeInto(out, p); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// maxIntBits is the bit length below which an int surely has at most
// MaxIntDigits digits (10^MaxIntDigits needs MaxIntDigits*log2(10) bits);
// at or above it check compares with tenToMaxDigits, the least int of
// MaxIntDigits+1 digits (never modified; computed when first needed, not
// as bitsh starts).
const maxIntBits = MaxIntDigits * 3321928 / 1000000

var tenToMaxDigits = sync.OnceValue(func() *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(MaxIntDigits), nil)
})

// check reports whether v is JSON-representable in this package's model.
func check(v any) error {
	switch v := v.(type) {
	case nil, bool, string:
		return nil
	case *big.Int:
		if v == nil {
			return fmt.Errorf("nil int")
		}
		if v.BitLen() >= maxIntBits && v.CmpAbs(tenToMaxDigits()) >= 0 {
			return fmt.Errorf("an int of more than %d digits (a part holds at most %d)", MaxIntDigits, MaxIntDigits)
		}
		return nil
	case []any:
		for _, x := range v {
			if err := check(x); err != nil {
				return err
			}
		}
		return nil
	case *Object:
		if len(v.Keys) != len(v.Values) {
			return fmt.Errorf("object with %d keys and %d values", len(v.Keys), len(v.Values))
		}
		for _, x := range v.Values {
			if err := check(x); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("%T is not a JSON value", v)
}

// kind names v's type as Starlark would.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case *big.Int:
		return "int"
	case string:
		return "string"
	case []any:
		return "list"
	case *Object:
		return "dict"
	}
	return fmt.Sprintf("%T", v)
}

func rank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case *big.Int:
		return 2
	case string:
		return 3
	case []any:
		return 4
	}
	return 5
}

// Compare is the total order of union sets: None < bools < ints <
// strings < lists < dicts; within a kind, False < True, ints by value,
// strings by bytes, lists element by element, dicts by their JSON text.
func Compare(a, b any) int {
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a := a.(type) {
	case nil:
		return 0
	case bool:
		bb := b.(bool)
		switch {
		case a == bb:
			return 0
		case !a:
			return -1
		}
		return 1
	case *big.Int:
		return a.Cmp(b.(*big.Int))
	case string:
		return strings.Compare(a, b.(string))
	case []any:
		bl := b.([]any)
		for i := 0; i < len(a) && i < len(bl); i++ {
			if c := Compare(a[i], bl[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(bl)
	}
	return strings.Compare(string(mustJSON(a)), string(mustJSON(b)))
}

// orderedCompare compares values for min and max, which as in Starlark
// only order values of one kind: bools, ints, strings or lists.
func orderedCompare(a, b any) (int, error) {
	ka, kb := kind(a), kind(b)
	if ka != kb {
		return 0, fmt.Errorf("cannot compare %s with %s", ka, kb)
	}
	if ka == "None" || ka == "dict" {
		return 0, fmt.Errorf("%s values are not ordered", ka)
	}
	return Compare(a, b), nil
}

// Range returns the contiguous index range [lo, hi) of shard index of
// count over total items: shards get floor or ceiling of total/count items,
// in order, and together cover [0, total) exactly.
func Range(total *big.Int, index, count int) (lo, hi *big.Int) {
	at := func(i int) *big.Int {
		x := new(big.Int).Mul(total, big.NewInt(int64(i)))
		return x.Quo(x, big.NewInt(int64(count)))
	}
	return at(index), at(index + 1)
}

// Range64 is Range for a total that fits in a uint64 (and count >= 1).
func Range64(total uint64, index, count int) (lo, hi uint64) {
	l, h := Range(new(big.Int).SetUint64(total), index, count)
	return l.Uint64(), h.Uint64()
}

// Repr writes v as a Starlark literal: None, True, False, 12, "s",
// [1, 2], {"k": 1}.
func Repr(v any) string {
	var b strings.Builder
	repr(&b, v)
	return b.String()
}

func repr(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *big.Int:
		b.WriteString(v.String())
	case string:
		b.WriteString(strconv.Quote(v))
	case []any:
		b.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				b.WriteString(", ")
			}
			repr(b, x)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range v.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k))
			b.WriteString(": ")
			repr(b, v.Values[i])
		}
		b.WriteByte('}')
	default:
		fmt.Fprintf(b, "%v", v)
	}
}

// WriteText writes each key, sorted, as a "key = value" line. A key is
// written as it is when it is plain text (TextKey), else as a quoted
// string, so that no key forges a line or sends a terminal escape.
func (r *Results) WriteText(w io.Writer) error {
	for _, k := range r.Keys() {
		e, _ := r.Get(k)
		if _, err := fmt.Fprintf(w, "%s = %s\n", TextKey(k), Repr(e.Value)); err != nil {
			return err
		}
	}
	return nil
}

// TextKey returns key as a "key = value" line shows it: as it is when it
// is valid UTF-8 of printable characters (spaces included, but not at
// either end), does not start with a double quote and does not contain
// " = "; else as a double-quoted string with escapes (strconv.Quote), as
// values are written. So a key cannot end the line (a newline would forge
// the next one), move the cursor or recolour the terminal (an escape
// sequence), hide (a format character such as a bidirectional override),
// or read as another key followed by a value.
func TextKey(key string) string {
	plain := key != "" && utf8.ValidString(key) && key[0] != '"' &&
		key[0] != ' ' && key[len(key)-1] != ' ' && !strings.Contains(key, " = ")
	for _, r := range key {
		if !plain {
			break
		}
		plain = strconv.IsPrint(r)
	}
	if plain {
		return key
	}
	return strconv.Quote(key)
}
