package pyformat_test

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/pyformat"
)

// The expected strings are CPython's (3.11), written from the format
// specification mini-language's documentation; a "!" prefix is an error
// whose message contains the rest.

func bigInt(s string) *big.Int {
	x, ok := new(big.Int).SetString(s, 0)
	if !ok {
		panic(s)
	}
	return x
}

var intCases = []struct {
	x, spec, want string
}{
	{"0", "", "0"},
	{"-42", "", "-42"},
	{"42", "d", "42"},
	{"42", "5", "   42"},
	{"42", "<5", "42   "},
	{"42", "^5", " 42  "},
	{"42", "*^6", "**42**"},
	{"-42", "=6", "-   42"},
	{"42", "+", "+42"},
	{"42", " ", " 42"},
	{"-42", " ", "-42"},
	{"42", "05", "00042"},
	{"-42", "05", "-0042"},
	{"42", "0<5", "42000"},
	{"5", "b", "101"},
	{"5", "#b", "0b101"},
	{"5", "#010b", "0b00000101"},
	{"5", "08b", "00000101"},
	{"8", "o", "10"},
	{"8", "#o", "0o10"},
	{"255", "x", "ff"},
	{"255", "X", "FF"},
	{"255", "#X", "0XFF"},
	{"-5", "#x", "-0x5"},
	{"255", "#_b", "0b1111_1111"},
	{"65535", "_x", "ffff"},
	{"1048575", "_x", "f_ffff"},
	{"1234567", ",", "1,234,567"},
	{"1234567", "_", "1_234_567"},
	{"-1234567", ",d", "-1,234,567"},
	{"1234", "06,", "01,234"},
	{"1234", "08,", "0,001,234"},
	{"-1234", "010,", "-0,001,234"},
	{"-1234", "*^11,", "**-1,234***"},
	{"-1234", "=+10", "-     1234"},
	{"5", "=<5", "5===="},
	{"1", "é>5", "éééé1"},
	{"1180591620717411303424", ",", "1,180,591,620,717,411,303,424"},
	{"0x123456789abcdef0123456789", "x", "123456789abcdef0123456789"},
	{"123", "c", "{"},
	{"12", "n", "12"},
	{"5", "f", "5.000000"},
	{"5", "%", "500.000000%"},
	{"1", ".2e", "1.00e+00"},
	{"123456789", "g", "1.23457e+08"},
	{"123456789", ",.2f", "123,456,789.00"},
	{"1" + strings.Repeat("0", 400), "f", "!int too large to convert to float"},
	{"5", ".2", "!Precision not allowed in integer format specifier"},
	{"5", ",x", "!Cannot specify ',' with 'x'."},
	{"5", ",_", "!Cannot specify both ',' and '_'."},
	{"5", "_n", "!Cannot specify '_' with 'n'."},
	{"5", "5.2.1", "!Invalid format specifier '5.2.1' for object of type 'int'"},
	{"5", "z", "!Negative zero coercion (z) not allowed in integer format specifier"},
	{"5", "+c", "!Sign not allowed with integer format specifier 'c'"},
	{"5", "#c", "!Alternate form (#) not allowed with integer format specifier 'c'"},
	{"-1", "c", "!%c arg not in range(0x110000)"},
	{"5", "s", "!Unknown format code 's' for object of type 'int'"},
	{"5", ".", "!Format specifier missing precision"},
	{"5", "99999999999", "!is larger than"},
}

func TestInt(t *testing.T) {
	for _, c := range intCases {
		got, err := pyformat.Int(bigInt(c.x), c.spec)
		check(t, fmt.Sprintf("Int(%s, %q)", c.x, c.spec), got, err, c.want)
	}
}

var negZero = math.Copysign(0, -1)

