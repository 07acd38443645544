package builtins

// Docstrings of what bitsh predeclares but does not define: Starlark's own
// builtins and the math, json and time modules, so that help(print),
// help(range) and help(math) answer as help(popcount) does.

import (
	"go.starlark.net/lib/math"
	"go.starlark.net/lib/time"
	"go.starlark.net/starlark"
)

// universeDocs documents go.starlark.net's universal builtins that bitsh
// does not replace (those it replaces are in the registry).
var universeDocs = map[string]string{
	"abs": `abs(x)
Returns the absolute value of the int or float x.`,
	"all": `all(x)
Returns True when every element of the iterable x is true (or x is empty).`,
	"any": `any(x)
Returns True when some element of the iterable x is true.`,
	"bool": `bool(x=False)
Returns the truth value of x: False for None, False, 0, 0.0, empty strings
and empty collections, True otherwise.`,
	"bytes": `bytes(x)
Returns a bytes value from a string (its UTF-8 encoding), bytes, or an
iterable of ints 0..255.`,
	"chr": `chr(i)
Returns the one-character string of the Unicode code point i.`,
	"dict": `dict(pairs=[], **kwargs)
Returns a new dictionary from an iterable of (key, value) pairs or a dict,
then the keyword arguments. Keys keep their insertion order.`,
	"fail": `fail(*args, sep=" ")
Stops the run with an error whose message is the args joined by sep.`,
	"float": `float(x)
Returns x as a float: from an int, a float, a bool, or a string such as
"1.5", "1e9", "inf" or "nan".`,
	"getattr": `getattr(x, name, default=None)
Returns the attribute name of x, or default (when given) if it has none.`,
	"hasattr": `hasattr(x, name)
Returns whether x has an attribute or method called name.`,
	"hash": `hash(x)
Returns the hash of a string or bytes as an int (stable across runs).`,
	"int": `int(x, base=10)
Returns x as an int: from a bool, a float (truncated) or a string in the
given base (0 reads a 0x, 0o or 0b prefix). Ints are unbounded.`,
	"max": `max(x, *more, key=None)
Returns the greatest element of the iterable x, or of all the arguments
when there are several; key maps each to what is compared.`,
	"min": `min(x, *more, key=None)
Returns the least element of the iterable x, or of all the arguments when
there are several; key maps each to what is compared.`,
	"ord": `ord(s)
Returns the code point of the one-character string s (or the value of a
one-byte bytes).`,
	"range": `range(stop) or range(start, stop, step=1)
Returns the sequence of ints from start (default 0) up to, not including,
stop, step apart. Lazy: range(1000000000) costs nothing until iterated.`,
	"str": `str(x)
Returns x as a string: a string is itself, other values their text (a
picture its drawing, see repr).`,
	"type": `type(x)
Returns the name of x's type as a string: "int", "list", "board", ...`,
	"None":  "None\nThe value of nothing: what a function without return returns.",
	"True":  "True\nThe true bool.",
	"False": "False\nThe false bool.",
	"struct": `struct(**kwargs)
Returns an immutable struct whose attributes are the keyword arguments:
struct(x=1, y=2).x == 1.`,
}

// A moduleDoc documents a predeclared module that bitsh does not register.
type moduleDoc struct {
	value starlark.Value
	doc   string
}

// moduleDocs documents go.starlark.net's modules by name. Each member has
// a line "  name(args)  what it does", which help(module.member) prints.
var moduleDocs = map[string]moduleDoc{
	"math": {math.Module, `math
Go's floating-point math for Starlark (go.starlark.net/lib/math). Arguments
may be ints or floats; results are floats, except ceil and floor, which
return ints.
  math.ceil(x)         the least int >= x
  math.floor(x)        the greatest int <= x
  math.round(x)        the nearest integer as a float, halves away from zero
  math.fabs(x)         |x| as a float
  math.copysign(x, y)  |x| with the sign of y
  math.mod(x, y)       the remainder of x / y with the sign of x (Go's math.Mod)
  math.remainder(x, y) the IEEE 754 remainder of x / y
  math.pow(x, y)       x to the power y
  math.exp(x)          e**x
  math.sqrt(x)         the square root of x
  math.log(x, base=e)  the logarithm of x
  math.gamma(x)        the Gamma function
  math.sin(x)          the sine of x (radians)
  math.cos(x)          the cosine of x
  math.tan(x)          the tangent of x
  math.asin(x)         the arc sine of x, in radians
  math.acos(x)         the arc cosine of x
  math.atan(x)         the arc tangent of x
  math.atan2(y, x)     the angle of the point (x, y)
  math.sinh(x)         the hyperbolic sine of x
  math.cosh(x)         the hyperbolic cosine of x
  math.tanh(x)         the hyperbolic tangent of x
  math.asinh(x)        the inverse hyperbolic sine of x
  math.acosh(x)        the inverse hyperbolic cosine of x
  math.atanh(x)        the inverse hyperbolic tangent of x
  math.hypot(x, y)     sqrt(x*x + y*y)
  math.degrees(x)      radians to degrees
  math.radians(x)      degrees to radians
  math.e               2.718281828459045
  math.pi              3.141592653589793`},
	"json": {JSON, `json
JSON encoding (go.starlark.net/lib/json).
  json.encode(x)                 the JSON text of x (None, bools, ints, floats,
                                 strings, lists, tuples, dicts with string keys, structs)
  json.decode(s, default=unset)  the Starlark value of the JSON text s; default
                                 is returned instead of failing on bad input
                                 (nesting deeper than 1000 is an error)
  json.encode_indent(x, prefix="", indent="\t")  as encode, indented
  json.indent(s, prefix="", indent="\t")         re-indents the JSON text s`},
	"time": {time.Module, `time
Times and durations (go.starlark.net/lib/time). Subtracting two times gives
a duration; a duration has .seconds, .milliseconds and so on.
  time.now()                      the current time
  time.time(year=, month=, day=, hour=, minute=, second=, nanosecond=, location="UTC")
  time.parse_time(s, format=, location=)  a time from text (RFC 3339 by default)
  time.parse_duration(s)          a duration from text such as "1h30m"
  time.from_timestamp(sec, nsec=0)  the time sec seconds after 1970 UTC
  time.is_valid_timezone(name)    whether name is a known time zone
  time.nanosecond                 the duration 1ns
  time.microsecond                the duration 1µs
  time.millisecond                the duration 1ms
  time.second                     the duration 1s
  time.minute                     the duration 1m
  time.hour                       the duration 1h
To time a computation: t0 = time.now(); f(); print(time.now() - t0). In the
REPL, %time f() does the same.`},
}
