/* C references for the flips of builtins/endgame (the packed-index flip puzzle), n = 5 pieces.
 * Prints "label ns_per_op" lines for bench/compare.sh; one op is one flip of
 * one packed index. Two styles, as in the Go benchmarks:
 *   endgame_{nat,sym}_flip_{horizontal,vertical,diag}_5        loop-free flips
 *   endgame_table_{nat,sym}_flip_{horizontal,vertical,diag}_5  per-piece table lookup
 * The piece count is read from a volatile so the masks are not compile-time
 * constants (as in Go, where they live in an endgame.Layout). Each iteration
 * flips four different indices (x, x+1, x+2, x+3 with x = i & mask, i
 * stepping by 4) and adds the results into an accumulator, as the Go
 * benchmarks do; an empty asm statement keeps each flip's result in a
 * register, so gcc neither folds nor vectorises; the accumulator goes to a
 * volatile sink. Before timing, every flip is checked against the table
 * lookup on all 2-piece indices.
 * Build: gcc -O2 -o endgame endgame.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t U64;

volatile U64 sink;
volatile unsigned pieces = 5;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Masks of an n-piece layout (s = 3n). */
struct layout {
	unsigned s;
	U64 lo;     /* low half */
	U64 r1;     /* bit 0 of every low group */
};

static struct layout mk(unsigned n) {
	struct layout l;
	l.s = 3 * n;
	l.lo = ((U64)1 << l.s) - 1;
	l.r1 = (U64)01111111111 & l.lo;
	return l;
}

/* Natural numbering: high half = ranks, low half = files. */
static inline U64 nat_h(U64 x, struct layout l) { return x ^ (l.lo << l.s); }
static inline U64 nat_v(U64 x, struct layout l) { return x ^ l.lo; }
static inline U64 nat_d(U64 x, struct layout l) { return x >> l.s | (x & l.lo) << l.s; }

/* Symmetric numbering: only the low groups change. */
static inline U64 sym_h(U64 x, struct layout l) { return x ^ (l.r1 << 2); }
static inline U64 sym_v(U64 x, struct layout l) { return x ^ (l.r1 << 1); }
static inline U64 sym_d(U64 x, struct layout l) {
	U64 u = x >> 1;
	U64 t = (x ^ u) & (l.r1 << 1); /* swap bits 1 and 2 of every low group */
	return x ^ t ^ t << 1 ^ (~(x & u) >> (l.s + 1) & l.r1); /* bit 0 ^= NOT(hi1 & hi2) */
}

/* Per-piece tables: tab[numbering][k][sq], k = 0 horizontal, 1 vertical, 2 diag. */
static uint8_t tab[2][3][64];

struct fr { int f, r; };

static struct fr apply(int k, struct fr p) {
	struct fr q = p;
	if (k == 0) q.r = 7 - p.r;
	if (k == 1) q.f = 7 - p.f;
	if (k == 2) { q.f = p.r; q.r = p.f; }
	return q;
}

/* The symmetric numbering from first principles (as builtins/endgame's
 * tests): high digit = orbit, low digit = 4h + 2v + d. */
static int symsq[8][8]; /* [rank][file] */
static struct fr symfr[64];

static void build(void) {
	static const struct fr base[8][2] = {
		{{1, 0}, {1, 0}}, {{2, 0}, {2, 0}}, {{3, 0}, {3, 0}}, {{2, 1}, {2, 1}},
		{{3, 1}, {3, 1}}, {{3, 2}, {3, 2}}, {{0, 0}, {1, 1}}, {{2, 2}, {3, 3}},
	};
	for (int sq = 0; sq < 64; sq++) {
		int hi = sq >> 3, lo = sq & 7;
		struct fr p = base[hi][hi >= 6 ? (lo & 1) : 0];
		if (hi < 6 && (lo & 1)) p = apply(2, p);
		if (lo & 2) p = apply(1, p);
		if (lo & 4) p = apply(0, p);
		symfr[sq] = p;
		symsq[p.r][p.f] = sq;
	}
	for (int k = 0; k < 3; k++)
		for (int sq = 0; sq < 64; sq++) {
			struct fr p = apply(k, (struct fr){sq & 7, sq >> 3});
			tab[0][k][sq] = (uint8_t)(8 * p.r + p.f);
			p = apply(k, symfr[sq]);
			tab[1][k][sq] = (uint8_t)symsq[p.r][p.f];
		}
}

