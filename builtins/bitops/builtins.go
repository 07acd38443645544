package bitops

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/debruijn"
)

// A Builtin declares a word builtin once: its name, its parameters (and so
// its arity) and its doc. The Starlark binding registers it and parses its
// calls with it, help prints it, the linter checks calls against it and the
// fuse compiler binds a call's arguments with it. Its meaning is the kernel
// of the same name in this package (debruijn_bsf's in package debruijn).
type Builtin struct {
	Name   string
	Params []Param
	Doc    string // the help text after the signature line
}

// A Kind says what values a parameter takes.
type Kind uint8

const (
	Word  Kind = iota // a 64-bit word
	Width             // 8, 16, 32 or 64
	Count             // a rotation count: any int, kept modulo 64
	Int               // an int of Go's int range, checked by the builtin
)

// A Param is one parameter of a word builtin.
type Param struct {
	Name     string
	Kind     Kind
	Optional bool
	Default  uint64 // the value of an Optional parameter left out
}

// DefaultText returns the default as a signature shows it: a width in
// decimal, a word in hex with all 16 digits.
func (p Param) DefaultText() string {
	if p.Kind == Word {
		return fmt.Sprintf("0x%016x", p.Default)
	}
	return fmt.Sprint(p.Default)
}

// Names returns the parameters' names, in order.
func (b *Builtin) Names() []string {
	names := make([]string, len(b.Params))
	for i, p := range b.Params {
		names[i] = p.Name
	}
	return names
}

// Required returns how many parameters, the first ones, have no default.
func (b *Builtin) Required() int {
	n := 0
	for _, p := range b.Params {
		if !p.Optional {
			n++
		}
	}
	return n
}

// Lookup returns the declaration of the word builtin name.
func Lookup(name string) (*Builtin, bool) {
	for _, b := range Builtins {
		if b.Name == name {
			return b, true
		}
	}
	return nil, false
}

var (
	x     = Param{Name: "x"}
	mask  = Param{Name: "mask"}
	width = Param{Name: "width", Kind: Width, Optional: true, Default: 64}
)

// Builtins are the word builtins: each takes words (and a width, count or
// int), returns a word or a small int, and has an elementwise form on word
// arrays.
var Builtins = []*Builtin{
	{Name: "popcount", Params: []Param{x}, Doc: `Returns the number of one bits of the word x.`},
	{Name: "bsf", Params: []Param{x}, Doc: `Returns the index (0..63) of the least significant one bit of x.
Error if x == 0.`},
	{Name: "bsr", Params: []Param{x}, Doc: `Returns the index (0..63) of the most significant one bit of x.
Error if x == 0.`},
	{Name: "lsb", Params: []Param{x}, Doc: `Returns x & -x as a word: the least significant one bit of x, 0 for x == 0.`},
	{Name: "rotl", Params: []Param{x, {Name: "k", Kind: Count}, width}, Doc: `Rotates x left by k bits within width bits (8, 16, 32 or 64). Any int k
works: negative k rotates right, k is taken modulo width. x must fit in width.`},
	{Name: "rotr", Params: []Param{x, {Name: "k", Kind: Count}, width}, Doc: `Rotates x right by k bits within width bits (8, 16, 32 or 64). Any int k
works: negative k rotates left, k is taken modulo width. x must fit in width.`},
	{Name: "reverse_bits", Params: []Param{x, width}, Doc: `Reverses the bit order of x within width bits: bit i goes to width-1-i.
x must fit in width.`},
	{Name: "swap_bytes", Params: []Param{x, width}, Doc: `Reverses the byte order of x within width bits. x must fit in width.`},
	{Name: "pdep", Params: []Param{x, mask}, Doc: `Parallel bit deposit (BMI2 PDEP): the low bits of x, in order, go to the
positions of the one bits of mask. pdep(0b101, 0xf0) == 0x50.`},
	{Name: "pext", Params: []Param{x, mask}, Doc: `Parallel bit extract (BMI2 PEXT): the bits of x at the positions of the one
bits of mask, gathered into the low bits. pext(0x50, 0xf0) == 0b101.`},
	{Name: "delta_swap", Params: []Param{x, mask, {Name: "delta", Kind: Int}}, Doc: `Swaps each bit i of x with bit i+delta, for every one bit i of mask.
delta is 0..63 (0 swaps each bit with itself: x is unchanged); error if
mask << delta overflows 64 bits or overlaps mask.`},
	{Name: "parity", Params: []Param{x}, Doc: `Returns 1 when the word x has an odd number of one bits, else 0
(popcount(x) % 2).`},
	{Name: "gray", Params: []Param{x}, Doc: `Returns the reflected binary Gray code of the word x, x ^ (x >> 1):
gray(i) and gray(i + 1) differ in exactly one bit. gray(5) == 0b111.`},
	{Name: "gray_inverse", Params: []Param{x}, Doc: `Returns the word g with gray(g) == x: bit i of g is the parity of the bits
of x at i and above. gray_inverse(0b111) == 5.`},
	{Name: "debruijn_bsf", Params: []Param{x, {Name: "magic", Optional: true, Default: debruijn.Default64}, width}, Doc: `Returns the index of the least significant one bit of x computed as
T[((x & -x) * magic mod 2^width) >> (width - s)], T = debruijn_table(magic,
width). Error if x == 0, if x does not fit in width or if magic is not a
De Bruijn magic.`},
}
