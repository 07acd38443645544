package fusescript

import "math/rand/v2"

// A Case is a fused function f of Params parameters that covers a part of
// the language; Small inputs stay below 40.
type Case struct {
	Name, Src string
	Params    int
	Small     bool
}

// Constructs cover every construct of a fused function with control flow.
var Constructs = []Case{
	{"while_bits", `
def f(b):
    n = 0
    while b:
        n += bsf(b)
        b &= b - 1
    return n
`, 1, false},
	{"break_continue", `
def f(x):
    s = 0
    for i in range(64):
        if i % 3 == 0:
            continue
        if (x >> i) & 1:
            s += i
        if s > 200:
            break
    return s
`, 1, false},
	{"range_forms", `
def f(a, b):
    s = 0
    for i in range(a % 7, b % 50, 3):
        s += i
    for j in range(b % 20, 0, -2):
        s = s * 3 + j
    for k in range(a % 9):
        s ^= k << k
    return s & U64
`, 2, false},
	{"subsets_and_bits", `
def f(m):
    m &= 0x3f5
    c = 0
    for s in subsets(m):
        c = (c * 31 + s) & U64
    for s in subsets(m, 3):
        c = (c * 7 + s) & U64
    for s in subsets(m, 0):
        c += 1 + s
    for i in bits(m):
        c = c * 5 + i
    return c & U64
`, 1, false},
	{"tables", `
T = [3, 1, 4, 1, 5, 9, 2, 6]
R = [[1, 2], [3], [], [4, 5, 6]]
def f(i, j):
    s = T[i % 8] + T[-1] + len(T) + len(R)
    row = R[i % 4]
    for k in range(len(row)):
        s += row[k] * (j + 1)
    s += R[3][j % 3] + len(R[i % 4])
    return s & U64
`, 2, false},
	{"scratch_fresh", `
def f(x):
    seen = [0] * 64
    n = 0
    for i in range(16):
        k = (x >> (i * 4)) & 15
        if seen[k]:
            n += 1
        seen[k] = 1
        seen[k + 16] += i
    return n * 1000 + seen[16 + (x & 15)]
`, 1, false},
	{"scratch_literal", `
def f(x):
    a = [x, 2, 0, x + 1]
    a[-1] += 5
    return a[0] + a[1] * 3 + a[3] * 7 + len(a)
`, 1, true},
	{"helpers", `
def mix(x):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & U64
    x = ((x ^ (x >> 27)) * 0x94d049bb133111eb) & U64
    return x ^ (x >> 31)

def low(x, n):
    for i in range(n):
        if (x >> i) & 1:
            return i
    return n

def f(x):
    return mix((3 * x) & U64) & mix(low(x, 10) + 1)
`, 1, false},
	{"tuple_min_max_abs", `
def f(a, b):
    x, y = a % 1000, b % 1000
    for i in range(10):
        x, y = y, (x + y) % 1000
    return max(x, y, 7) * 10000 + min(x, y) + abs(x - y) * 1000000
`, 2, false},
	{"lazy_and_or_cond", `
def g(x):
    return 100 // x
def f(x):
    a = x and g(x)
    b = (x - x) or g(x + 1)
    c = g(x) if x else 5
    return a + b * 1000 + c * 1000000
`, 1, true},
	{"return_anywhere", `
def f(x):
    if x & 1:
        return 1
    for i in range(5):
        if x == i:
            return 10 + i
    while x > 100:
        x //= 3
        if x == 55:
            return 7
    return x
`, 1, true},
	{"spec_builtins", `
def f(x, y):
    return rotl(x, y % 64) ^ pdep(x, y) ^ pext(y, x) ^ reverse_bits(x) ^ swap_bytes(y) ^ parity(x) ^ gray(y) ^ gray_inverse(x) ^ popcount(x & y) ^ lsb(x)
`, 2, false},
	{"scratch_compare", `
def f(x, y):
    seen = [0] * 16
    mark = [7] * 16
    n = 0
    for j in range(24):
        k = (x * (j + 1) + y) & 15
        if seen[k] == 0:
            seen[k] = j + 1
        elif seen[k] != (y & 31):
            n += 1
        if 7 == mark[k]:
            mark[k] = j
        if mark[k] == 7 or mark[k] != y % 8:
            n += 3
        if not (seen[(k + 1) & 15] == x % 5):
            n += 5
    return n
`, 2, true},
	{"scratch_known_fresh", `
def f(x, y):
    seen = [0] * 16
    mark = [7] * 16
    n = 0
    for j in range(40):
        k = (x * (j + 3) + y * j) & 15
        if seen[k] == 0:
            if seen[k] == 0:
                n += 32
            seen[k] = j + 1
        elif seen[k] == (y & 31):
            n += 1
        if mark[k] != 7:
            if mark[k] == y & 7:
                n += 2
            mark[k] = (mark[k] + 1) & 7
        else:
            if mark[k] == 7:
                n += 64
            mark[k] = j & 7
        if seen[k ^ 8] != 0:
            pass
        if seen[k ^ 8] == 5:
            n += 256
        if seen[k ^ 1] == 0:
            n += 4
        else:
            k = k ^ 2
            if seen[k] == 3:
                n += 8
            elif seen[k ^ 4] == 0:
                n += 16
        if seen[k] != 0:
            if seen[k ^ 4] == 0:
                n += 128
    return n
`, 2, true},
	{"lowest_bits", `
T = (5, 12, 7)
def f(x, y):
    b = x | 1
    c = (b - 1) & b
    d = b ^ ((b - 1) & U64)
    e = b & ((-b) & U64)
    g = ((-y) & U64) & y
    h = (((y * 3) & U64) - 1) & U64 & ((y * 3) & U64)
    n = 0
    while y:
        n += bsf(y)
        y &= y - 1
    k = x
    k = k ^ ((k - 1) & U64)
    # the left read of T fails first where x % 4 == 3
    t = ((T[x % 4] - 1) & U64) ^ T[x % 4]
    return (c + d * 3 + e * 5 + g * 7 + h * 11 + n * 13 + k * 17 + t) & U64
`, 2, false},
	{"lea_forms", `
def f(x, y):
    a = (x * 3 + 7) & U64
    b = (y * 5 - 2) & U64
    c = (9 * x + 0x7fffffff) & U64
    d = (y * 7) & U64
    e = (x * 3 - y) & U64
    y = (y * 9 + 1) & U64
    return (a ^ b ^ c ^ d ^ e ^ y ^ x) & U64
`, 2, false},
	{"constant_left_compare", `
def f(x, y):
    n = 0
    if 0 >= (y & 3):
        n += 1
    if 2 < (x & 7):
        n += 2
    if 5 <= (x ^ y) & 15:
        n += 4
    if 9 > (y | x) & 12:
        n += 8
    if (y & 3) >= 0:
        n += 16
    if 0 == (x & y & 1):
        n += 32
    return n + (64 if 3 >= (x & 3) else 0) + (128 if 1 != (y & 1) else 0)
`, 2, false},
	{"nonzero_facts", `
def f(x, y):
    n = 0
    while x:
        n += bsf(x)
        x &= x - 1
        if y:
            n += bsr(y)
            y >>= 3
        if x:
            n += bsf(x) * 2
        else:
            n += 1
    if y != 0:
        n += bsf(y)
    while y:
        y &= y - 1
        n += bsf(y)
    return n
`, 2, false},
	{"mul_by_constants", `
def f(x, y):
    a = (x * 3 + y * 5) & U64
    b = ((x * 9) & U64) ^ ((y * 8) & U64) ^ (x * 1) ^ ((y * 2) & U64) ^ ((x * 7) & U64)
    b ^= ((y * 0x7fffffff) & U64) ^ ((x * 0x80000000) & U64) ^ ((x * 0x9e3779b97f4a7c15) & U64)
    y = (y * 3) & U64
    x = (x * 16) & U64
    return (a + b + ((((y * x) & U64) * 5) & U64)) & U64
`, 2, false},
	{"update_in_place", `
def f(x, y):
    x = ((x ^ (x >> 30)) * 0xbf58476d1ce4e5b9) & U64
    y = (((y + x) & U64) ^ ((x << 3) & U64)) | 1
    h = x
    h = ((h * 31) & U64) ^ y
    h = (y - h) & U64
    h = (((h ^ y) + (h >> 5)) & U64) * 3 & U64
    h = (5 + ((h - 9) & U64)) & U64
    y ^= h
    return (h + x + y) & U64
`, 2, false},
	{"constant_ranges", `
def f(x):
    s = 0
    for i in range(10):
        s = (s * 3 + ((x >> i) & 7)) & U64
    for i in range(20, 3, -4):
        if (x >> i) & 1:
            continue
        s ^= i << 7
    for i in range(7):
        s += i
    s += i * 1000
    for j in range(5):
        j = j * 2
        s += j
    for k in range(1 << 40, (1 << 40) + 3):
        s = (s + k) & U64
    for k in range(3, 3):
        s += 1000
    for k in range(8):
        if (x >> (k * 5)) & 31 == 7:
            break
    return (s + k) & U64
`, 1, false},
	{"chess", `
def f(x, y):
    sq = x % 64
    a = chess.knight_attacks(sq) ^ chess.king_attacks(sq) * 3
    a ^= chess.pawn_attacks(sq, (y & 1) == 0) * 5 ^ chess.pawn_attacks(sq) * 7
    a ^= chess.rook_attacks(sq, y) * 11
    a ^= chess.bishop_attacks(sq, y) * 13 ^ chess.queen_attacks((x >> 6) % 64, y ^ chess.BB_RANK_1)
    if x & 0x10000:
        a ^= chess.rook_attacks(x >> 17, y)
    if x & 0x20000:
        a ^= chess.pawn_attacks(sq, y % 3)
    return (a + chess.E4) & U64
`, 2, false},
}

