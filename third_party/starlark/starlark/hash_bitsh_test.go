// bitsh fork: sets and dicts under the interpreter: the compact hash
// table, the methods called without their bound method, `in`, len, max and
// min without a call, tuples of three and four (hashtable.go,
// hashtable_fast.go, linked.go, builtins_fast.go, tuples.go;
// README.bitsh.md, changes 28-31).

package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
)

// hashProgs run set.add, set.remove, set.discard and dict.get called from
// the loop, dict stores, lookups and deletes, on ints of every
// representation and mixed keys, the iteration order after deletes and
// reinsertions, tables past the size of the small ones, a backtracking
// search, a random mix of operations driven by a xorshift generator, and
// each fallback with its error: a missing element, an unhashable key, a
// frozen set, a set or dict being iterated, other receivers, method values;
// len, max and min on their fast paths and off them, `in` and `not in` of
// sets and dicts, with their errors; tuples of every length to seven.
var hashProgs = []string{
	"E = [0, 1, -1, 7, 2147483647, 2147483648, -2147483648, -2147483649, 4294967296, (1 << 56) - 1, 1 << 56, -(1 << 56), -(1 << 56) - 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 64), 1 << 100, -(1 << 100), 3 * (1 << 70)]\ndef f(keys):\n    s = set()\n    for k in keys:\n        s.add(k)\n        s.add(k)\n    for k in keys[::3]:\n        s.remove(k)\n    for k in keys[1::4]:\n        s.discard(k)\n        s.discard(k)\n    for k in keys[::5]:\n        s.add(k)\n    return s, len(s), [k in s for k in keys]\nprint(f(E))\nprint(f(E + [float(x) for x in range(-3, 12)] + [\"a\", (1, 2), (1 << 64, -1), None, True]))",
	"E = [0, 1, -1, 7, 2147483647, 2147483648, -2147483648, -2147483649, 4294967296, (1 << 56) - 1, 1 << 56, -(1 << 56), -(1 << 56) - 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 64), 1 << 100, -(1 << 100), 3 * (1 << 70)]\ndef f(keys, n):\n    d = {}\n    for i in range(n):\n        k = keys[i % len(keys)] + i // len(keys)\n        d[k] = i\n    t = 0\n    for i in range(n):\n        k = keys[i % len(keys)] + i // len(keys)\n        t += d.get(k, -1) + d.get(k + 1 << 80, 5)\n        if d.get(k) == None:\n            t += 1000\n    for i in range(0, n, 3):\n        k = keys[i % len(keys)] + i // len(keys)\n        if k in d:\n            d.pop(k)\n    for i in range(0, n, 7):\n        d[keys[i % len(keys)]] = -i\n    return t, len(d), list(d.items())[:20], list(d.keys())[-20:], d.get(2, 3), d.get(1 << 64), d.get(-1)\nprint(f(E, 40))\nprint(f(E, 600))",
	"def f():\n    d = {1: \"int\"}\n    d[1.0] = \"float\"\n    d[True] = \"bool\"\n    d[2147483648.0] = \"big float\"\n    d[2147483648] = \"big int\"\n    d[1 << 64] = \"word\"\n    d[float(1 << 64)] = \"word float\"\n    s = set([1, 1.0, 2, \"2\", (2,), (1 << 70, 1), (1 << 70, 1)])\n    s.add(2.0)\n    s.discard(1.0)\n    s.remove(\"2\")\n    return d, s, d.get(1.0), 2 in s, 1 in s, (1 << 70, 1) in s, s.add(3)\nprint(f())",
	"def f(n):\n    a = set()\n    b = set()\n    for i in range(n):\n        a.add(i * 3)\n        b.add(i * 2)\n    for i in range(0, n, 4):\n        a.discard(i * 3)\n    return a | b, a & b, a - b, a ^ b, a == set(list(a)), len(a), a.union([1 << 65]), a.intersection(range(50)), a.issubset(b), {k: k in b for k in sorted(a)[:10]}\nprint(f(3))\nprint(f(9))\nprint(f(40))",
	"def place(row, n, cols, d1, d2):\n    if row == n:\n        return 1\n    count = 0\n    for c in range(n):\n        if c in cols or row + c in d1 or row + n - c in d2:\n            continue\n        cols.add(c)\n        d1.add(row + c)\n        d2.add(row + n - c)\n        count += place(row + 1, n, cols, d1, d2)\n        cols.remove(c)\n        d1.remove(row + c)\n        d2.remove(row + n - c)\n    return count\ns = set([100, 200])\nprint(place(0, 6, s, set(), set()), s)",
	"E = [0, 1, -1, 7, 2147483647, 2147483648, -2147483648, -2147483649, 4294967296, (1 << 56) - 1, 1 << 56, -(1 << 56), -(1 << 56) - 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64, -(1 << 64), 1 << 100, -(1 << 100), 3 * (1 << 70)]\ndef f(seed, steps):\n    x = seed\n    s = set()\n    d = {}\n    log = 0\n    for i in range(steps):\n        x ^= (x << 13) & 0xFFFFFFFF\n        x ^= x >> 17\n        x ^= (x << 5) & 0xFFFFFFFF\n        k = E[x % len(E)] + (x >> 8) % 5\n        op = (x >> 16) % 7\n        if op == 0:\n            s.add(k)\n        elif op == 1:\n            s.discard(k)\n        elif op == 2:\n            if k in s:\n                s.remove(k)\n        elif op == 3:\n            d[k] = i\n        elif op == 4:\n            log = log * 31 + d.get(k, 7) % 1000003\n        elif op == 5:\n            if k in d:\n                d.pop(k)\n        else:\n            log = log * 17 + len(s) + len(d)\n        log = log % 1000000007\n    return log, s, d\nfor seed in [1, 2, 12345]:\n    print(f(seed, 2000))",
	"def f():\n    s = set([1, 2])\n    s.remove(3)\nf()",
	"def f():\n    s = set([1])\n    s.add([1])\nf()",
	"def f():\n    s = set()\n    s.discard([1])\nf()",
	"def f():\n    s = set([5])\n    s.discard({})\nf()",
	"def f():\n    s = set([5])\n    s.remove([])\nf()",
	"def f(s):\n    s.add(1)\ns = set([1, 2])\nfreeze(s)\nf(s)",
	"def f(s):\n    s.discard(7)\ns = set([1, 2])\nfreeze(s)\nf(s)",
	"def f(s):\n    s.remove(1)\ns = set([1, 2])\nfreeze(s)\nf(s)",
	"def f(s):\n    for x in s:\n        s.add(x)\nf(set([1, 2]))",
	"def f(s):\n    for x in s:\n        s.discard(9)\nf(set([1, 2]))",
	"def f(d):\n    for x in d:\n        d[x + 1] = 1\nf({1: 2})",
	"def f(d):\n    return d.get([1])\nf({1: 2})",
	"def f(d):\n    return d.get(1, 2, 3)\nf({1: 2})",
	"def f():\n    l = []\n    l.add(1)\nf()",
	"def f():\n    s = set()\n    s.append(1)\nf()",
	"def f():\n    return \"abc\".get(1)\nf()",
	"def f():\n    d = {1: 2}\n    freeze(d)\n    return d.get(1), d.get(3, 4), d.get(5)\nprint(f())\ndef g(s):\n    m = s.add\n    m(3)\n    n = s.add\n    return s, m == n, s.add(4), s.discard(4), s.remove(3), s\nprint(g(set([1])))\ndef h(o):\n    return o.get(1)\nprint(h({1: \"x\"}), h({}))\nh(None)",
	"def f():\n    s = set()\n    for i in range(3):\n        s.add(i) if i % 2 else s.add(-i)\n        s.add(s.discard(5) or i + 10)\n    return s\nprint(f())\ndef g(n):\n    s = set()\n    d = {}\n    for i in range(n):\n        s.add(d.get(i % 7, i))\n        d[i % 5] = s.remove(i) if i in s else len(s)\n    return s, d\nprint(g(50))",
	"s = set()\nd = {}\nfor i in range(20):\n    s.add(i * i % 11)\n    d[i % 6] = d.get(i % 6, 0) + i\ns.remove(4)\nprint(s, d, d.get(9), d.get(9, \"no\"))\ns.remove(4)",
	"def f(xs, t, s, d, st):\n    n = 0\n    for i in range(3):\n        n += len(xs) + len(t) + len(s) + len(d) + len(st) + len(range(i)) + len(\"\") + len(b\"ab\")\n        xs.append(i)\n        st.add(i * 100)\n        d[i] = i\n    return n, max(1, 2), max(2, 1), min(1, 2), min(2, 1), max(-5, -5), min(3, 3), max(1, 2.5), min(1 << 40, 2), max(1 << 64, 1 << 63), max(\"a\", \"b\"), min([3, 1, 2]), max(1, 2, 3), max(1, 2, key = lambda x: -x), min(2147483647, -2147483648), max(True, 0)\nprint(f([1, 2], (3,), \"h\u00e9llo\", {1: 2}, set([1])))\nl = len\nm = max\nprint(l([1, 2]), m(4, 9), len({}), max(7, 7.0), min(7.0, 7), max(7, 7.0) == 7, type(max(7, 7.0)), type(min(7.0, 7)))",
	"def f(x):\n    return len(x)\nprint(f([1]), f(\"ab\"))\nf(None)",
	"def f():\n    return len(1, 2)\nf()",
	"def f():\n    return max(1, \"a\")\nf()",
	"def f():\n    return min(None, None)\nf()",
	"def f(s, d):\n    r = []\n    for k in [1, 1 << 40, -1, 1 << 70, 1.0, \"a\", (1, 2), None]:\n        r.append((k in s, k not in s, k in d, k not in d))\n    r.append([1] in d)\n    r.append([1] not in d)\n    return r\nprint(f(set([1, 1 << 70, \"a\", (1, 2)]), {1 << 40: 1, -1: 2, None: 3}))",
	"def f(s):\n    return [1] in s\nf(set([1]))",
	"def f(s):\n    return {} not in s\nf(set())",
	"def f(a, b, c, d, e):\n    ts = [(), (a,), (a, b), (a, b, c), (a, b, c, d), (a, b, c, d, e), (a, b, c, d, e, a)]\n    d2 = {}\n    for t in ts:\n        d2[t] = len(t)\n    x, y, z = (a, b, c)\n    w, v, u, q = (d, c, b, a)\n    out = []\n    for i in range(4):\n        out.append((i, i + 1, i + 2))\n        out.append((i, a, b, i * 2))\n    return ts, d2, x + y + z, (w, v, u, q), out, (a, b, c) + (d,), (a, b, c, d)[1:3], (a, b, c) < (a, b, d), (a, b, c, d) == (a, b, c, d), type((a, b, c)), [t[-1] for t in ts if t], {(1, 2, 3): 1}.get((1, 2, 3)), set([(a, b, c), (a, b, c)])\nprint(f(1, 2, 3, 1 << 64, \"s\"))\ndef g():\n    return (1, [2], 3)\nt = g()\nt[1].append(9)\nprint(t, (1, 2, 3) in {(1, 2, 3): 0})\n{(1, [2], 3): 1}",
	"def f(d, keys):\n    t = 0\n    for k in keys:\n        d[k] = d[k] + 1 if k in d else 1\n        t += d[k]\n    return t, d, d[1 << 64], d[-(1 << 70)], d[2147483647]\nprint(f({1 << 64: 5}, [1, 2, 1, 1 << 64, -(1 << 70), 2147483647, -1, 1.0, \"a\", (1, 2)] * 3))",
	"def f(d):\n    return d[3]\nf({1: 2})",
	"def f(d):\n    return d[[1]]\nf({1: 2})",
	"def f(d):\n    d[[1]] = 2\nf({1: 2})",
	"def f(d):\n    d[5] = 2\nd = {1: 2}\nfreeze(d)\nf(d)",
	"def f(d):\n    for k in d:\n        d[k] = 0\n    for k in d:\n        d[k + 1] = 0\nf({1: 2})",
}

