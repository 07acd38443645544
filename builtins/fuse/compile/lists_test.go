package compile_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/builtins/internal/randfunc"
	"github.com/bitsh/bitsh/internal/testscale"
)

// listOpsCases are functions on lists as natural search code writes
// them: a stack popped while it is not empty, a queue popped at its
// front, insert, the sum, min and max of a list, any and all of a list
// comprehension, membership, a loop over reversed(xs) and comprehensions
// that read the list they replace.
var listOpsCases = []struct{ name, src string }{
	{"stack", "def f(x, y):\n    stack = [x % 50]\n    seen = [0] * 64\n    n = 0\n    while stack:\n        v = stack.pop()\n        if seen[v]:\n            continue\n        seen[v] = 1\n        n += v\n        for d in (1, 7):\n            w = (v * d + y) % 50\n            if not seen[w]:\n                stack.append(w)\n    return n"},
	{"queue", "def f(x, y):\n    q = [x % 9, y % 9]\n    n = 0\n    while q and n < 500:\n        v = q.pop(0)\n        n += v + 1\n        if v > 1:\n            q.append(v // 2)\n            q.append(v - 2)\n    return n"},
	{"pop empty", "def f(x, y):\n    xs = []\n    if x % 3:\n        xs.append(y % 100)\n        xs.append(x % 7)\n    return xs.pop() + xs.pop(-1)"},
	{"pop index", "def f(x, y):\n    xs = [1, 2, 3, x % 7]\n    a = xs.pop(y % 6)\n    return a * 10 + xs[0] + len(xs)"},
	{"insert", "def f(x, y):\n    xs = [5, 6]\n    xs.insert(x % 4, 9)\n    xs.insert(-1, y % 8)\n    xs.insert(-9, 1)\n    n = 0\n    for v in xs:\n        n = n * 11 + v\n    return n"},
	{"sum min max", "def f(x, y):\n    xs = [x % 1000, y % 1000, 7]\n    return sum(xs) * 3 + min(xs) + max(xs) * 5"},
	{"sum overflows", "def f(x, y):\n    xs = [x, y]\n    return sum(xs, 1)"},
	{"max empty", "def f(x, y):\n    xs = []\n    for i in range(x % 3):\n        xs.append(i * y % 17)\n    return max(xs)"},
	{"any all", "def f(x, y):\n    n = x % 200\n    if n < 2:\n        return 0\n    ok = all([n % d != 0 for d in range(2, n) if d * d <= n])\n    some = any([d * d == n for d in range(n)])\n    return 1 if ok else (2 if some else 3)"},
	{"in", "def f(x, y):\n    xs = [3, 5, y % 10]\n    n = 0\n    for i in range(x % 20):\n        if i in xs:\n            n += 1\n        if i % 10 not in (1, 2, x % 5):\n            n += 10\n    return n"},
	{"reversed", "def f(x, y):\n    xs = []\n    for i in range(x % 30):\n        xs.append(i * y % 97)\n    t = 0\n    for v in reversed(xs):\n        t = (t * 31 + v) % 1000003\n    return t"},
	{"comprehension", "def f(x, y):\n    v = x % 5\n    sq = [v * v for v in range(v, 12) if v % 3 != y % 3]\n    sq = [v + 1 for v in sq]\n    pairs = [i * 10 + j for i in range(v) for j in range(i)]\n    return sum(sq) * 1000 + sum(pairs) + v"},
	{"tuple helper", "def dm(a, b):\n    if b == 0:\n        return a, 0\n    for k in range(4):\n        if a < b * k:\n            return k, a - b\n    return a // b, a % b\n\ndef f(x, y):\n    q, r = dm(x, y % 50)\n    a, b = 0, 1\n    for i in range(x % 40):\n        a, b = dm(b + 7, a + 1)\n    return q * 3 + r + a + b"},
	{"tuple helper fails", "def two(a):\n    if a % 3 == 0:\n        return a, 1\n    if a % 3 == 1:\n        return a - 100, 2\n\ndef f(x, y):\n    p, q = two(x)\n    return p + q"},
	{"tuple keys", "def f(x, y):\n    n = x % 30\n    memo = {}\n    for i in range(n + 1):\n        for j in range(n + 1):\n            if i == 0 or j == 0:\n                memo[(i, j)] = 0\n            elif (i * 7) % 5 == (j * y) % 5:\n                memo[i, j] = memo[(i - 1, j - 1)] + 1\n            else:\n                memo[(i, j)] = max(memo[(i - 1, j)], memo.get((i, j - 1), 99))\n    seen = set()\n    for i in range(n):\n        seen.add((i % 4, i % 3, 1))\n    return memo[(n, n)] * 100 + len(seen) + len(memo) + (1 if (2, 2, 1) in seen else 0) + (1 if (n, 0) not in memo else 0)"},
	{"tuple keys past the words", "def f(x, y):\n    d = {}\n    d[(x, y)] = 1\n    d[(y, x)] = 2\n    return d[(x, y)] + len(d)"},
	{"grid bfs", "def f(x, y):\n    n = 2 + x % 9\n    wall = y % 5\n    dist = {}\n    dist[(0, 0)] = 0\n    q = [(0, 0)]\n    head = 0\n    while head < len(q):\n        r, c = q[head]\n        head += 1\n        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):\n            nr, nc = r + dr, c + dc\n            if 0 <= nr and nr < n and 0 <= nc and nc < n and (nr * 3 + nc) % 7 != wall and (nr, nc) not in dist:\n                dist[(nr, nc)] = dist[(r, c)] + 1\n                q.append((nr, nc))\n    return dist.get((n - 1, n - 1), 999) * 1000 + len(q)"},
	{"pairs", "def f(x, y):\n    pairs = []\n    for i in range(x % 20):\n        pairs.append((i, i * y % 13))\n    t = 0\n    for a, b in pairs:\n        t += a * b\n    while pairs:\n        a, b = pairs.pop(0)\n        t = t * 3 % 1000003 + a + b\n    for a, b in ((x % 5, 1), (2, y % 7)):\n        t += a * b\n    return t"},
	{"pair popped from empty", "def f(x, y):\n    st = [(x % 5, y % 5)]\n    if x % 2:\n        st.pop()\n    a, b = st.pop()\n    return a + b"},
	{"setdefault update", "def f(x, y):\n    groups = {}\n    for i in range(x % 30):\n        k = i * y % 7\n        groups[k] = groups.setdefault(k, 0) + i\n    s = set([1, 2, x % 4])\n    s.update([v * 2 for v in range(y % 6)])\n    t = set(s)\n    t.update(groups)\n    d = {}\n    d.update(groups)\n    n = 0\n    for k, v in d.items():\n        n = n * 7 + k + v\n    for q in t:\n        n = n * 3 % 1000003 + q\n    return n + len(s) * 1000 + max([1, 2, x % 9]) + min((y % 5, 3))"},
	{"sorted", "def f(x, y):\n    xs = []\n    for i in range(x % 40):\n        xs.append((i * 7919 + y) % 31)\n    ys = sorted(xs)\n    t = 0\n    for i in range(len(ys)):\n        t = (t * 7 + ys[i] * (i + 1)) % 1000003\n    seen = set([v % 11 for v in xs])\n    for v in sorted(seen):\n        t = t * 3 % 1000003 + v\n    xs = sorted(xs)\n    if xs:\n        t += xs[0] + xs[len(xs) - 1] * 5\n    for v in sorted([y % 9, 3, x % 4]):\n        t = t * 2 + v\n    return t"},
	{"sorted returned", "def g(x, y):\n    xs = [y % 10, x % 10, 4]\n    ys = sorted(xs)\n    return ys\n\ndef f(x, y):\n    t = 0\n    for v in g(x, y):\n        t = t * 10 + v\n    return t"},
	{"slices", "def f(x, y):\n    xs = []\n    for i in range(x % 20):\n        xs.append(i * y % 13)\n    t = sum(xs[1:]) + sum(xs[:3]) * 100 + sum(xs[-2:]) * 10000\n    for v in xs[y % 5:x % 7]:\n        t = t * 3 % 1000003 + v\n    ys = xs[2:-1]\n    xs = xs[1:]\n    return t + len(ys) * 7 + len(xs)"},
	{"abs divmod index count", "def f(x, y):\n    a = x % 100\n    b = y % 100\n    d = -1\n    if a > b:\n        d = -5\n    q, r = divmod(a * 7 + 3, b)\n    xs = [a, b, 3, b]\n    t = abs(a - b) * 1000 + abs(d) + abs(b - 50) * 7 + abs(d - 2) + q * 11 + r\n    xs.remove(b)\n    xs.extend([a % 3, 9])\n    xs.extend(xs[1:])\n    ys = [1]\n    ys.extend([v * 2 for v in xs if v % 2])\n    ys.remove(x % 3)\n    ys.clear()\n    return t + xs.index(b) * 100000 + len(xs) * 1000000 + xs.index(a % 7) + len(ys)"},
	{"zip", "def f(x, y):\n    xs = [x % 10, 2, 3]\n    ys = []\n    for i in range(y % 6):\n        ys.append(i * 3)\n    t = 0\n    for a, b in zip(xs, ys):\n        t = t * 10 + a * b\n    zs = [1, 2, 3, 4]\n    for a, b, c in zip(ys, xs, zs):\n        t += a + b * c\n    return t"},
	{"tuple locals", "def f(x, y):\n    n = 2 + x % 12\n    start = (0, 0)\n    goal = (n - 1, y % n)\n    dist = {start: 0}\n    q = [start]\n    found = 0\n    while q:\n        cur = q.pop(0)\n        r, c = cur\n        if cur == goal:\n            found = dist[cur]\n            break\n        for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):\n            if 0 <= r + dr and r + dr < n and 0 <= c + dc and c + dc < n and ((r + dr) * 7 + (c + dc) * 3) % 5 != 1:\n                nb = (r + dr, c + dc)\n                if nb not in dist:\n                    dist[nb] = dist[cur] + 1\n                    q.append(nb)\n    t = 0\n    for p in q:\n        a, b = p\n        t += a * b\n    return found * 1000 + len(dist) + t + (1 if start != goal else 0) + (2 if start == (0, 0, 0) else 0)"},
	{"tuple comprehension", "def f(x, y):\n    n = x % 9\n    pairs = [(i, j * y % 7) for i in range(n) for j in range(i) if (i + j) % 3 != 0]\n    t = 0\n    for a, b in pairs:\n        t = t * 5 % 1000003 + a * 3 + b\n    pts = [(a + 1, b) for a, b in pairs]\n    for p in pts:\n        u, v = p\n        t += u * v\n    return t + len(pairs) * 100000"},
	{"negative index values", "def f(x, y):\n    xs = []\n    for i in range(x % 6):\n        xs.append(i * y % 11)\n    cnt = {}\n    for v in xs:\n        cnt[v] = cnt.get(v, 0) + 1\n    t = xs[-1] * 100 + xs[-2]\n    xs[-1] = 7\n    fixed = [1, 2, 3]\n    fixed[-3] += 5\n    return t + xs[len(xs) - 1] + fixed[0] * 1000 + max(cnt.values()) * 10000 + sum(cnt.keys()) + len([v for v in cnt.values() if v > 1])"},
	{"distinct", "def f(x, y):\n    xs = [x % 7, y % 7, 3, x % 5]\n    t = 0\n    for i in range(y % 5):\n        t += len(set([v * i % 4 for v in xs]))\n    return t * 10 + len(set(xs))"},
	{"comprehension error", "def f(x, y):\n    xs = [10 // (i + 4 - x % 5) for i in range(1 + y % 5)]\n    return len(xs) + xs[0]"},
}

