/* C references for builtins/debruijn (documents 001, 002).
 * Prints "label ns_per_op" lines for bench/compare.sh:
 *   debruijn_bsf      one De Bruijn bitscan (serialising the bits of words)
 *   debruijn_enum64   one 64-bit magic of the full enumeration of all 2^26,
 *                     by the backtracking search of document 002 (written
 *                     anew here in C: lock the windows in use, place the
 *                     even successor before the odd one, allow at most 32
 *                     zeros, reserve window 32 = 100000b for the wrap-around)
 * Build: gcc -O2 -o debruijn debruijn.c */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t U64;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

volatile U64 sink;

/* ---- bitscan ---- */
static const U64 magic = 0x03f79d71b4cb0a89ULL;
static unsigned char table[64];

static inline int bsf(U64 x) { return table[((x & (0 - x)) * magic) >> 58]; }

/* ---- enumeration ---- */
static U64 lock;
static long found;
static U64 acc;

static void search(U64 seq, int depth, int win, int zeros) {
	if ((lock >> win) & 1 || zeros > 32)
		return;
	if (depth == 0) {
		found++;
		acc += seq;
		return;
	}
	lock ^= (U64)1 << win;
	if (win == 31 && depth > 2) {
		/* 011111 can only go on to 111111 and then to 111110 */
		search(seq | (U64)1 << (depth - 1), depth - 2, 62, zeros + 1);
	} else {
		search(seq, depth - 1, (2 * win) & 63, zeros + 1);
		search(seq | (U64)1 << (depth - 1), depth - 1, (2 * win + 1) & 63, zeros);
	}
	lock ^= (U64)1 << win;
}

int main(int argc, char **argv) {
	int skip_enum = argc > 1 && argv[1][0] == 'q';
	{
		for (int i = 0; i < 64; i++)
			table[((magic << i)) >> 58] = i;
		const U64 words[4] = {0x8142241818244281ULL, 0xffffffffffffffffULL, 0x0123456789abcdefULL,
				      0xa5a5a5a5a5a5a5a5ULL};
		long ops = 0;
		U64 sum = 0;
		double t0 = now();
		for (int round = 0; round < 4000000; round++) {
			for (U64 b = words[round & 3]; b; b &= b - 1) {
				sum += bsf(b);
				ops++;
			}
		}
		double t1 = now();
		sink = sum;
		printf("debruijn_bsf %.4f\n", (t1 - t0) / ops);
	}
	if (!skip_enum) {
		lock = (U64)1 << 32;
		double t0 = now();
		search(0, 64 - 6, 0, 6);
		double t1 = now();
		sink = acc;
		if (found != 1L << 26)
			fprintf(stderr, "debruijn_enum64: found %ld, want %ld\n", found, 1L << 26);
		printf("debruijn_enum64 %.4f\n", (t1 - t0) / found);
	}
	return 0;
}
