// Package pyformat formats numbers and strings as Python's built-in
// format(value, spec) does, with Python's format-specification
// mini-language (docs.python.org/3/library/string.html#formatspec):
//
//	[[fill]align][sign]["z"]["#"]["0"][width][grouping]["." precision][type]
//
// fill is any character; align is < > = or ^; sign is + - or space; z
// makes a float's negative zero positive; # asks for the alternate form
// (0b, 0o, 0x prefixes; a float's point and trailing zeros); 0 pads
// numbers with zeros after the sign; grouping is , or _; the types are
// b c d o x X n and none for ints, e E f F g G n % and none for floats (an
// int formats as a float with these), and s or none for strings. The
// errors say what Python's ValueError says.
package pyformat

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxWidth bounds a spec's width and precision: Python takes any, but a
// width of 10**12 would exhaust memory before Python could refuse it.
const MaxWidth = 1 << 20

// A Spec is a parsed format specification.
type Spec struct {
	Fill      rune // 0 when the spec gives none
	Align     byte // '<', '>', '=', '^', or 0 when the spec gives none
	Sign      byte // '+', '-', ' ', or 0 when the spec gives none
	NoNegZero bool // z
	Alt       bool // #
	Zero      bool // 0 before the width
	Width     int  // 0 when the spec gives none
	Grouping  byte // ',', '_', or 0
	Precision int  // -1 when the spec gives none
	Type      byte // 0 when the spec gives none
	text      string
}

func isAlign(r rune) bool { return r == '<' || r == '>' || r == '=' || r == '^' }

// Parse parses a format specification; kind names the value's type in
// errors ("int", "float", "str").
func Parse(spec, kind string) (Spec, error) {
	s := Spec{Precision: -1, text: spec}
	i := 0
	if r, n := utf8.DecodeRuneInString(spec); n > 0 {
		if r2, n2 := utf8.DecodeRuneInString(spec[n:]); n2 > 0 && isAlign(r2) {
			s.Fill, s.Align, i = r, byte(r2), n+n2
		} else if isAlign(r) {
			s.Align, i = byte(r), n
		}
	}
	if i < len(spec) && (spec[i] == '+' || spec[i] == '-' || spec[i] == ' ') {
		s.Sign = spec[i]
		i++
	}
	if i < len(spec) && spec[i] == 'z' {
		s.NoNegZero = true
		i++
	}
	if i < len(spec) && spec[i] == '#' {
		s.Alt = true
		i++
	}
	if i < len(spec) && spec[i] == '0' {
		s.Zero = true
		i++
	}
	var err error
	if s.Width, i, err = number(spec, i); err != nil {
		return s, err
	}
	if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
		s.Grouping = spec[i]
		i++
		if i < len(spec) && (spec[i] == ',' || spec[i] == '_') {
			return s, fmt.Errorf("Cannot specify both ',' and '_'.")
		}
	}
	if i < len(spec) && spec[i] == '.' {
		i++
		start := i
		if s.Precision, i, err = number(spec, i); err != nil {
			return s, err
		}
		if i == start {
			return s, fmt.Errorf("Format specifier missing precision")
		}
	}
	switch rest := spec[i:]; {
	case len(rest) > 1:
		return s, fmt.Errorf("Invalid format specifier '%s' for object of type '%s'", spec, kind)
	case len(rest) == 1:
		s.Type = rest[0]
	}
	if s.Grouping != 0 {
		switch s.Type {
		case 0, 'd', 'e', 'E', 'f', 'F', 'g', 'G', '%':
		case 'b', 'o', 'x', 'X':
			if s.Grouping == '_' {
				break
			}
			fallthrough
		default:
			return s, fmt.Errorf("Cannot specify '%c' with '%s'.", s.Grouping, typeName(s.Type))
		}
	}
	return s, nil
}

func typeName(t byte) string {
	if t < utf8.RuneSelf && strconv.IsPrint(rune(t)) {
		return string(rune(t))
	}
	return fmt.Sprintf("\\x%x", t)
}

// number reads the decimal digits at spec[i:], or none (0).
func number(spec string, i int) (n, end int, err error) {
	for end = i; end < len(spec) && '0' <= spec[end] && spec[end] <= '9'; end++ {
		n = n*10 + int(spec[end]-'0')
		if n > MaxWidth {
			return 0, end, fmt.Errorf("width or precision %s... is larger than %d", spec[i:end+1], MaxWidth)
		}
	}
	return n, end, nil
}

func unknownType(t byte, kind string) error {
	return fmt.Errorf("Unknown format code '%s' for object of type '%s'", typeName(t), kind)
}

