// The C reference of examples/magics.star: the same magic-bitboard search
// over the same candidate stream (random_words' generator, seed 0,
// sparse=3: xoshiro256** 1.0 seeded with the first four outputs of
// splitmix64, each candidate the AND of three draws, restarted for every
// square as find_magic is), with the same first-collision test (a slot
// table stamped with the candidate's number, so it is never cleared). It
// prints the example's table, so `diff` shows both found the same magics,
// and the search time on stderr.
//
//   gcc -O2 -o /tmp/magics bench/magics.c && /tmp/magics
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t sm64(uint64_t *x) {
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t s[4];

static uint64_t next(void) {
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
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
		uint64_t seed = 0, gen = 0, magic = 0;
		for (int i = 0; i < 4; i++) s[i] = sm64(&seed);
		for (int i = 0; i < 4096; i++) gens[i] = 0;
		for (;;) {
			uint64_t c = next() & next() & next();
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