// hashUpstream is the output of hashProgs under upstream go.starlark.net
// (v0.0.0-20260908191801-89a6a09411d5), run as runAll runs them.
var hashUpstream = `print: (set([-1, 2147483647, -2147483649, 4294967296, 72057594037927936, -72057594037927936, 9223372036854775808, 18446744073709551616, -1267650600228229401496703205376, 3541774862152233910272, 0, 2147483648, 18446744073709551615]), 13, [True, False, True, False, True, True, False, True, True, False, True, True, False, False, True, True, True, False, False, True, True])
Traceback (most recent call last):
  e.star:16:8: in <toplevel>
  e.star:8:17: in f
Error in remove: remove: missing key
steps 1812
print: (1165, 19, [(-1, 2), (2147483647, 4), (2147483648, 25), (-2147483649, -28), (4294967296, 8), (9223372036854775807, 13), (9223372036854775808, -35), (-18446744073709551616, 17), (-1267650600228229401496703205376, 19), (3541774862152233910272, 20), (2, 22), (2147483649, 26), (4294967297, 29), (72057594037927937, 31), (-72057594037927935, 32), (9223372036854775809, 35), (18446744073709551617, 37), (-18446744073709551615, 38), (0, -21)], [-1, 2147483647, 2147483648, -2147483649, 4294967296, 9223372036854775807, 9223372036854775808, -18446744073709551616, -1267650600228229401496703205376, 3541774862152233910272, 2, 2147483649, 4294967297, 72057594037927937, -72057594037927935, 9223372036854775809, 18446744073709551617, -18446744073709551615, 0], 22, None, 2)
print: (191728, 179, [(-1, 2), (2147483647, 4), (2147483648, 25), (-2147483649, -595), (4294967296, 8), (9223372036854775807, 13), (9223372036854775808, -581), (-18446744073709551616, 17), (-1267650600228229401496703205376, 19), (3541774862152233910272, 20), (2147483649, 46), (4294967297, 29), (9223372036854775809, 55), (-18446744073709551615, 38), (-1267650600228229401496703205375, 40), (3541774862152233910273, 41), (2147483650, 67), (4294967298, 50), (9223372036854775810, 76), (-18446744073709551614, 59)], [3541774862152233910297, 2147483674, 4294967322, 9223372036854775834, -18446744073709551590, -1267650600228229401496703205350, 3541774862152233910298, 2147483675, 4294967323, -72057594037927909, 9223372036854775835, 18446744073709551643, -18446744073709551589, -1267650600228229401496703205349, 3541774862152233910299, 2147483676, 4294967324, 72057594037927964, -72057594037927908, 0], 3, None, 2)
<nil>
steps 54531
print: ({1: "float", True: "bool", 2.147483648e+09: "big int", 18446744073709551616: "word float"}, set([2, (2,), (1180591620717411303424, 1), 3]), "float", True, False, True, None)
<nil>
steps 118
print: (set([3, 6, 0, 2, 4]), set([]), set([3, 6]), set([3, 6, 0, 2, 4]), True, 2, set([3, 6, 36893488147419103232]), set([3, 6]), False, {3: False, 6: False})
print: (set([3, 6, 9, 15, 18, 21, 0, 2, 4, 8, 10, 12, 14, 16]), set([6]), set([3, 9, 15, 18, 21]), set([3, 9, 15, 18, 21, 0, 2, 4, 8, 10, 12, 14, 16]), True, 6, set([3, 6, 9, 15, 18, 21, 36893488147419103232]), set([3, 6, 9, 15, 18, 21]), False, {3: False, 6: True, 9: False, 15: False, 18: False, 21: False})
print: (set([3, 6, 9, 15, 18, 21, 27, 30, 33, 39, 42, 45, 51, 54, 57, 63, 66, 69, 75, 78, 81, 87, 90, 93, 99, 102, 105, 111, 114, 117, 0, 2, 4, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 32, 34, 36, 38, 40, 44, 46, 48, 50, 52, 56, 58, 60, 62, 64, 68, 70, 72, 74, 76]), set([6, 18, 30, 42, 54, 66, 78]), set([3, 9, 15, 21, 27, 33, 39, 45, 51, 57, 63, 69, 75, 81, 87, 90, 93, 99, 102, 105, 111, 114, 117]), set([3, 9, 15, 21, 27, 33, 39, 45, 51, 57, 63, 69, 75, 81, 87, 90, 93, 99, 102, 105, 111, 114, 117, 0, 2, 4, 8, 10, 12, 14, 16, 20, 22, 24, 26, 28, 32, 34, 36, 38, 40, 44, 46, 48, 50, 52, 56, 58, 60, 62, 64, 68, 70, 72, 74, 76]), True, 30, set([3, 6, 9, 15, 18, 21, 27, 30, 33, 39, 42, 45, 51, 54, 57, 63, 66, 69, 75, 78, 81, 87, 90, 93, 99, 102, 105, 111, 114, 117, 36893488147419103232]), set([3, 6, 9, 15, 18, 21, 27, 30, 33, 39, 42, 45]), False, {3: False, 6: True, 9: False, 15: False, 18: True, 21: False, 27: False, 30: True, 33: False, 39: False})
<nil>
steps 1659
print: 4 set([100, 200])
<nil>
steps 25977
print: (955408371, set([2147483652, 3541774862152233910272, 4294967296, 18446744073709551620, 1267650600228229401496703205379, -1267650600228229401496703205376, 2147483651, -1267650600228229401496703205374, 5, -72057594037927937, -2147483647, 1, 4294967299, 7, 2147483648, -72057594037927936, 9, 72057594037927939, 18446744073709551618, 3541774862152233910274, 72057594037927935, 72057594037927937, 1267650600228229401496703205376, 10]), {18446744073709551620: 1945, 9: 1961, -1267650600228229401496703205373: 1649, 1267650600228229401496703205378: 1918, 3541774862152233910276: 694, -2147483644: 1096, 9223372036854775812: 1867, 5: 616, 4: 1832, -18446744073709551612: 1310, 1267650600228229401496703205377: 1054, 3541774862152233910275: 1139, 3541774862152233910274: 1981, -18446744073709551614: 1970, -72057594037927935: 1334, 1267650600228229401496703205379: 1335, -18446744073709551615: 1842, 1267650600228229401496703205376: 1601, 2147483647: 1630, 18446744073709551617: 1725, 72057594037927936: 1951, 9223372036854775809: 1954, 72057594037927937: 1957, 2: 1959, 3: 1963, 72057594037927935: 1973})
print: (953139713, set([3541774862152233910276, 8, -2147483647, 1267650600228229401496703205377, 18446744073709551617, -18446744073709551614, -72057594037927937, 1267650600228229401496703205378, 72057594037927936, 4294967298, -72057594037927933, 2, 2147483652, 2147483647, 2147483651, 72057594037927935, 11, 4294967296, 4294967300, 1267650600228229401496703205379, 9223372036854775809, 3541774862152233910272, -1267650600228229401496703205376, 9, 72057594037927937, 7, -72057594037927932]), {3541774862152233910276: 32, 72057594037927940: 1782, -1267650600228229401496703205372: 561, -18446744073709551612: 716, -72057594037927934: 1377, -72057594037927937: 1578, 11: 1774, 2147483649: 1807, 3541774862152233910273: 1437, 9223372036854775807: 1642, 18446744073709551617: 1961, 9223372036854775809: 1444, 3541774862152233910275: 1453, -18446744073709551615: 1487, -2147483646: 1773, 1267650600228229401496703205380: 1538, 5: 1586, -72057594037927935: 1643, 1267650600228229401496703205377: 1638, -2147483645: 1646, 4: 1731, -18446744073709551613: 1998, 72057594037927937: 1714, -2147483649: 1927, 2147483652: 1813, 18446744073709551615: 1804, 3541774862152233910274: 1823, 4294967296: 1842, 72057594037927935: 1875, 18446744073709551620: 1884, 1267650600228229401496703205378: 1908, 2147483650: 1916, 2147483647: 1926, -18446744073709551616: 1932, -2147483648: 1948, -72057594037927933: 1971, 9: 1974, -2147483647: 1976, 72057594037927939: 1986})
print: (71301063, set([-1267650600228229401496703205375, 3541774862152233910275, 4294967297, 2147483650, 18446744073709551615, 7, -72057594037927937, -2147483644, 1267650600228229401496703205376, -18446744073709551612, 9, -1267650600228229401496703205372, 72057594037927937, 9223372036854775811, -2147483649, -72057594037927934, -72057594037927933, 4294967298, 18446744073709551619, -1, 9223372036854775809, -72057594037927936, -18446744073709551614, 0, 9223372036854775812, 9223372036854775808, 4, 72057594037927939, 5]), {-72057594037927937: 1096, 10: 1843, -1267650600228229401496703205372: 514, 7: 1400, 18446744073709551618: 1490, 72057594037927935: 1122, 4: 1965, -2147483648: 1399, 9223372036854775812: 1029, 4294967298: 1292, 4294967299: 1563, -72057594037927936: 1852, 1267650600228229401496703205377: 1534, 3: 1672, -18446744073709551616: 1336, 4294967300: 1347, 2147483647: 1389, -18446744073709551613: 1441, 1267650600228229401496703205378: 1458, -72057594037927933: 1660, 4294967297: 1516, 3541774862152233910272: 1725, 18446744073709551617: 1907, 5: 1596, 1267650600228229401496703205380: 1614, 3541774862152233910276: 1617, 9223372036854775810: 1896, 9223372036854775811: 1706, 0: 1731, 72057594037927938: 1988, -1267650600228229401496703205376: 1772, 2147483651: 1780, 11: 1864, -18446744073709551614: 1880, -72057594037927935: 1941, 8: 1895, 9: 1899, -2147483644: 1917, 9223372036854775807: 1957, 4294967296: 1996})
<nil>
steps 486410
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error in remove: remove: missing key
steps 15
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:10: in f
Error in add: add: unhashable type: list
steps 15
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error in discard: discard: unhashable type: list
steps 13
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error in discard: discard: unhashable type: dict
steps 14
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error in remove: remove: unhashable type: list
steps 14
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:10: in f
Error in add: add: cannot insert into frozen hash table
steps 20
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:14: in f
Error in discard: discard: cannot delete from frozen hash table
steps 20
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:13: in f
Error in remove: remove: cannot delete from frozen hash table
steps 20
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error in add: add: cannot insert into hash table during iteration
steps 21
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:18: in f
Error in discard: discard: cannot delete from hash table during iteration
steps 21
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:10: in f
Error: cannot insert into hash table during iteration
steps 25
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:17: in f
Error in get: get: unhashable type: list
steps 15
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:17: in f
Error in get: get: got 3 arguments, want at most 2
steps 16
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: list has no .add field or method
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: set has no .append field or method
steps 10
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:17: in f
Error: string has no .get field or method
steps 7
print: (2, 4, None)
print: (set([1]), False, None, None, None, set([1]))
print: x None
Traceback (most recent call last):
  e.star:15:2: in <toplevel>
  e.star:13:13: in h
Error: NoneType has no .get field or method
steps 105
print: set([0, 10, 1, 11, -2, 12])
print: (set([None, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), {0: 12, 1: 13, 2: None, 3: None, 4: 13})
<nil>
steps 1831
print: set([0, 1, 9, 5, 3]) {0: 36, 1: 40, 2: 24, 3: 27, 4: 30, 5: 33} None no
Traceback (most recent call last):
  e.star:8:9: in <toplevel>
Error in remove: remove: missing key
steps 654
Traceback (most recent call last):
  e.star:9:8: in <toplevel>
  e.star:8:245: in f
Error in max: max: int > bool not implemented
steps 288
print: 1 2
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:15: in f
Error in len: len: value of type NoneType has no len
steps 27
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:15: in f
Error in len: len: got 2 arguments, want 1
steps 9
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:15: in f
Error in max: max: string > int not implemented
steps 9
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:15: in f
Error in min: min: NoneType < NoneType not implemented
steps 9
print: [(True, False, False, True), (False, True, True, False), (False, True, True, False), (True, False, False, True), (True, False, False, True), (True, False, False, True), (True, False, False, True), (False, True, True, False), False, True]
<nil>
steps 277
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:16: in f
Error: unhashable type: list
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:19: in f
Error: unhashable type: dict
steps 10
print: ([(), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 18446744073709551616), (1, 2, 3, 18446744073709551616, "s"), (1, 2, 3, 18446744073709551616, "s", 1)], {(): 0, (1,): 1, (1, 2): 2, (1, 2, 3): 3, (1, 2, 3, 18446744073709551616): 4, (1, 2, 3, 18446744073709551616, "s"): 5, (1, 2, 3, 18446744073709551616, "s", 1): 6}, 6, (18446744073709551616, 3, 2, 1), [(0, 1, 2), (0, 1, 2, 0), (1, 2, 3), (1, 1, 2, 2), (2, 3, 4), (2, 1, 2, 4), (3, 4, 5), (3, 1, 2, 6)], (1, 2, 3, 18446744073709551616), (2, 3), True, True, "tuple", [1, 2, 3, 18446744073709551616, "s", 1], 1, set([(1, 2, 3)]))
print: (1, [2, 9], 3) True
Traceback (most recent call last):
  e.star:19:13: in <toplevel>
Error: unhashable type: list
steps 504
print: (102, {18446744073709551616: 8, 1: 9, 2: 3, -1180591620717411303424: 3, 2147483647: 3, -1: 3, "a": 3, (1, 2): 3}, 8, 3, 3)
<nil>
steps 858
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:13: in f
Error: key 3 not in dict
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:13: in f
Error: unhashable type: list
steps 14
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:6: in f
Error: unhashable type: list
steps 17
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:6: in f
Error: cannot insert into frozen hash table
steps 22
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:3:10: in f
Error: cannot insert into hash table during iteration
steps 23
`