// String formats s with spec as Python's str.__format__ does.
func String(s, spec string) (string, error) {
	p, err := Parse(spec, "str")
	if err != nil {
		return "", err
	}
	switch {
	case p.Type != 0 && p.Type != 's':
		return "", unknownType(p.Type, "str")
	case p.Sign != 0:
		return "", fmt.Errorf("Sign not allowed in string format specifier")
	case p.NoNegZero:
		return "", fmt.Errorf("Negative zero coercion (z) not allowed in string format specifier")
	case p.Alt:
		return "", fmt.Errorf("Alternate form (#) not allowed in string format specifier")
	case p.Align == '=':
		return "", fmt.Errorf("'=' alignment not allowed in string format specifier")
	case p.Grouping != 0:
		return "", fmt.Errorf("Cannot specify '%c' with 's'.", p.Grouping)
	}
	if p.Precision >= 0 && utf8.RuneCountInString(s) > p.Precision {
		n := 0
		for i := range s {
			if n == p.Precision {
				s = s[:i]
				break
			}
			n++
		}
	}
	p.defaults('<')
	return pad(p, "", s), nil
}

// defaults fills in the fill and alignment the spec leaves out: a space
// aligned to def, or with the 0 flag zeros (after the sign, for numbers).
func (p *Spec) defaults(def byte) {
	if p.Zero && p.Fill == 0 {
		p.Fill = '0'
		if p.Align == 0 && def == '>' {
			p.Align = '='
		}
	}
	if p.Fill == 0 {
		p.Fill = ' '
	}
	if p.Align == 0 {
		p.Align = def
	}
}

// pad aligns sign+prefix, then body, within the width.
func pad(p Spec, signPrefix, body string) string {
	n := utf8.RuneCountInString(signPrefix) + utf8.RuneCountInString(body)
	if n >= p.Width {
		return signPrefix + body
	}
	fill := strings.Repeat(string(p.Fill), p.Width-n)
	switch p.Align {
	case '<':
		return signPrefix + body + fill
	case '^':
		left := (p.Width - n) / 2
		return fill[:left*utf8.RuneLen(p.Fill)] + signPrefix + body + fill[left*utf8.RuneLen(p.Fill):]
	case '=':
		return signPrefix + fill + body
	}
	return fill + signPrefix + body
}

// number formats a number from its parts: negative, the prefix (0x), the
// integer digits, and the rest (point, fraction, exponent, %). It groups
// the digits and pads them with zeros, as CPython's fill_number does.
func (p Spec) number(negative bool, prefix, digits, rest string) string {
	sign := ""
	switch {
	case negative:
		sign = "-"
	case p.Sign == '+':
		sign = "+"
	case p.Sign == ' ':
		sign = " "
	}
	minWidth := 0
	if p.Fill == '0' && p.Align == '=' {
		minWidth = p.Width - len(sign) - len(prefix) - utf8.RuneCountInString(rest)
	}
	size := 3
	if p.Type == 'b' || p.Type == 'o' || p.Type == 'x' || p.Type == 'X' {
		size = 4
	}
	digits = group(digits, p.Grouping, size, minWidth)
	return pad(p, sign+prefix, digits+rest)
}

// group inserts sep between groups of size digits, counting from the
// right, and adds leading zeros (grouped too) until the result has at
// least minWidth characters, as CPython's InsertThousandsGrouping does.
// sep == 0 means no separator.
func group(digits string, sep byte, size, minWidth int) string {
	if sep == 0 {
		if len(digits) < minWidth {
			return strings.Repeat("0", minWidth-len(digits)) + digits
		}
		return digits
	}
	var groups []string
	remaining := len(digits)
	for {
		l := min(size, max(remaining, minWidth, 1))
		zeros := max(0, l-remaining)
		chars := max(0, min(remaining, l))
		groups = append(groups, strings.Repeat("0", zeros)+digits[remaining-chars:remaining])
		remaining -= chars
		minWidth -= size
		if remaining <= 0 && minWidth <= 0 {
			break
		}
		minWidth-- // the separator
	}
	var b strings.Builder
	for i := len(groups) - 1; i >= 0; i-- {
		b.WriteString(groups[i])
		if i > 0 {
			b.WriteByte(sep)
		}
	}
	return b.String()
}

