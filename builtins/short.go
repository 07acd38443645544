package builtins

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"go.starlark.net/starlark"
)

// Abbreviating values in error messages: an int of more than
// shortIntBits bits, a string of more than shortStringBytes bytes and a
// list, tuple, dict or set of more than shortItems items are shown in
// part, so that a message stays a line long, and an int's decimal
// digits, whose conversion takes time quadratic in their number and
// cannot be interrupted (seconds for millions of bits), are not computed.
const (
	shortIntBits     = 256
	shortStringBytes = 160
	shortItems       = 8
	shortDepth       = 4
)

// Short returns v's text for an error message: its repr, abbreviated
// past a few lines. A long int shows its first and last hex digits and
// its size: 0x1000000000000000...0000 (an int of 4000001 bits).
func Short(v starlark.Value) string {
	var b strings.Builder
	writeShort(&b, v, 0)
	return b.String()
}

func writeShort(b *strings.Builder, v starlark.Value, depth int) {
	switch v := v.(type) {
	case starlark.Int:
		writeShortInt(b, v.BigInt())
	case starlark.String:
		s := string(v)
		if len(s) <= shortStringBytes {
			b.WriteString(v.String())
			return
		}
		cut := shortStringBytes
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		b.WriteString(starlark.String(s[:cut]).String())
		fmt.Fprintf(b, "... (a string of %d bytes)", len(s))
	case *starlark.List, starlark.Tuple:
		seq := v.(starlark.Indexable)
		open, close := "[", "]"
		if _, ok := v.(starlark.Tuple); ok {
			open, close = "(", ")"
		}
		if depth >= shortDepth {
			fmt.Fprintf(b, "%s... %d items%s", open, seq.Len(), close)
			return
		}
		b.WriteString(open)
		for i := 0; i < seq.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == shortItems {
				fmt.Fprintf(b, "... (%d items)", seq.Len())
				break
			}
			writeShort(b, seq.Index(i), depth+1)
		}
		if _, ok := v.(starlark.Tuple); ok && seq.Len() == 1 {
			b.WriteString(",")
		}
		b.WriteString(close)
	case *starlark.Dict:
		if depth >= shortDepth {
			fmt.Fprintf(b, "{... %d items}", v.Len())
			return
		}
		b.WriteString("{")
		for i, kv := range v.Items() {
			if i > 0 {
				b.WriteString(", ")
			}
			if i == shortItems {
				fmt.Fprintf(b, "... (%d items)", v.Len())
				break
			}
			writeShort(b, kv[0], depth+1)
			b.WriteString(": ")
			writeShort(b, kv[1], depth+1)
		}
		b.WriteString("}")
	case *starlark.Set:
		fmt.Fprintf(b, "set(... %d items)", v.Len())
	default:
		s := v.String()
		if len(s) > 2*shortStringBytes {
			fmt.Fprintf(b, "%s... (a %s)", s[:shortStringBytes], v.Type())
			return
		}
		b.WriteString(s)
	}
}

func isRuneStart(c byte) bool { return c&0xC0 != 0x80 }

// writeShortInt writes x in decimal up to shortIntBits bits, else its
// first 16 and last 4 hex digits and its size in bits.
func writeShortInt(b *strings.Builder, x *big.Int) {
	n := x.BitLen()
	if n <= shortIntBits {
		b.WriteString(x.String())
		return
	}
	if x.Sign() < 0 {
		b.WriteString("-")
	}
	abs := new(big.Int).Abs(x)
	// The leading 61 to 64 bits, cut at a hex digit's boundary.
	top := new(big.Int).Rsh(abs, uint((n-61)&^3)).Uint64()
	low := new(big.Int).And(abs, big.NewInt(0xffff)).Uint64()
	b.WriteString("0x")
	b.WriteString(strconv.FormatUint(top, 16))
	fmt.Fprintf(b, "...%04x (an int of %d bits)", low, n)
}

// shortDigits is the longest run of digits ShortText leaves whole.
const shortDigits = 40

// ShortText returns msg with every run of more than shortDigits decimal
// digits shown as its first and last digits and its length, for messages
// that name a value in full (fuse's compiler names a constant that does
// not fit in a word so).
func ShortText(msg string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(msg); {
		j := i
		for j < len(msg) && '0' <= msg[j] && msg[j] <= '9' {
			j++
		}
		if j-i > shortDigits {
			fmt.Fprintf(&b, "%s...%s (%d digits)", msg[i:i+16], msg[j-4:j], j-i)
			changed = true
			i = j
			continue
		}
		if j > i {
			b.WriteString(msg[i:j])
			i = j
			continue
		}
		b.WriteByte(msg[i])
		i++
	}
	if !changed {
		return msg
	}
	return b.String()
}
