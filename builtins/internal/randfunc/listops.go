package randfunc

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// ListOps writes a random plain function f(x, y) that works on lists
// of ints as natural code does: pop() and pop(i) (of an empty list too),
// insert, the truth of a list (while xs, if not xs), sum, min and max of a
// list (of an empty one too), any and all of a list comprehension, in and
// not in a list and a tuple written out, loops over reversed(xs), and
// list comprehensions with conditions and two loops, whose names hide the
// function's own, a, b = dm(p, q) of a helper that returns a tuple, a dict and a set
// keyed by tuples, a list of pairs built by append (pq), loops over
// pairs written out, setdefault, update, set(xs), sorted, slices, remove, extend,
// clear, index, abs of a difference, divmod, zip and a tuple local (pt)
// appended, popped, unpacked, compared and used as a key, and
// a list of pairs from a list comprehension, negative indexes
// (xs[-1]) and the values and keys of a dict reduced, len(set(xs)). With loop, f starts with a loop (the fork offers such a
// function at its first call). Its answer is an int, a tuple or a list;
// some calls fail (an empty list popped, the max of an empty list).
func ListOps(r *rand.Rand, loop bool) string {
	var b strings.Builder
	if loop {
		b.WriteString("    for _ in range(1):\n        pass\n")
	}
	word := func(inner string) string {
		opts := []string{"a", "c", "s % 50", fmt.Sprint(r.IntN(9)), "len(xs)", "v", "(a + c)"}
		if inner != "" {
			opts = append(opts, inner, inner+" * 3")
		}
		return opts[r.IntN(len(opts))]
	}
	var stmt func(ind string, depth int, inner string, iterating bool)
	stmt = func(ind string, depth int, inner string, iterating bool) {
		list := []string{"xs", "ys"}[r.IntN(2)]
		switch k := r.IntN(59); {
		case k == 0 && !iterating:
			fmt.Fprintf(&b, "%s%s.append(%s)\n", ind, list, word(inner))
		case k == 1 && !iterating:
			fmt.Fprintf(&b, "%sif %s:\n%s    s += %s.pop()\n", ind, list, ind, list)
		case k == 2 && !iterating:
			fmt.Fprintf(&b, "%ss += %s.pop(%s)\n", ind, list, []string{"", "0", "-1", "-2", "1", word(inner) + " % 4"}[r.IntN(6)])
		case k == 3 && !iterating:
			fmt.Fprintf(&b, "%s%s.insert(%s, %s)\n", ind, list, []string{"0", "-1", "-5", "2", word(inner) + " % 5", "100"}[r.IntN(6)], word(inner))
		case k == 4:
			fmt.Fprintf(&b, "%ss += sum(%s)\n", ind, list)
		case k == 5:
			fmt.Fprintf(&b, "%ss += %s(%s)\n", ind, []string{"min", "max"}[r.IntN(2)], list)
		case k == 6:
			fmt.Fprintf(&b, "%sif any([v > %s for v in %s]):\n%s    s += 1\n", ind, word(inner), list, ind)
		case k == 7:
			fmt.Fprintf(&b, "%sif all([v %% 2 == 0 for v in %s if v > 1]):\n%s    s += 2\n", ind, list, ind)
		case k == 8:
			fmt.Fprintf(&b, "%sif %s in %s:\n%s    s += 3\n", ind, word(inner), list, ind)
		case k == 9:
			fmt.Fprintf(&b, "%sif %s not in (1, c, %d):\n%s    s += 4\n", ind, word(inner), r.IntN(5), ind)
		case k == 10 && depth < 2:
			fmt.Fprintf(&b, "%sfor v in reversed(%s):\n", ind, list)
			stmt(ind+"    ", depth+1, "v", true)
		case k == 11 && !iterating:
			fmt.Fprintf(&b, "%sys = [v * 2 + %s for v in xs if v %% 3 != %d]\n", ind, word(""), r.IntN(3))
		case k == 12 && !iterating:
			fmt.Fprintf(&b, "%sxs = [i * j + %s for i in range(c) for j in range(i)]\n", ind, word(inner))
		case k == 13 && !iterating:
			fmt.Fprintf(&b, "%swhile %s and s < 1000:\n%s    s += %s.pop() + 1\n", ind, list, ind, list)
		case k == 14:
			fmt.Fprintf(&b, "%sif not %s:\n", ind, list)
			stmt(ind+"    ", depth+1, inner, iterating)
		case k == 15 && depth < 2:
			fmt.Fprintf(&b, "%sfor w in range(%s %% 4):\n", ind, word(inner))
			stmt(ind+"    ", depth+1, "w", iterating)
			stmt(ind+"    ", depth+1, "w", iterating)
		case k == 16:
			fmt.Fprintf(&b, "%ss += sum([v * v for v in range(%s %% 9)], %d)\n", ind, word(inner), r.IntN(3))
		case k == 17:
			fmt.Fprintf(&b, "%ss = s %% 100003\n", ind)
		case k == 18:
			fmt.Fprintf(&b, "%ss += len(%s) * %d\n", ind, list, 1+r.IntN(5))
		case k == 20:
			fmt.Fprintf(&b, "%sqq, rr = dm(%s, %s)\n%ss += qq * 2 + rr\n", ind, word(inner), word(inner), ind)
		case k == 21 && depth < 2:
			fmt.Fprintf(&b, "%sfor w in range(3):\n%s    s, v = dm(s + w, %s)\n", ind, ind, word("w"))
		case k == 22:
			fmt.Fprintf(&b, "%smemo[(%s %% 5, %s)] = %s\n", ind, word(inner), []string{"c", "v % 3", "x", "y % 9"}[r.IntN(4)], word(inner))
		case k == 23:
			fmt.Fprintf(&b, "%ss += memo.get((%s %% 5, c), 1) + len(memo)\n", ind, word(inner))
		case k == 24:
			fmt.Fprintf(&b, "%sif (%s %% 5, a %% 3, 1) not in seen:\n%s    seen.add((%s %% 5, a %% 3, 1))\n%s    s += len(seen)\n", ind, word(inner), ind, word(inner), ind)
		case k == 25:
			fmt.Fprintf(&b, "%sif (a %% 5, %s) in memo:\n%s    s += memo[a %% 5, %s]\n", ind, word(inner), ind, word(inner))
		case k == 26 && !iterating:
			fmt.Fprintf(&b, "%spq.append((%s, %s))\n", ind, word(inner), word(inner))
		case k == 27 && !iterating:
			fmt.Fprintf(&b, "%sif pq:\n%s    p1, p2 = pq.pop(%s)\n%s    s += p1 * 2 + p2\n", ind, ind, []string{"", "0", "-1"}[r.IntN(3)], ind)
		case k == 28 && depth < 2:
			fmt.Fprintf(&b, "%sfor p1, p2 in pq:\n%s    s += p1 + p2 * %d\n", ind, ind, r.IntN(4))
		case k == 29:
			fmt.Fprintf(&b, "%sif pq:\n%s    p1, p2 = pq[%s %% len(pq)]\n%s    s += p1 ^ p2\n", ind, ind, word(inner), ind)
		case k == 30 && depth < 2:
			fmt.Fprintf(&b, "%sfor dx, dy in ((1, 0), (-1, 2), (0, -1)):\n%s    if a + dx >= 0 and c + dy < 9:\n%s        s += a + dx + (c + dy) * 3\n", ind, ind, ind)
		case k == 31 && depth < 2:
			fmt.Fprintf(&b, "%sfor p1, p2 in ((a, c), (%s, 1)):\n%s    s += p1 * p2\n", ind, word(inner), ind)
		case k == 32:
			fmt.Fprintf(&b, "%ss += cnt.setdefault(%s %% 7, %s)\n", ind, word(inner), word(inner))
		case k == 33:
			fmt.Fprintf(&b, "%sbag.update(%s)\n", ind, []string{"xs", "[a, " + word(inner) + "]", "[w * 2 for w in ys]", "cnt"}[r.IntN(4)])
		case k == 34 && !iterating:
			fmt.Fprintf(&b, "%sbag = set(%s)\n", ind, []string{"xs", "ys", "[c, 2, c]", "cnt"}[r.IntN(4)])
		case k == 35:
			fmt.Fprintf(&b, "%ss += len(bag) + sum([q * 3 for q in bag]) + (2 if %s in bag else 0)\n", ind, word(inner))
		case k == 36:
			fmt.Fprintf(&b, "%scnt[%s %% 4] = cnt.setdefault(%s %% 4, 1) * 2\n", ind, word(inner), word(inner))
		case k == 37:
			fmt.Fprintf(&b, "%sfor q in bag:\n%s    s += q + cnt.get(q, 3)\n", ind, ind)
		case k == 38 && !iterating:
			fmt.Fprintf(&b, "%sys = sorted(%s)\n", ind, []string{"xs", "ys", "[c, a, 2]", "[w % 7 for w in xs]"}[r.IntN(4)])
		case k == 39 && depth < 2:
			fmt.Fprintf(&b, "%sfor w in sorted(%s):\n%s    s = (s * 3 + w) %% 100003\n", ind, []string{"xs", "ys", "bag", "cnt"}[r.IntN(4)], ind)
		case k == 40:
			fmt.Fprintf(&b, "%ss += sum(%s[%s])\n", ind, list, []string{"1:", ":2", "-2:", "a % 4:c", ":-1", "c:-" + fmt.Sprint(1+r.IntN(3))}[r.IntN(6)])
		case k == 41 && depth < 2:
			fmt.Fprintf(&b, "%sfor w in %s[%s]:\n%s    s = s * 2 %% 100003 + w\n", ind, list, []string{"1:", "a % 3:", ":c"}[r.IntN(3)], ind)
		case k == 42 && !iterating:
			fmt.Fprintf(&b, "%s%s = %s[%s]\n", ind, list, []string{"xs", "ys"}[r.IntN(2)], []string{"1:", ":-1", "c:a"}[r.IntN(3)])
		case k == 43 && !iterating:
			fmt.Fprintf(&b, "%s%s.%s\n", ind, list, []string{"remove(" + word(inner) + ")", "extend(" + []string{"xs", "ys", "[a, 1]", "[w + 1 for w in range(c)]"}[r.IntN(4)] + ")", "clear()"}[r.IntN(3)])
		case k == 44:
			fmt.Fprintf(&b, "%ss += %s.index(%s) + abs(%s - %s)\n", ind, list, word(inner), word(inner), word(inner))
		case k == 45:
			fmt.Fprintf(&b, "%sqq, rr = divmod(%s, %s)\n%ss += qq + rr * 3 + abs(v - 9)\n", ind, word(inner), word(inner), ind)
		case k == 46 && depth < 2:
			fmt.Fprintf(&b, "%sfor p1, p2 in zip(xs, ys):\n%s    s = s * 2 %% 100003 + p1 * p2\n", ind, ind)
		case k == 47:
			fmt.Fprintf(&b, "%spt = (%s %% 5, %s)\n", ind, word(inner), []string{"c", "v % 3", "x", "y % 9"}[r.IntN(4)])
		case k == 48 && !iterating:
			fmt.Fprintf(&b, "%sif pq:\n%s    pt = pq.pop(%s)\n", ind, ind, []string{"", "0"}[r.IntN(2)])
		case k == 49 && !iterating:
			fmt.Fprintf(&b, "%spq.append(pt)\n%smemo[pt] = %s\n", ind, ind, word(inner))
		case k == 50:
			fmt.Fprintf(&b, "%sp1, p2 = pt\n%ss += p1 * 3 + p2 + (1 if pt in memo else 0) + (2 if pt == (a %% 5, c) else 0) + (4 if pt != (1, 2, 3) else 0)\n", ind, ind)
		case k == 51 && depth < 2:
			fmt.Fprintf(&b, "%sfor pt in pq:\n%s    p1, p2 = pt\n%s    s += p1 + p2 * 2\n", ind, ind, ind)
		case k == 52 && !iterating:
			fmt.Fprintf(&b, "%spq = [(w, w * %s %% 5) for w in range(c) if w != a %% 3]\n", ind, word(inner))
		case k == 53:
			fmt.Fprintf(&b, "%ss += %s[-%d]\n", ind, list, 1+r.IntN(3))
		case k == 54 && !iterating:
			fmt.Fprintf(&b, "%s%s[-1] = %s\n", ind, list, word(inner))
		case k == 55:
			fmt.Fprintf(&b, "%ss += %s(cnt.values()) + sum(cnt.keys())\n", ind, []string{"max", "min", "sum"}[r.IntN(3)])
		case k == 56:
			fmt.Fprintf(&b, "%ss += len(set(%s)) + len([w for w in %s if w > %s])\n", ind, list, list, word(inner))
		case k == 19:
			fmt.Fprintf(&b, "%ss += max([v %% 5 for v in %s])\n", ind, list)
		default:
			fmt.Fprintf(&b, "%ss += %s\n", ind, word(inner))
		}
	}
	for n := 4 + r.IntN(8); n > 0; n-- {
		stmt("    ", 0, "", false)
	}
	switch r.IntN(4) {
	case 0:
		b.WriteString("    return s, v\n")
	case 1:
		b.WriteString("    return xs\n")
	case 2:
		b.WriteString("    return s + len(ys)\n")
	default:
		b.WriteString("    return s\n")
	}
	// The head, with the tables the body uses (a table's arrays are
	// large: the evaluator makes them at every call).
	head := "def dm(p, q):\n    if q == 0:\n        return p, 0\n    for k in range(3):\n        if p < q * k:\n            return k, p\n    return p // q, p % q\n\n" +
		"def f(x, y):\n    a = x % 23\n    c = y % 7\n    xs = [a, c, 3]\n    ys = []\n    s = 0\n    v = 5\n"
	if strings.Contains(b.String(), "memo") {
		head += "    memo = {}\n"
	}
	if strings.Contains(b.String(), "seen") {
		head += "    seen = set()\n"
	}
	if strings.Contains(b.String(), "cnt") {
		head += "    cnt = {}\n"
	}
	if strings.Contains(b.String(), "bag") {
		head += "    bag = set()\n"
	}
	if strings.Contains(b.String(), "pt") {
		head += "    pt = (a, 1)\n"
	}
	if strings.Contains(b.String(), "pq") {
		head += "    pq = [(a, c)]\n"
	}
	return head + b.String()
}