var floatCases = []struct {
	x    float64
	spec string
	want string
}{
	{1.5, "", "1.5"},
	{negZero, "", "-0.0"},
	{3.0, "", "3.0"},
	{1e16, "", "1e+16"},
	{1e15, "", "1000000000000000.0"},
	{1.5e-5, "", "1.5e-05"},
	{0.0001, "", "0.0001"},
	{1e22, "", "1e+22"},
	{1.2345e20, "", "1.2345e+20"},
	{0.1, "", "0.1"},
	{1234.5, ".3", "1.23e+03"},
	{100.0, ".3", "1e+02"},
	{12.0, ".3", "12.0"},
	{1.0, ".3", "1.0"},
	{1.5, ".0", "2e+00"},
	{3.0, "#", "3.0"},
	{3.0, "#.3", "3.00"},
	{1.0, "#g", "1.00000"},
	{1.0, "#.0f", "1."},
	{1.0, ".0f", "1"},
	{2.5, ".0f", "2"},
	{3.5, ".0f", "4"},
	{2.675, ".2f", "2.67"},
	{0.125, ".2f", "0.12"},
	{math.Pi, ".2f", "3.14"},
	{math.Pi, "8.3f", "   3.142"},
	{math.Pi, "<8.3f", "3.142   "},
	{-math.Pi, "08.3f", "-003.142"},
	{math.Pi, "+.1f", "+3.1"},
	{1234567.891, ",.2f", "1,234,567.89"},
	{1234567.891, "_.1f", "1_234_567.9"},
	{1234567.891, "015,.2f", "0,001,234,567.89"},
	{1e100, ",", "1e+100"},
	{1.5, "e", "1.500000e+00"},
	{1.5, "E", "1.500000E+00"},
	{12345.678, ".3e", "1.235e+04"},
	{1.0, "#.0e", "1.e+00"},
	{1e-300, "e", "1.000000e-300"},
	{1.5, "10.3G", "       1.5"},
	{1e-5, "g", "1e-05"},
	{0.0001, "g", "0.0001"},
	{123456.0, "g", "123456"},
	{1234567.0, "g", "1.23457e+06"},
	{123456789.0, ".12g", "123456789"},
	{1e-10, ".3g", "1e-10"},
	{9.9999999, ".3g", "10"},
	{0.0, "g", "0"},
	{negZero, "g", "-0"},
	{1.5e300, "G", "1.5E+300"},
	{1234.5, "n", "1234.5"},
	{0.5, "%", "50.000000%"},
	{0.5, ".1%", "50.0%"},
	{0.123456, ".2%", "12.35%"},
	{negZero, "z.1f", "0.0"},
	{-0.04, "z.1f", "0.0"},
	{-0.06, "z.1f", "-0.1"},
	{math.Inf(1), "", "inf"},
	{math.Inf(-1), "", "-inf"},
	{math.Inf(1), "F", "INF"},
	{math.NaN(), "", "nan"},
	{math.NaN(), "E", "NAN"},
	{math.Inf(1), "010", "0000000inf"},
	{math.NaN(), "+010", "+000000nan"},
	{math.Inf(-1), "=10", "-      inf"},
	{math.Inf(1), "%", "inf%"},
	{1e301, ".0f", "10000000000000000525047602552044202487044685811081591549158541155118024579889081957863713750804478640437044438328838781769425232353604305756447921847867069828483872009265758037378302337947880900593689532349707999450811190389676408800746527427801424945792587888200568428381156694721963868654594005401600"},
	{1.5, "d", "!Unknown format code 'd' for object of type 'float'"},
	{1.0, "x", "!Unknown format code 'x' for object of type 'float'"},
	{1.0, ",_", "!Cannot specify both ',' and '_'."},
	{1.0, "_n", "!Cannot specify '_' with 'n'."},
}

func TestFloat(t *testing.T) {
	for _, c := range floatCases {
		got, err := pyformat.Float(c.x, c.spec)
		check(t, fmt.Sprintf("Float(%v, %q)", c.x, c.spec), got, err, c.want)
	}
}

var stringCases = []struct {
	s, spec, want string
}{
	{"ab", "", "ab"},
	{"ab", "5", "ab   "},
	{"ab", ">5", "   ab"},
	{"ab", "^5", " ab  "},
	{"ab", "-^6", "--ab--"},
	{"ab", "05", "ab000"},
	{"abcdef", ".3", "abc"},
	{"héllo", ".2", "hé"},
	{"héllo", "7s", "héllo  "},
	{"ab", "+", "!Sign not allowed in string format specifier"},
	{"ab", "#", "!Alternate form (#) not allowed in string format specifier"},
	{"ab", "=5", "!'=' alignment not allowed in string format specifier"},
	{"ab", ",", "!Cannot specify ',' with 's'."},
	{"ab", "z", "!Negative zero coercion (z) not allowed in string format specifier"},
	{"ab", "d", "!Unknown format code 'd' for object of type 'str'"},
}