static inline U64 table_flip(U64 x, unsigned n, const uint8_t *t) {
	unsigned s = 3 * n;
	U64 out = 0;
	for (unsigned sh = 0; sh < s; sh += 3) {
		unsigned sq = (unsigned)(x >> sh & 7) | (unsigned)(x >> (s + sh) & 7) << 3;
		U64 v = t[sq];
		out |= (v & 7) << sh | (v >> 3) << (s + sh);
	}
	return out;
}

#define BARRIER(v) __asm__ volatile("" : "+r"(v))

#define LOOPFREE(label, f)                                            \
	do {                                                              \
		struct layout l = mk(pieces);                                 \
		U64 mask = ((U64)1 << (6 * pieces)) - 1;                      \
		double best = 1e300;                                          \
		for (int rep = 0; rep < 3; rep++) {                           \
			const long N = 1L << 27;                                  \
			U64 acc = 0;                                              \
			double t0 = now();                                        \
			for (long i = 0; i < N; i += 4) {                         \
				U64 x = (U64)i & mask;                                \
				U64 a = f(x, l), b = f(x + 1, l);                     \
				U64 c = f(x + 2, l), d = f(x + 3, l);                 \
				BARRIER(a); BARRIER(b); BARRIER(c); BARRIER(d);       \
				acc += a + b + c + d;                                 \
			}                                                         \
			double t = (now() - t0) / N;                              \
			sink = acc;                                               \
			if (t < best) best = t;                                   \
		}                                                             \
		printf("%s %.4f\n", label, best);                             \
	} while (0)

static void table(const char *label, int m, int k) {
	unsigned n = pieces;
	U64 mask = ((U64)1 << (6 * n)) - 1;
	double best = 1e300;
	for (int rep = 0; rep < 3; rep++) {
		const long N = 1L << 23;
		U64 acc = 0;
		double t0 = now();
		for (long i = 0; i < N; i += 4) {
			U64 x = (U64)i & mask;
			U64 a = table_flip(x, n, tab[m][k]), b = table_flip(x + 1, n, tab[m][k]);
			U64 c = table_flip(x + 2, n, tab[m][k]), d = table_flip(x + 3, n, tab[m][k]);
			BARRIER(a); BARRIER(b); BARRIER(c); BARRIER(d);
			acc += a + b + c + d;
		}
		double t = (now() - t0) / N;
		sink = acc;
		if (t < best) best = t;
	}
	printf("%s %.4f\n", label, best);
}

static void check(void) {
	struct layout l = mk(2);
	for (U64 x = 0; x < 4096; x++) {
		U64 got[2][3] = {{nat_h(x, l), nat_v(x, l), nat_d(x, l)},
		                 {sym_h(x, l), sym_v(x, l), sym_d(x, l)}};
		for (int m = 0; m < 2; m++)
			for (int k = 0; k < 3; k++)
				if (got[m][k] != table_flip(x, 2, tab[m][k])) {
					fprintf(stderr, "endgame.c: flip %d of %04llo in numbering %d is wrong\n",
					        k, (unsigned long long)x, m);
					exit(1);
				}
	}
	if (symsq[0][0] != 060 || symsq[3][4] != 073 || symsq[7][7] != 066) {
		fprintf(stderr, "endgame.c: symmetric numbering is wrong\n");
		exit(1);
	}
}

int main(void) {
	build();
	check();
	LOOPFREE("endgame_nat_flip_horizontal_5", nat_h);
	LOOPFREE("endgame_nat_flip_vertical_5", nat_v);
	LOOPFREE("endgame_nat_flip_diag_5", nat_d);
	LOOPFREE("endgame_sym_flip_horizontal_5", sym_h);
	LOOPFREE("endgame_sym_flip_vertical_5", sym_v);
	LOOPFREE("endgame_sym_flip_diag_5", sym_d);
	table("endgame_table_nat_flip_horizontal_5", 0, 0);
	table("endgame_table_nat_flip_vertical_5", 0, 1);
	table("endgame_table_nat_flip_diag_5", 0, 2);
	table("endgame_table_sym_flip_horizontal_5", 1, 0);
	table("endgame_table_sym_flip_vertical_5", 1, 1);
	table("endgame_table_sym_flip_diag_5", 1, 2);
	return 0;
}