// Recursive cases cover calls of helpers that recurse: self and mutual
// recursion, many parameters, scratch arrays per call and passed by
// reference, tables passed to a helper, and checks failing deep down.
var Recursive = []Case{
	{"self", `
def fact(n):
    if n <= 1:
        return 1
    return n * fact(n - 1)
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
def f(x):
    return (fact(x % 25) + fib(x % 17)) & U64
`, 1, false},
	{"mutual", `
def even(n):
    return 1 if n == 0 else odd(n - 1)
def odd(n):
    if n == 0:
        return 0
    return even(n - 1)
def f(x):
    return even(x % 300) * 2 + odd(x % 77)
`, 1, false},
	{"fused_itself", `
def f(x):
    if x < 3:
        return x + 1
    if x > 5000:
        return f(x % 5000)
    return (f(x // 2) * 3 + f(x // 3) + 1) & U64
`, 1, false},
	{"sixteen_params", `
def h(a, b, c, d, e, f1, g, h1, i, j, k, l, m, n, o, p, depth):
    if depth == 0:
        return a ^ b * 3 ^ c * 5 ^ d * 7 ^ e * 11 ^ f1 * 13 ^ g * 17 ^ h1 * 19 ^ i * 23 ^ j * 29 ^ k * 31 ^ l * 37 ^ m * 41 ^ n * 43 ^ o * 47 ^ p * 53
    return h(b, c, d, e, f1, g, h1, i, j, k, l, m, n, o, p, (a + depth) & U64, depth - 1) & U64
def f(x, y):
    return h(x, y, x ^ y, x + 1, y + 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, x % 20) & U64
`, 2, false},
	{"frames_and_arrays", `
def gen(x, moves):
    n = 0
    for i in bits(x & 0xff):
        moves[n] = i * 3 + 1
        n += 1
    return n
def walk(x, depth):
    if depth == 0:
        return x & 7
    moves = [0] * 8
    seen = [0] * 4
    n = gen(x, moves)
    s = n + len(moves)
    for j in range(n):
        seen[j % 4] += 1
        s = (s * 31 + walk((x >> 3) ^ moves[j], depth - 1)) & U64
        s += moves[j] + seen[j % 4]
    return s & U64
def f(x):
    return walk(x, x % 4)
`, 1, false},
	{"table_argument", `
T = [5, 3, 8, 1, 9, 2, 7, 4]
R = [[1, 2], [3, 4, 5], [6]]
def total(t, i):
    if i == len(t):
        return 0
    return t[i] + total(t, i + 1)
def rows(r, i, acc):
    if i >= len(r):
        return acc
    return rows(r, i + 1, acc * 7 + r[i][len(r[i]) - 1])
def f(x):
    return total(T, x % 8) + rows(R, x % 3, x & 15)
`, 1, false},
	{"deep_failure", `
A = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
def down(i, k):
    if k == 0:
        return A[i]
    return down(i + 1, k - 1) + 1
def none(x):
    if x > 5:
        return x
def f(x):
    if x % 2:
        return none(x % 9)
    return down(0, x % 13)
`, 1, true},
}

// DeBruijnFind is Isenberg's De Bruijn generator written recursively, as
// docs/fuse.md fuses it: find counts the sequences of B(2, 6) below a node
// of the search, its first k branches following the bits of path.
const DeBruijnFind = `
def find(seq, depth, vtx, nz, lock, path, k):
    if (lock >> vtx) & 1 or nz > 32:
        return 0
    if depth == 0:
        return 1
    lock = lock | (1 << vtx)
    if vtx == 31 and depth > 2:
        return find(seq | (1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k)
    if k > 0:
        if path & 1:
            return find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1)
        return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1)
    return (find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
            find(seq | (1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0))
`

// Inputs returns n reproducible inputs of params words: small ones, 12-bit
// ones and full words.
func Inputs(n, params int, small bool) [][]uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	var out [][]uint64
	for i := 0; i < n; i++ {
		in := make([]uint64, params)
		for j := range in {
			switch {
			case small:
				in[j] = r.Uint64N(40)
			case i%3 == 0:
				in[j] = r.Uint64N(1 << 12)
			default:
				in[j] = r.Uint64()
			}
		}
		out = append(out, in)
	}
	return out
}