func TestString(t *testing.T) {
	for _, c := range stringCases {
		got, err := pyformat.String(c.s, c.spec)
		check(t, fmt.Sprintf("String(%q, %q)", c.s, c.spec), got, err, c.want)
	}
}

func check(t *testing.T, call, got string, err error, want string) {
	t.Helper()
	if msg, isErr := strings.CutPrefix(want, "!"); isErr {
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s = %q, %v; want error %q", call, got, err, msg)
		}
		return
	}
	if err != nil || got != want {
		t.Errorf("%s = %q, %v; want %q", call, got, err, want)
	}
}

// TestAgainstSprintf cross-checks the specs that Go's fmt also knows
// (width, zero padding, precision, b o x X d e f) over many values.
func TestAgainstSprintf(t *testing.T) {
	ints := []int64{0, 1, -1, 7, -7, 255, 1 << 40, -(1 << 40), math.MaxInt64, math.MinInt64}
	for _, x := range ints {
		for _, v := range []string{"d", "b", "o", "x", "X"} {
			for _, w := range []string{"", "5", "020", "-12", "+"} {
				spec := strings.TrimPrefix(w, "-")
				goVerb := "%" + w + v
				if strings.HasPrefix(w, "-") {
					spec = "<" + spec
				}
				got, err := pyformat.Int(big.NewInt(x), spec+v)
				want := fmt.Sprintf(goVerb, x)
				if err != nil || got != want {
					t.Errorf("Int(%d, %q) = %q, %v; want %q (fmt %s)", x, spec+v, got, err, want, goVerb)
				}
			}
		}
	}
	floats := []float64{0, 1, -1, 0.1, 2.5, -1234.5678, 1e-7, 6.02214076e23, math.MaxFloat64, math.SmallestNonzeroFloat64}
	for _, x := range floats {
		for _, v := range []string{"e", "f", "E"} {
			for _, w := range []string{"", "12.3", "015.2", "+.0", ".10"} {
				got, err := pyformat.Float(x, w+v)
				want := fmt.Sprintf("%"+w+v, x)
				if err != nil || got != want {
					t.Errorf("Float(%v, %q) = %q, %v; want %q", x, w+v, got, err, want)
				}
			}
		}
		// The no-type form with no precision reads back as x.
		got, _ := pyformat.Float(x, "")
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != x {
			t.Errorf("Float(%v, \"\") = %q does not read back", x, got)
		}
	}
}

func FuzzFormat(f *testing.F) {
	for _, c := range intCases {
		f.Add(int64(len(c.x)), 1.5, c.spec)
	}
	for _, c := range floatCases {
		f.Add(int64(7), c.x, c.spec)
	}
	f.Fuzz(func(t *testing.T, i int64, x float64, spec string) {
		// No input panics; a spec that one kind accepts with a width w
		// gives at least w characters.
		for _, g := range []func() (string, error){
			func() (string, error) { return pyformat.Int(big.NewInt(i), spec) },
			func() (string, error) { return pyformat.Float(x, spec) },
			func() (string, error) { return pyformat.String(spec, spec) },
		} {
			s, err := g()
			if err != nil {
				continue
			}
			p, err := pyformat.Parse(spec, "int")
			if err == nil && len([]rune(s)) < p.Width {
				t.Errorf("spec %q gave %q, narrower than its width %d", spec, s, p.Width)
			}
		}
	})
}

func BenchmarkInt(b *testing.B) {
	x := big.NewInt(123456789)
	for b.Loop() {
		if _, err := pyformat.Int(x, "#018_x"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFloat(b *testing.B) {
	for b.Loop() {
		if _, err := pyformat.Float(1234567.891, ",.2f"); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleFloat() {
	s, _ := pyformat.Float(1234567.891, ">+15,.2f")
	fmt.Println(s)
	// Output: +1,234,567.89
}

func ExampleInt() {
	s, _ := pyformat.Int(big.NewInt(0xbeef), "#019_b")
	fmt.Println(s)
	// Output: 0b1011_1110_1110_1111
}