// TestHashAsUpstream checks that the programs give upstream's results,
// errors and positions, and step counts.
func TestHashAsUpstream(t *testing.T) {
	got := runAll(hashProgs, nil, func() *starlark.Thread { return new(starlark.Thread) })
	if got != hashUpstream {
		t.Errorf("got:\n%s\nupstream:\n%s", got, hashUpstream)
	}
}

// TestLinkedMethodAllocs checks that s.add(x), s.discard(x), s.remove(x)
// and d.get(x) called from the loop make no bound method and no copy of
// their arguments: a few allocations in all, not two per call.
func TestLinkedMethodAllocs(t *testing.T) {
	const src = "def f(n, s, d):\n    t = 0\n    for i in range(n):\n        s.add(i)\n        s.discard(i + 1000)\n        t += d.get(i & 3, 0) + d.get(i & 3)\n        s.remove(i)\n    return t\n"
	globals, err := starlark.ExecFileOptions(loopsOptions, new(starlark.Thread), "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := starlark.NewDict(4)
	for i := range 4 {
		d.SetKey(starlark.MakeInt(i), starlark.MakeInt(i))
	}
	args := starlark.Tuple{starlark.MakeInt(100), starlark.NewSet(0), d}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	if err != nil || v.String() != "300" {
		t.Fatalf("f(100) = %v, %v; want 300", v, err)
	}
	if allocs > 10 {
		t.Errorf("f(100) made %.0f allocations, want at most 10", allocs)
	}
}

// TestLenKey runs the programs with len predeclared as an application's
// wrapper (which calls Universe's): named under the thread-local key, the
// loop computes it itself, and the results, errors, backtraces and steps
// are those of the same programs without the key.
func TestLenKey(t *testing.T) {
	var calls int
	wrap := func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		calls++
		return starlark.Call(thread, starlark.Universe["len"], args, kwargs)
	}
	wrapper := starlark.NewBuiltin("len", wrap)
	pre := starlark.StringDict{"len": wrapper}
	want := runAll(hashProgs, pre, func() *starlark.Thread { return new(starlark.Thread) })
	without := calls
	got := runAll(hashProgs, pre, func() *starlark.Thread {
		thread := new(starlark.Thread)
		thread.SetLocal("go.starlark.net/len", wrapper)
		return thread
	})
	if got != want {
		t.Errorf("with the key:\n%s\nwithout:\n%s", got, want)
	}
	if with := calls - without; with >= without || with == 0 {
		t.Errorf("the wrapper was called %d times with the key, %d without: want fewer, not none", with, without)
	}
	// Named otherwise, the value under the key is not taken for len.
	other := starlark.NewBuiltin("other", wrap)
	calls = 0
	runAll([]string{"def f(xs):\n    return other(xs)\nprint(f([1, 2]))"}, starlark.StringDict{"other": other}, func() *starlark.Thread {
		thread := new(starlark.Thread)
		thread.SetLocal("go.starlark.net/len", other)
		return thread
	})
	if calls != 1 {
		t.Errorf("a builtin named other under the key: called %d times, want 1", calls)
	}
}

