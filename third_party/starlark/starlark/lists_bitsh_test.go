// bitsh fork: tests of the fused list stores, global lists and loops over
// one name (internal/compile/fuse_lists.go, lists_fast.go; README.bitsh.md).

package starlark_test

import (
	"testing"

	"go.starlark.net/starlark"
)

// listsProgs: list stores, global lists and single-name for loops, on the
// fast paths and each fallback.
var listsProgs = []string{
	"def f(n):\n    is_p = [True] * (n + 1)\n    is_p[0] = False\n    is_p[1] = False\n    i = 2\n    while i * i <= n:\n        if is_p[i]:\n            for j in range(i * i, n + 1, i):\n                is_p[j] = False\n        i += 1\n    return [k for k in range(n + 1) if is_p[k]]\nprint(f(60))",
	"def f(x, i):\n    x[i] = 7\n    x[-1] = 8\n    x[0] = x\n    return len(x)\nprint(f([1, 2, 3], 1))",
	"def f(x, i):\n    x[i] = 7\n    return x\nf([1, 2, 3], 3)",
	"def f(x, i):\n    x[i] = 7\n    return x\nf([1, 2, 3], -4)",
	"def f(x, i):\n    x[i] = 7\n    return x\nf([1, 2, 3], 1 << 40)",
	"def f(x, i):\n    x[i] = 7\n    return x\nf([1, 2, 3], 'a')",
	"def f(x, i):\n    x[i] = 7\n    return x\nf((1, 2, 3), 0)",
	"def f(x, i):\n    x[i] = 7\n    return x\nprint(f({1: 2}, 'k'))",
	"def f(x, i):\n    x[i] = 7\n    return x\nf('abc', 0)",
	"def f(x, i):\n    x[i] = 7\n    return x\nf(None, 0)",
	"def f(x, i):\n    x[i] = 7\n    return x\nL = [1]\nfreeze(L)\nf(L, 0)",
	"def f(x, i):\n    for y in x:\n        x[i] = y\n    return x\nf([1, 2], 0)",
	"def f(x, i):\n    if i:\n        y = [1]\n    y[0] = x\n    return y\nf(1, 0)",
	"def f(x, i):\n    if i:\n        j = 0\n    x[j] = 1\n    return x\nf([1], 0)",
	"def f(x):\n    x[0] = 5\n    x[2] = 6\n    x[-3] = 4\n    return x\nprint(f([0, 0, 0]))\nf([0])",
	"G = [0, 0]\nD = {}\nT = (1, 2)\ndef f(x, i):\n    G[0] = x\n    G[i] = x + 1\n    D[i] = x\n    return G, D\nprint(f(5, 1))\nprint(f(6, -1))\nf(7, 2)",
	"def f(x, i):\n    H[0] = x\nf(1, 0)\nH = [0]",
	"T = (1, 2)\ndef f(x, i):\n    T[i] = x\nf(1, 0)",
	"S = 'ab'\ndef f(x, i):\n    S[0] = x\nf(1, 0)",
	"G = [5, 6, 7]\nT = (8, 9)\nW = [1 << 63, 1 << 40, -1]\ndef f(i):\n    return [G[i], G[0], G[-1], T[i], T[1], W[i], W[2], W[-3]]\nprint(f(1))\nprint(f(-2))",
	"G = [5, 6, 7]\ndef f(i):\n    return G[i]\nf(3)",
	"G = [5, 6, 7]\ndef f(i):\n    return G[i]\nf(1 << 40)",
	"G = {1: 2, 'a': 3}\nS = 'abc'\ndef f(i):\n    return [G[i], G['a'], S[i], S[0]]\nprint(f(1))",
	"G = {1: 2}\ndef f(i):\n    return G[i]\nf(5)",
	"def f(i):\n    return K[i]\nf(0)\nK = [1]",
	"def f(i):\n    return K[0]\nf(0)\nK = [1]",
	"G = None\ndef f(i):\n    return G[i]\nf(0)",
	"G = [1, 2]\ndef f(i):\n    if i:\n        j = 1\n    return G[j]\nf(0)",
	"def f(n):\n    s = 0\n    for i in range(n):\n        s += i\n    for i in range(n, 0, -3):\n        s = s * 3 + i\n    for i in range(2147483640, 2147483650, 3):\n        s ^= i\n    for i in range(-(1 << 40), -(1 << 40) + 5):\n        s += i\n    return s\nprint(f(10))",
	"def f(x):\n    out = []\n    for y in x:\n        out.append(y)\n    return out\nprint(f([1, 'a', None]))\nprint(f((1, 2)))\nprint(f({3: 4, 5: 6}))\nprint(f(set([7])))\nprint(f(enumerate([8, 9])))\nprint(f(range(3)))",
	"def f(x):\n    for y in x:\n        pass\n    return y\nprint(f([1, 2]))\nf([])",
	"def f(x):\n    for y in x:\n        return y\nprint(f('ab'))",
	"def f(x):\n    for y in x:\n        x.append(y)\nf([1])",
	"def f(x):\n    for y in x:\n        for z in range(y):\n            if z == 2:\n                break\n            if z == 1:\n                continue\n        if y == 5:\n            return y, z\n    return None\nprint(f([3, 4, 5, 6]))",
	"def f(x):\n    t = 0\n    for y in x:\n        t += y\n    return t\nf([1, 'a'])",
	"def f(x):\n    return [y * 2 for y in x if y], {y: 1 for y in range(x[0])}\nprint(f([3, 0, 4]))",
	"s = 0\nfor i in range(5000):\n    s += i\nL = [0] * 10\nfor i in range(10):\n    L[i] = i * i\nfor x in L:\n    s += x\nprint(s, L)",
	"def f(n):\n    L = [0] * n\n    for i in range(n):\n        L[i] = i\n    for i in L:\n        L[i] = L[-1 - i] + i\n    return L\nprint(f(6))",
	"def f(x, i):\n    v = 3\n    x[i] = v\n    x[0] = None\n    x[1] = 'a'\n    x[-1] = G\n    x[i] = True\n    return x\nG = 9\nprint(f([1, 2, 3, 4], 2))",
	"def f(x, i):\n    if i:\n        v = 1\n    x[0] = v\nf([1], 0)",
	"def f(x):\n    x[0] = H\nf([1])\nH = 2",
	"def f(x):\n    x[0] = len\n    x[1] = -x[0](x)\n    return x[1]\nprint(f([1, 2]))",
	"G = [1, 2, 3]\nT = (1, 2)\ndef f(x, i):\n    x[i] += 5\n    x[0] ^= 3\n    x[-1] *= 2\n    G[i] -= 1\n    G[0] |= 8\n    s = 0\n    for j in range(3):\n        x[j] += j\n        s += x[j]\n    return x, G, s\nprint(f([4, 5, 6], 1))\nprint(f({0: 1, 1: 2, -1: 3, 2: 0}, 1))",
	"def f(x, i):\n    x[i] += 1\nf([1], 1)",
	"def f(x, i):\n    x[i] += 1\nf((1, 2), 1)",
	"def f(x, i):\n    x[i] += 1\nL = [1, 2]\nfreeze(L)\nf(L, 1)",
	"def f(x, i):\n    x[i] += 1\nf('ab', 1)",
	"def f(x, i):\n    x[i] += 'a'\nf([1, 2], 1)",
	"def f(x, i):\n    for y in x:\n        x[i] += 1\nf([1, 2], 1)",
	"def f(x, i):\n    if i:\n        j = 0\n    x[j] += 1\nf([1], 0)",
	"def f(x, i):\n    K[0] += 1\nf([1], 0)\nK = [1]",
	"T = (1, 2)\ndef f(x, i):\n    T[i] += 1\nf([1], 0)",
	"def f(n):\n    L = [0] * n\n    v = 7\n    for j in range(n):\n        L[j] = v\n    for j in range(n - 1, -1, -2):\n        L[j] = 1\n    for j in range(-n, 0, 3):\n        L[j] = None\n    return L[:12], L[-5:], j, len([x for x in L if x == 7])\nprint(f(10000))",
	"def f():\n    L = [0] * 5000\n    for j in range(6000):\n        L[j] = 1\nf()",
	"def f():\n    L = [0] * 10\n    for j in range(10):\n        L[j] = j\n    return L\nprint(f())",
	"def f():\n    L = [0] * 10\n    for j in range(10):\n        L[j] = v\n    v = 1\nf()",
	"def f(L):\n    for j in range(3):\n        L[j] = 1\nL = [0] * 3\nfreeze(L)\nf(L)",
	"def f(L):\n    for x in L:\n        for j in range(3):\n            L[j] = 1\nf([0, 0, 0])",
	"G = [0] * 100\ndef f():\n    for j in range(0, 100, 7):\n        G[j] = True\n    for j in []:\n        G[j] = 5\n    for j in range(0):\n        G[j] = 5\n    return len([x for x in G if x])\nprint(f())",
	"def f():\n    L = [0] * 3\n    for j in range(2147483646, 2147483650):\n        L[j] = 1\nf()",
	"def f():\n    L = [0] * 3\n    for j in range(-4, 3):\n        L[j] = 1\nf()",
	"def f():\n    L = [0] * 3\n    for j in [0, 2, 'a']:\n        L[j] = 1\nf()",
	"def f():\n    L = [0] * 3\n    for j in range(3):\n        L[j] = L\n    return len(L[0])\nprint(f())",
	"L = [0] * 3000\nfor j in range(3000):\n    L[j] = 2\nprint(len([x for x in L if x == 2]))",
	"Z = [1 << 63, 1 << 40, 5, (1 << 64) - 1, -1, -(1 << 40), 1 << 64, 0]\nT = (3, 1 << 50)\ndef f(h, i):\n    out = []\n    for k in range(8):\n        out.append([h ^ Z[k], h & Z[k], h | Z[k], h ^ Z[i], h & T[1], h | T[0], h ^ Z[-1]])\n    return out\nprint(f(0x123456789ABCDEF0, 1))\nprint(f(-7, 2))\nprint(f(1 << 70, 0))\nprint(f(3, -8))",
	"Z = [1, 2]\ndef f(h, i):\n    return h ^ Z[i]\nf(1, 2)",
	"Z = [1, 'a']\ndef f(h, i):\n    return h ^ Z[i]\nf(1, 1)",
	"Z = [1, 2]\ndef f(h, i):\n    return h & Z[i]\nf('x', 1)",
	"Z = {1: 2}\ndef f(h, i):\n    return h | Z[i]\nprint(f(4, 1))\nf(4, 0)",
	"S = set([1])\ndef f(h, i):\n    return h | Z[i]\nZ = [S]\nprint(f(set([2]), 0))",
	"def f(h, i):\n    return h ^ Y[i]\nf(1, 0)\nY = [1]",
	"D = {}\ndef f(n):\n    d = {}\n    for i in range(n):\n        v = i * 2\n        D[i] = v\n        D[-i] = i * 3\n        d[i % 3] = 0\n        d[i % 3] += D[i]\n        d['k'] = D[-i]\n        D[(i, 'a')] = None\n    return D[1], D[-2], D[(2, 'a')], d, len(D)\nprint(f(5))",
	"D = {1: 2}\ndef f(k):\n    return D[k]\nf(3)",
	"D = {1: 2}\ndef f(k):\n    return D[k]\nf([1])",
	"D = {1: 2}\ndef f(k):\n    v = 1\n    D[k] = v\nf([1])",
	"def f(d, k):\n    v = 1\n    d[k] = v\nD = {}\nfreeze(D)\nf(D, 1)",
	"def f(d, k):\n    for x in d:\n        d[k] = 5\nf({1: 2}, 1)",
	"def f(d, k):\n    d[k] += 1\n    return d\nprint(f({1: 2}, 1))\nf({1: 2}, 2)",
	"def f(d, k):\n    d[k] += 1\nf({1: 2}, {})",
	"def f(d, k):\n    if k:\n        v = 1\n    d[0] = v\nf({}, 0)",
	"def f(d, k):\n    if k:\n        j = 1\n    d[j] = 1\nf({}, 0)",
}

