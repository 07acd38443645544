/* C references for builtins/words (docs/words.md, word arrays).
 * Prints "label ns_per_op" lines for bench/compare.sh. One op is one word
 * of 2^20-word arrays (8 MiB each), as in builtins/words/bench_test.go;
 * words_find_magic_candidate's op is one candidate of a magic search.
 * Each kernel is a plain loop in a function of its own taking pointers and
 * a length, as the Go kernels do; gcc -O2 (12: vectorising with its
 * "very cheap" model) does what it will with them.
 * Build: gcc -O2 -o words words.c */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef uint64_t U64;
#define N (1 << 20)
#define PASSES 64
/* noipa as well as noinline: gcc's interprocedural constant propagation
 * (on at -O2) would otherwise compile opw_div for the one divisor it is
 * called with, a multiply by a reciprocal fixed at compile time, and the
 * shifts for the constant 7. bitsh gets the word at run time, from the
 * script: the reference loop must too. */
#define NOINLINE __attribute__((noinline, noipa))

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

volatile U64 sink;
static U64 A[N], B[N], D[N];

/* splitmix64.c and xoshiro256starstar.c of prng.di.unimi.it (Blackman and
 * Vigna), the generator of random_words and find_magic */
static U64 sm_next(U64 *x) {
	U64 z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static inline U64 rotl(U64 x, int k) { return (x << k) | (x >> (64 - k)); }
typedef struct { U64 s[4]; } Rand;
static void rand_seed(Rand *r, U64 seed) {
	for (int i = 0; i < 4; i++) r->s[i] = sm_next(&seed);
}
static inline U64 rand_next(Rand *r) {
	U64 *s = r->s;
	const U64 result = rotl(s[1] * 5, 7) * 9;
	const U64 t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

#define BINOP(name, expr)                                                   \
	NOINLINE static void name(U64 *d, const U64 *a, const U64 *b, long n) { \
		for (long i = 0; i < n; i++) d[i] = (expr);                         \
	}
BINOP(op_add, a[i] + b[i])
BINOP(op_sub, a[i] - b[i])
BINOP(op_mul, a[i] * b[i])
BINOP(op_and, a[i] & b[i])
BINOP(op_or, a[i] | b[i])
BINOP(op_xor, a[i] ^ b[i])
BINOP(op_shl, b[i] >= 64 ? 0 : a[i] << b[i])
BINOP(op_shr, b[i] >= 64 ? 0 : a[i] >> b[i])
BINOP(op_eq, a[i] == b[i])
BINOP(op_lt, a[i] < b[i])

/* division stops at a zero divisor, as the Go kernel does */
NOINLINE static long op_div(U64 *d, const U64 *a, const U64 *b, long n) {
	for (long i = 0; i < n; i++) {
		if (b[i] == 0) return i;
		d[i] = a[i] / b[i];
	}
	return -1;
}
NOINLINE static long op_mod(U64 *d, const U64 *a, const U64 *b, long n) {
	for (long i = 0; i < n; i++) {
		if (b[i] == 0) return i;
		d[i] = a[i] % b[i];
	}
	return -1;
}

#define WORDOP(name, expr)                                                 \
	NOINLINE static void name(U64 *d, const U64 *a, U64 x, long n) { \
		for (long i = 0; i < n; i++) d[i] = (expr);                        \
	}
WORDOP(opw_add, a[i] + x)
WORDOP(opw_mul, a[i] * x)
WORDOP(opw_and, a[i] & x)
WORDOP(opw_shl, x >= 64 ? 0 : a[i] << x)
WORDOP(opw_shr, x >= 64 ? 0 : a[i] >> x)
WORDOP(opw_div, a[i] / x)
WORDOP(opw_mod, a[i] % x)
WORDOP(opw_eq, a[i] == x)

NOINLINE static void op_not(U64 *d, const U64 *a, long n) {
	for (long i = 0; i < n; i++) d[i] = ~a[i];
}
NOINLINE static void op_neg(U64 *d, const U64 *a, long n) {
	for (long i = 0; i < n; i++) d[i] = -a[i];
}

/* exact sum: 128 bits */
NOINLINE static unsigned __int128 red_sum(const U64 *a, long n) {
	unsigned __int128 s = 0;
	for (long i = 0; i < n; i++) s += a[i];
	return s;
}
NOINLINE static U64 red_min(const U64 *a, long n) {
	U64 m = a[0];
	for (long i = 0; i < n; i++) m = a[i] < m ? a[i] : m;
	return m;
}
NOINLINE static U64 red_max(const U64 *a, long n) {
	U64 m = a[0];
	for (long i = 0; i < n; i++) m = a[i] > m ? a[i] : m;
	return m;
}
NOINLINE static long red_count(const U64 *a, long n) {
	long c = 0;
	for (long i = 0; i < n; i++) c += a[i] != 0;
	return c;
}
NOINLINE static int red_all(const U64 *a, long n) {
	for (long i = 0; i < n; i++)
		if (a[i] == 0) return 0;
	return 1;
}
NOINLINE static long red_index(const U64 *a, long n, U64 x) {
	for (long i = 0; i < n; i++)
		if (a[i] == x) return i;
	return -1;
}
NOINLINE static long op_filter(U64 *d, const U64 *a, const U64 *m, long n) {
	long k = 0;
	for (long i = 0; i < n; i++)
		if (m[i]) d[k++] = a[i];
	return k;
}

/* One candidate of a magic search, as words.Checker tests it: slots
 * stamped with the candidate's number, stop at the first collision. */
typedef struct { U64 gen, tag; } Slot;
static Slot table[1 << 12];
static U64 keys[4096];
static long nkeys;
static U64 gen;
static inline int check(U64 magic, unsigned shift) {
	gen++;
	for (long i = 0; i < nkeys; i++) {
		Slot *e = &table[(keys[i] * magic) >> shift];
		if (e->gen != gen) {
			e->gen = gen;
			e->tag = keys[i];
		} else if (e->tag != keys[i]) {
			return 0;
		}
	}
	return 1;
}

#define TIME(label, stmt)                                      \
	do {                                                       \
		double t0 = now();                                     \
		for (int p = 0; p < PASSES; p++) { stmt; }             \
		printf("%s %.4f\n", label, (now() - t0) / ((double)PASSES * N)); \
	} while (0)

int main(void) {
	U64 x = 1;
	for (long i = 0; i < N; i++) {
		A[i] = sm_next(&x);
		U64 r = sm_next(&x);
		B[i] = (r >> (sm_next(&x) % 64)) | 1;
	}
	TIME("words_add", op_add(D, A, B, N));
	TIME("words_sub", op_sub(D, A, B, N));
	TIME("words_mul", op_mul(D, A, B, N));
	TIME("words_and", op_and(D, A, B, N));
	TIME("words_or", op_or(D, A, B, N));
	TIME("words_xor", op_xor(D, A, B, N));
	TIME("words_shl", op_shl(D, A, B, N));
	TIME("words_shr", op_shr(D, A, B, N));
	TIME("words_div", sink += op_div(D, A, B, N));
	TIME("words_mod", sink += op_mod(D, A, B, N));
	TIME("words_add_word", opw_add(D, A, 12345, N));
	TIME("words_mul_word", opw_mul(D, A, 0x9e3779b97f4a7c15ULL, N));
	TIME("words_and_word", opw_and(D, A, 0xff00ff00ff00ff00ULL, N));
	TIME("words_shl_word", opw_shl(D, A, 7, N));
	TIME("words_shr_word", opw_shr(D, A, 7, N));
	TIME("words_div_word", opw_div(D, A, 1000003, N));
	TIME("words_mod_word", opw_mod(D, A, 1000003, N));
	TIME("words_not", op_not(D, A, N));
	TIME("words_neg", op_neg(D, A, N));
	TIME("words_eq", op_eq(D, A, B, N));
	TIME("words_lt", op_lt(D, A, B, N));
	TIME("words_eq_word", opw_eq(D, A, 3, N));
	TIME("words_sum", { unsigned __int128 s = red_sum(A, N); sink += (U64)s ^ (U64)(s >> 64); });
	TIME("words_min", sink += red_min(A, N));
	TIME("words_max", sink += red_max(A, N));
	op_eq(D, A, B, N);
	TIME("words_count", sink += red_count(D, N));
	TIME("words_all", sink += red_all(B, N));
	TIME("words_index", sink += red_index(A, N, 0));
	{
		static U64 M[N];
		for (long i = 0; i < N; i++) M[i] = A[i] < (1ULL << 63);
		TIME("words_filter", sink += op_filter(D, A, M, N));
	}
	{
		/* the rook's 4096 occupancies on a1, hashed to 12 bits */
		const U64 mask = 0x000101010101017eULL;
		U64 n = 0;
		do {
			keys[nkeys++] = n;
			n = (n - mask) & mask;
		} while (n);
		Rand r;
		rand_seed(&r, 0);
		const long cands = 4000000;
		long good = 0;
		double t0 = now();
		for (long c = 0; c < cands; c++) {
			U64 m = rand_next(&r) & rand_next(&r) & rand_next(&r);
			good += check(m, 64 - 12);
		}
		printf("words_find_magic_candidate %.4f\n", (now() - t0) / cands);
		sink += good;
	}
	return 0;
}
