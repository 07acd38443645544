// The C reference of examples/magics.star: the same magic-bitboard search
// over the same candidates (candidate i is the AND of splitmix64's
// finalizer at 3i, 3i+1 and 3i+2, from i = 0 for every square), with the
// same filter (at least 6 one bits in the top byte of mask * m) and the same
// first-collision test (a slot table stamped with the candidate's number,
// so it is never cleared). It prints the example's table, so `diff` shows
// both found the same magics, and the search time on stderr.
//
//   gcc -O2 -o /tmp/magics bench/magics.c && /tmp/magics
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t mix(uint64_t x) {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t slide(int sq, uint64_t occ, const int dirs[4][2]) {
	uint64_t a = 0;
	for (int d = 0; d < 4; d++) {
		int f = sq % 8 + dirs[d][0], r = sq / 8 + dirs[d][1];
		while (f >= 0 && f < 8 && r >= 0 && r < 8) {
			uint64_t bit = 1ull << (8 * r + f);
			a |= bit;
			if (occ & bit) break;
			f += dirs[d][0];
			r += dirs[d][1];
		}
	}
	return a;
}

static uint64_t mask(int sq, const int dirs[4][2]) {
	const uint64_t fileA = 0x0101010101010101ull, rank1 = 0xff;
	uint64_t edges = ((rank1 | rank1 << 56) & ~(rank1 << (8 * (sq / 8)))) |
	                 ((fileA | fileA << 7) & ~(fileA << (sq % 8)));
	return slide(sq, 0, dirs) & ~edges;
}

static const int rook[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
static uint64_t keys[4096], vals[4096], gens[4096], tags[4096];

static void search(const char *name, const int dirs[4][2]) {
	int total = 0;
	printf("%s  sq  bits  magic\n", name);
	for (int sq = 0; sq < 64; sq++) {
		uint64_t m = mask(sq, dirs), occ = 0;
		int bits = __builtin_popcountll(m), n = 0;
		do {
			keys[n] = occ;
			vals[n++] = slide(sq, occ, dirs);
			occ = (occ - m) & m;
		} while (occ);
		uint64_t gen = 0, magic = 0;
		for (int i = 0; i < 4096; i++) gens[i] = 0;
		for (uint64_t ci = 0;; ci++) {
			uint64_t c = mix(3 * ci) & mix(3 * ci + 1) & mix(3 * ci + 2);
			if (__builtin_popcountll((m * c) >> 56) < 6) continue;
			int ok = 1;
			gen++;
			for (int i = 0; i < n; i++) {
				uint64_t h = keys[i] * c >> (64 - bits);
				if (gens[h] != gen) {
					gens[h] = gen;
					tags[h] = vals[i];
				} else if (tags[h] != vals[i]) {
					ok = 0;
					break;
				}
			}
			if (ok) {
				magic = c;
				break;
			}
		}
		total += 1 << bits;
		printf("%s  %c%c  %4d  0x%016llx\n", name, 'a' + sq % 8, '1' + sq / 8, bits,
		       (unsigned long long)magic);
	}
	printf("%s: 64 magics, %d table entries\n", name, total);
}

int main(void) {
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	search("rook", rook);
	search("bishop", bishop);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "magics.c %.1f ms\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
	return 0;
}
