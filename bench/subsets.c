/* C references for the subset kernels of builtins/subset (the Chess Programming Wiki, Traversing Subsets of a Set).
 * Prints "label ns_per_op" lines for bench/compare.sh; one op is one subset.
 * Build: gcc -O2 -o subsets subsets.c */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

typedef uint64_t U64;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* next greater subset of set with as many bits as x; 0 when none
 * (the same carry-ripple-then-refill method as subset.Snoob) */
static inline U64 snoob(U64 x, U64 set) {
	U64 l = x & (0 - x), s, r, ones, m;
	if (__builtin_add_overflow(x | ~set, l, &s))
		return 0;
	r = s & set;
	ones = x & ~r;
	ones &= ones - 1;
	for (m = set; ones; ones &= ones - 1) {
		r |= m & (0 - m);
		m &= m - 1;
	}
	return r;
}

volatile U64 sink;

int main(void) {
	/* carry-rippler over a 28-bit set: 2^28 subsets, 4 rounds */
	{
		const U64 d = (U64)0x0fffffff << 20;
		U64 n = 0, acc = 0;
		long ops = 0;
		double t0 = now();
		for (int round = 0; round < 4; round++) {
			do {
				n = (n - d) & d;
				acc += n;
				ops++;
			} while (n);
		}
		double t1 = now();
		sink = acc;
		printf("carry_rippler28 %.4f\n", (t1 - t0) / ops);
	}
	/* snoob over the 6-subsets of a 48-bit set: C(48,6) = 12271512, 8 rounds */
	{
		const U64 set = (U64)0x0000ffffffffffff << 8;
		U64 first = 0, m = set, acc = 0;
		for (int k = 0; k < 6; k++) {
			first |= m & (0 - m);
			m &= m - 1;
		}
		long ops = 0;
		double t0 = now();
		for (int round = 0; round < 8; round++) {
			U64 x = first;
			do {
				acc += x;
				ops++;
			} while ((x = snoob(x, set)) != 0);
		}
		double t1 = now();
		sink = acc;
		if (ops != 8L * 12271512)
			fprintf(stderr, "snoob48x6: %ld subsets, want %ld\n", ops, 8L * 12271512);
		printf("snoob48x6 %.4f\n", (t1 - t0) / ops);
	}
	return 0;
}
