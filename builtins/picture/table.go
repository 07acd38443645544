package picture

import "strings"

// Table lays out rows of cells in aligned columns separated by two
// spaces. A column whose cells (header aside) all look like numbers is
// right-aligned, any other left-aligned. With a header (nil for none), a
// row of dashes as wide as each column follows it. Rows may differ in
// length; missing cells are empty. Trailing spaces are trimmed and there
// is no newline after the last row.
func Table(header []string, rows [][]string) string {
	all := rows
	if header != nil {
		all = append([][]string{header}, rows...)
	}
	ncol := 0
	for _, r := range all {
		ncol = max(ncol, len(r))
	}
	width := make([]int, ncol)
	numeric := make([]bool, ncol)
	for i := range numeric {
		numeric[i] = true
	}
	for _, r := range all {
		for i, c := range r {
			width[i] = max(width[i], cellWidth(c))
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if c != "" && !isNumber(c) {
				numeric[i] = false
			}
		}
	}
	var b strings.Builder
	line := func(r []string) {
		var l strings.Builder
		for i := 0; i < ncol; i++ {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			if i > 0 {
				l.WriteString("  ")
			}
			pad := strings.Repeat(" ", width[i]-cellWidth(c))
			if numeric[i] {
				l.WriteString(pad + c)
			} else {
				l.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " "))
	}
	if header != nil {
		line(header)
		b.WriteByte('\n')
		dashes := make([]string, ncol)
		for i := range dashes {
			dashes[i] = strings.Repeat("-", width[i])
		}
		line(dashes)
		if len(rows) > 0 {
			b.WriteByte('\n')
		}
	}
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		line(r)
	}
	return b.String()
}

// cellWidth counts runes, so that accented letters and symbols align.
func cellWidth(s string) int { return len([]rune(s)) }

// isNumber reports whether s looks like a Starlark int or float literal
// as str() writes them (sign, digits, point, exponent, 0x... words).
func isNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0o") || strings.HasPrefix(s, "0b") {
		s = s[2:]
		if s == "" {
			return false
		}
		for _, r := range s {
			if !strings.ContainsRune("0123456789abcdefABCDEF_", r) {
				return false
			}
		}
		return true
	}
	if s == "inf" || s == "nan" || s == "+inf" {
		return true
	}
	digits := false
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r == '.':
		case (r == 'e' || r == 'E') && digits:
		case (r == '+' || r == '-') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return digits
}
