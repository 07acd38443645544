/* C references for builtins/debruijn (the Chess Programming Wiki's De Bruijn pages).
 * Prints "label ns_per_op" lines for bench/compare.sh:
 *   debruijn_bsf      one De Bruijn bitscan (serialising the bits of words)
 *   debruijn_enum64   one 64-bit magic of the full enumeration of all 2^26,
 *                     by the backtracking search of Isenberg's De Bruijn generator (written
 *                     anew here in C: lock the windows in use, place the
 *                     even successor before the odd one, allow at most 32
 *                     zeros, reserve window 32 = 100000b for the wrap-around)
 *   debruijn_enum64_chains  the same enumeration by the algorithm of
 *                     builtins/debruijn's Iter (twin pairs, chains of fixed
 *                     successors merged and unmerged at their ends), for a
 *                     like-for-like ratio
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

/* ---- enumeration by chains (builtins/debruijn.Iter in C) ---- */
static signed char tailOf[64], headOf[64], csize[64], zoff[64];
static U64 val[64];

static int link_(int a, int b) {
	int h = headOf[a], e = tailOf[b];
	if (h == b)
		return csize[a];
	int sa = csize[a], sb = csize[e], z = zoff[a];
	if (z < 0 && zoff[e] >= 0)
		z = sa + zoff[e];
	val[e] |= val[a] << sb;
	csize[e] = sa + sb;
	zoff[e] = z;
	headOf[e] = h;
	tailOf[h] = e;
	return 0;
}

static void unlink_(int a, int b) {
	int h = headOf[a], e = tailOf[b];
	int sa = csize[a], sb = csize[e] - sa;
	tailOf[h] = a;
	headOf[e] = b;
	csize[e] = sb;
	val[e] &= ((U64)1 << sb) - 1;
	if (zoff[a] >= 0)
		zoff[e] = -1;
	else if (zoff[e] >= 0)
		zoff[e] -= sa;
}

static long chains(void) {
	struct { unsigned char y, try; } fr[33];
	long n = 0;
	U64 sum = 0;
	for (int x = 0; x < 64; x++) {
		tailOf[x] = headOf[x] = x;
		csize[x] = 1;
		val[x] = x & 1;
		zoff[x] = -1;
	}
	zoff[0] = 0;
	link_(0, 1);
	link_(32, 0);
	int k = 0;
	fr[0].y = 1;
	fr[0].try = 0;
	for (;;) {
		if (fr[k].try == 2) {
			if (k == 0)
				break;
			k--;
			int c = ((fr[k].y << 1) | (fr[k].try - 1)) & 63;
			unlink_(fr[k].y ^ 32, c ^ 1);
			unlink_(fr[k].y, c);
			continue;
		}
		int b = fr[k].try++;
		int y = fr[k].y, t = y ^ 32, c = ((y << 1) | b) & 63;
		if (link_(y, c))
			continue;
		int tail = tailOf[c];
		if (tail == t)
			tail = tailOf[c ^ 1];
		int cyc = link_(t, c ^ 1);
		if (cyc) {
			if (cyc == 64) {
				U64 v = val[t];
				int z = zoff[t];
				U64 r = z ? (v << z | v >> (64 - z)) : v;
				sum += r >> 5;
				if (++n == 4061955 && r >> 5 != 0x022fdd63cc95386dULL)
					fprintf(stderr, "debruijn_enum64_chains: magic 4061955 is %#llx\n", (unsigned long long)(r >> 5));
			}
			unlink_(y, c);
			continue;
		}
		k++;
		fr[k].y = tail;
		fr[k].try = 0;
	}
	sink = sum;
	return n;
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
		t0 = now();
		long n = chains();
		t1 = now();
		if (n != 1L << 26)
			fprintf(stderr, "debruijn_enum64_chains: found %ld, want %ld\n", n, 1L << 26);
		printf("debruijn_enum64_chains %.4f\n", (t1 - t0) / n);
	}
	return 0;
}