// Int formats x with spec as Python's int.__format__ does. The float
// types (e E f F g G %) format float(x).
func Int(x *big.Int, spec string) (string, error) {
	p, err := Parse(spec, "int")
	if err != nil {
		return "", err
	}
	switch p.Type {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, acc := new(big.Float).SetInt(x).Float64()
		if math.IsInf(f, 0) && acc != big.Exact {
			return "", fmt.Errorf("int too large to convert to float")
		}
		return formatFloat(f, p)
	case 0, 'd', 'n', 'b', 'o', 'x', 'X', 'c':
	default:
		return "", unknownType(p.Type, "int")
	}
	switch {
	case p.Precision >= 0:
		return "", fmt.Errorf("Precision not allowed in integer format specifier")
	case p.NoNegZero:
		return "", fmt.Errorf("Negative zero coercion (z) not allowed in integer format specifier")
	}
	p.defaults('>')
	if p.Type == 'c' {
		switch {
		case p.Sign != 0:
			return "", fmt.Errorf("Sign not allowed with integer format specifier 'c'")
		case p.Alt:
			return "", fmt.Errorf("Alternate form (#) not allowed with integer format specifier 'c'")
		case x.Sign() < 0 || x.Cmp(big.NewInt(0x10ffff)) > 0:
			return "", fmt.Errorf("%%c arg not in range(0x110000)")
		}
		return pad(p, "", string(rune(x.Int64()))), nil
	}
	base, prefix := 10, ""
	switch p.Type {
	case 'b':
		base, prefix = 2, "0b"
	case 'o':
		base, prefix = 8, "0o"
	case 'x':
		base, prefix = 16, "0x"
	case 'X':
		base, prefix = 16, "0X"
	}
	if !p.Alt {
		prefix = ""
	}
	digits := new(big.Int).Abs(x).Text(base)
	if p.Type == 'X' {
		digits = strings.ToUpper(digits)
	}
	return p.number(x.Sign() < 0, prefix, digits, ""), nil
}

// Float formats x with spec as Python's float.__format__ does.
func Float(x float64, spec string) (string, error) {
	p, err := Parse(spec, "float")
	if err != nil {
		return "", err
	}
	switch p.Type {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", unknownType(p.Type, "float")
	}
	return formatFloat(x, p)
}

func formatFloat(x float64, p Spec) (string, error) {
	p.defaults('>')
	neg := math.Signbit(x)
	x = math.Abs(x)
	t := p.Type
	prec := p.Precision
	upper := t == 'E' || t == 'F' || t == 'G'
	var body string
	switch {
	case math.IsInf(x, 0):
		body = "inf"
	case math.IsNaN(x):
		body, neg = "nan", false
	}
	if body != "" {
		if upper {
			body = strings.ToUpper(body)
		}
		if t == '%' {
			body += "%"
		}
		return p.number(neg, "", "", body), nil
	}
	var s string
	switch t {
	case 'e', 'E':
		if prec < 0 {
			prec = 6
		}
		s = strconv.FormatFloat(x, 'e', prec, 64)
		if p.Alt && prec == 0 {
			s = strings.Replace(s, "e", ".e", 1)
		}
	case 'f', 'F', '%':
		if prec < 0 {
			prec = 6
		}
		if t == '%' {
			x *= 100
		}
		s = strconv.FormatFloat(x, 'f', prec, 64)
		if p.Alt && prec == 0 {
			s += "."
		}
	case 'g', 'G', 'n':
		if prec < 0 {
			prec = 6
		}
		s = general(x, max(prec, 1), 0, p.Alt, false)
	case 0:
		if prec < 0 {
			s = repr(x)
		} else {
			s = general(x, max(prec, 1), 1, p.Alt, true)
		}
	}
	if upper {
		s = strings.ToUpper(s)
	}
	if p.NoNegZero && neg && isZero(s) {
		neg = false
	}
	// Split into the integer digits and the rest, for grouping and padding.
	end := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(s)
	}
	rest := s[end:]
	if t == '%' {
		rest += "%"
	}
	return p.number(neg, "", s[:end], rest), nil
}

// isZero reports whether a formatted magnitude has only zero digits.
func isZero(s string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(s), "e")
	return strings.Trim(mant, "0.") == ""
}

// general formats x >= 0 with prec significant digits as 'g' does: in
// scientific notation when its exponent is below -4 or at least
// prec-shift (shift is 1 for the no-type form), else in fixed point;
// trailing zeros go unless alt. dot0 adds ".0" to a fixed-point result
// that has no point.
func general(x float64, prec, shift int, alt, dot0 bool) string {
	e := strconv.FormatFloat(x, 'e', prec-1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	var s string
	if exp < -4 || exp >= prec-shift {
		if !alt {
			mant = trimZeros(mant)
		} else if !strings.Contains(mant, ".") {
			mant += "."
		}
		s = mant + "e" + exps
	} else {
		s = strconv.FormatFloat(x, 'f', prec-1-exp, 64)
		if !alt {
			s = trimZeros(s)
		} else if !strings.Contains(s, ".") {
			s += "."
		}
		if dot0 && !strings.Contains(s, ".") {
			s += ".0"
		}
	}
	return s
}

// trimZeros removes a fraction's trailing zeros, and the point if no
// digit follows it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// repr formats x >= 0 as Python's repr does: the shortest digits that
// read back as x, in scientific notation when the exponent is below -4
// or at least 16, else in fixed point with at least one fractional digit.
func repr(x float64) string {
	e := strconv.FormatFloat(x, 'e', -1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp < -4 || exp >= 16 {
		return mant + "e" + exps
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}