// TestLoopIteratorAllocs checks that loops over a list and a range entered
// again and again reuse their iterators, and that range(n) of an int32 is
// made without a call: a function whose outer loop runs two inner loops
// 100 times makes one allocation per outer step (the range value), not
// four (its arguments' copy and the two iterators too).
func TestLoopIteratorAllocs(t *testing.T) {
	const src = "def f(xs, n):\n    t = 0\n    for i in range(n):\n        for x in xs:\n            t += x\n        for j in range(3):\n            t += j\n    return t\n"
	globals, err := starlark.ExecFileOptions(loopsOptions, new(starlark.Thread), "a.star", src, nil)
	if err != nil {
		t.Fatal(err)
	}
	args := starlark.Tuple{starlark.NewList([]starlark.Value{starlark.MakeInt(1), starlark.MakeInt(2)}), starlark.MakeInt(100)}
	thread := new(starlark.Thread)
	var v starlark.Value
	allocs := testing.AllocsPerRun(20, func() {
		v, err = starlark.Call(thread, globals["f"], args, nil)
	})
	if err != nil || v.String() != "600" {
		t.Fatalf("f = %v, %v; want 600", v, err)
	}
	if allocs > 110 {
		t.Errorf("f made %.0f allocations, want at most 110 (one range value per outer step)", allocs)
	}
}