// TestExactListOps: the list constructs agree with plain Starlark on the
// evaluator and as x86-64 code, on every pair of edge words.
func TestExactListOps(t *testing.T) {
	var inputs [][]uint64
	for _, x := range exactWords {
		for _, y := range exactWords {
			inputs = append(inputs, []uint64{x, y})
		}
	}
	for _, c := range listOpsCases {
		t.Run(c.name, func(t *testing.T) {
			words, fails := exactAgrees(t, load(t, c.src), c.src, "f", inputs)
			if words == 0 {
				t.Errorf("no call gives a word (%d fail)", fails)
			}
		})
	}
}

// TestExactRandomListOps: random functions of randfunc.ListOps (their
// answer made an int) agree with plain Starlark on the evaluator and as
// x86-64 code.
func TestExactRandomListOps(t *testing.T) {
	n := 100
	if testscale.Short() {
		n = 20
	}
	var inputs [][]uint64
	for _, x := range exactWords[:3] {
		for _, y := range exactWords {
			inputs = append(inputs, []uint64{x, y})
		}
	}
	words, fails := 0, 0
	for seed := uint64(0); seed < uint64(n); seed++ {
		src := randfunc.ListOps(rand.New(rand.NewPCG(seed, 0x115706)), seed%2 == 1)
		src = src[:strings.LastIndex(src, "    return ")] + "    return s\n"
		w, f := exactAgrees(t, load(t, src), src, "f", inputs)
		words += w
		fails += f
	}
	t.Logf("%d functions: %d words, %d failures", n, words, fails)
	if words < n*len(inputs)/2 {
		t.Errorf("%d words, %d failures: the test tests little", words, fails)
	}
}