// listsUpstream is what go.starlark.net v0.0.0-20260908191801-89a6a09411d5
// gives for listsProgs (run as runAll runs them): results, errors with
// their backtraces, steps.
const listsUpstream = `print: [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59]
<nil>
steps 1619
print: 3
<nil>
steps 38
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: list index 3 out of range [-3:2]
steps 16
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: list index -4 out of range [-3:2]
steps 17
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: 1099511627776 out of range
steps 18
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: got string, want int
steps 16
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: tuple value does not support item assignment
steps 16
print: {1: 2, "k": 7}
<nil>
steps 24
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: string value does not support item assignment
steps 13
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:2:6: in f
Error: NoneType value does not support item assignment
steps 13
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:2:6: in f
Error: cannot assign to element of frozen list
steps 20
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:3:10: in f
Error: cannot assign to element of list during iteration
steps 22
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:5: in f
Error: local variable y referenced before assignment
steps 14
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:7: in f
Error: local variable j referenced before assignment
steps 17
print: [4, 0, 6]
Traceback (most recent call last):
  e.star:7:2: in <toplevel>
  e.star:3:6: in f
Error: list index 2 out of range [-1:0]
steps 49
print: ([5, 6], {1: 5})
print: ([6, 7], {1: 5, -1: 6})
Traceback (most recent call last):
  e.star:11:2: in <toplevel>
  e.star:6:6: in f
Error: list index 2 out of range [-2:1]
steps 94
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:5: in f
Error: global variable H referenced before assignment
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: tuple value does not support item assignment
steps 17
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: string value does not support item assignment
steps 15
print: [6, 5, 7, 9, 9, 1099511627776, -1, 9223372036854775808]
print: [6, 5, 7, 8, 9, 1099511627776, -1, 9223372036854775808]
<nil>
steps 93
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: list index 3 out of range [-3:2]
steps 14
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: list index: 1099511627776 out of range
steps 16
print: [2, 3, "b", "a"]
<nil>
steps 37
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: key 5 not in dict
steps 15
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:12: in f
Error: global variable K referenced before assignment
steps 7
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:12: in f
Error: global variable K referenced before assignment
steps 7
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: unhandled index operation NoneType[int]
steps 11
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:5:14: in f
Error: local variable j referenced before assignment
steps 17
print: -5493263175563
<nil>
steps 286
print: [1, "a", None]
print: [1, 2]
print: [3, 5]
print: [7]
print: [(0, 8), (1, 9)]
print: [0, 1, 2]
<nil>
steps 254
print: 2
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:12: in f
Error: local variable y referenced before assignment
steps 37
Traceback (most recent call last):
  e.star:4:8: in <toplevel>
  e.star:2:5: in f
Error: string value is not iterable
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:17: in f
Error in append: append: cannot append to list during iteration
steps 18
print: (5, 2)
<nil>
steps 206
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:11: in f
Error: unknown binary op: int + string
steps 30
print: ([6, 8], {0: 1, 1: 1, 2: 1})
<nil>
steps 97
print: 12497785 [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]
<nil>
steps 50270
Traceback (most recent call last):
  e.star:8:8: in <toplevel>
  e.star:6:10: in f
Error: cannot assign to element of list during iteration
steps 110
print: [None, "a", True, 9]
<nil>
steps 53
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:12: in f
Error: local variable v referenced before assignment
steps 14
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:12: in f
Error: global variable H referenced before assignment
steps 8
print: -2
<nil>
steps 34
print: ([7, 11, 14], [9, 1, 3], 32)
print: ({0: 2, 1: 8, -1: 6, 2: 2}, [9, 0, 3], 12)
<nil>
steps 260
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:6: in f
Error: list index 1 out of range [-1:0]
steps 12
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:6: in f
Error: tuple value does not support item assignment
steps 16
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:6: in f
Error: cannot assign to element of frozen list
steps 22
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:10: in f
Error: unknown binary op: string + int
steps 13
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:10: in f
Error: unknown binary op: int + string
steps 15
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:10: in f
Error: cannot assign to element of list during iteration
steps 23
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:7: in f
Error: local variable j referenced before assignment
steps 15
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:5: in f
Error: global variable K referenced before assignment
steps 9
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:6: in f
Error: tuple value does not support item assignment
steps 19
print: ([None, 1, 7, None, 7, 1, None, 1, 7, None, 7, 1], [1, None, 1, 7, None], -1, 3333)
<nil>
steps 333407
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:10: in f
Error: list index 5000 out of range [-5000:4999]
steps 60025
print: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
<nil>
steps 143
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:4:16: in f
Error: local variable v referenced before assignment
steps 20
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:3:10: in f
Error: cannot assign to element of frozen list
steps 30
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:14: in f
Error: cannot assign to element of list during iteration
steps 31
print: 15
<nil>
steps 1321
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:10: in f
Error: list index 2147483646 out of range [-3:2]
steps 26
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:10: in f
Error: list index -4 out of range [-3:2]
steps 27
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:10: in f
Error: got string, want int
steps 50
print: 3
<nil>
steps 63
print: 3000
<nil>
steps 75023
print: [[10535140504318566128, 0, 10535140504318566128, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [1311769566975418096, 0, 1311769566975418096, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [1311768467463790325, 0, 1311768467463790325, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [17134975606245761295, 1311768467463790320, 18446744073709551615, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [-1311768467463790321, 1311768467463790320, -1, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [-1311768530991128848, 1311767949471645696, -581519483152, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [19758512541173341936, 0, 19758512541173341936, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320], [1311768467463790320, 0, 1311768467463790320, 1311769566975418096, 1125899906842624, 1311768467463790323, 1311768467463790320]]
print: [[-9223372036854775815, 9223372036854775808, -7, -4, 1125899906842624, -5, -7], [-1099511627783, 1099511627776, -7, -4, 1125899906842624, -5, -7], [-4, 1, -3, -4, 1125899906842624, -5, -7], [-18446744073709551610, 18446744073709551609, -1, -4, 1125899906842624, -5, -7], [6, -7, -1, -4, 1125899906842624, -5, -7], [1099511627769, -1099511627776, -7, -4, 1125899906842624, -5, -7], [-18446744073709551623, 18446744073709551616, -7, -4, 1125899906842624, -5, -7], [-7, 0, -7, -4, 1125899906842624, -5, -7]]
print: [[1189814992754266079232, 0, 1189814992754266079232, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [1180591621816922931200, 0, 1180591621816922931200, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [1180591620717411303429, 0, 1180591620717411303429, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [1199038364791120855039, 0, 1199038364791120855039, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [-1180591620717411303425, 1180591620717411303424, -1, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [-1180591621816922931200, 1180591620717411303424, -1099511627776, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [1199038364791120855040, 0, 1199038364791120855040, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424], [1180591620717411303424, 0, 1180591620717411303424, 1189814992754266079232, 0, 1180591620717411303427, 1180591620717411303424]]
print: [[9223372036854775811, 0, 9223372036854775811, 9223372036854775811, 0, 3, 3], [1099511627779, 0, 1099511627779, 9223372036854775811, 0, 3, 3], [6, 1, 7, 9223372036854775811, 0, 3, 3], [18446744073709551612, 3, 18446744073709551615, 9223372036854775811, 0, 3, 3], [-4, 3, -1, 9223372036854775811, 0, 3, 3], [-1099511627773, 0, -1099511627773, 9223372036854775811, 0, 3, 3], [18446744073709551619, 0, 18446744073709551619, 9223372036854775811, 0, 3, 3], [3, 0, 3, 9223372036854775811, 0, 3, 3]]
<nil>
steps 1611
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:17: in f
Error: list index 2 out of range [-2:1]
steps 15
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error: unknown binary op: int ^ string
steps 16
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:14: in f
Error: unknown binary op: string & int
steps 16
print: 6
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:3:17: in f
Error: key 0 not in dict
steps 30
print: set([2, 1])
<nil>
steps 29
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:16: in f
Error: global variable Y referenced before assignment
steps 9
print: (2, 6, None, {0: 6, "k": 12, 1: 8, 2: 4}, 14)
<nil>
steps 344
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: key 3 not in dict
steps 15
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:13: in f
Error: unhashable type: list
steps 16
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:6: in f
Error: unhashable type: list
steps 21
Traceback (most recent call last):
  e.star:6:2: in <toplevel>
  e.star:3:6: in f
Error: cannot insert into frozen hash table
steps 21
Traceback (most recent call last):
  e.star:4:2: in <toplevel>
  e.star:3:10: in f
Error: cannot insert into hash table during iteration
steps 24
print: {1: 3}
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:2:6: in f
Error: key 2 not in dict
steps 35
Traceback (most recent call last):
  e.star:3:2: in <toplevel>
  e.star:2:6: in f
Error: unhashable type: dict
steps 15
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:12: in f
Error: local variable v referenced before assignment
steps 13
Traceback (most recent call last):
  e.star:5:2: in <toplevel>
  e.star:4:7: in f
Error: local variable j referenced before assignment
steps 16
`

// TestListsAsUpstream checks that the programs give upstream's results,
// errors and positions, and step counts.
func TestListsAsUpstream(t *testing.T) {
	got := runAll(listsProgs, nil, func() *starlark.Thread { return new(starlark.Thread) })
	if got != listsUpstream {
		t.Errorf("got:\n%s\nupstream:\n%s", got, listsUpstream)
	}
}

// TestRangeStoresUnderLimit runs the programs on threads with a step limit
// they do not reach, where the loops of list stores go one iteration at a
// time (rangeStores declines): the same results, errors and steps as
// without a limit, where they run many iterations at once.
func TestRangeStoresUnderLimit(t *testing.T) {
	got := runAll(listsProgs, nil, func() *starlark.Thread {
		th := new(starlark.Thread)
		th.SetMaxExecutionSteps(1 << 40)
		return th
	})
	if got != listsUpstream {
		t.Errorf("got:\n%s\nupstream:\n%s", got, listsUpstream)
	}
}
