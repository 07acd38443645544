// The C reference of bench/fuse_search.star: the magic check of docs/fuse.md
// (a candidate for the rook on d4 from splitmix64's finalizer, checked
// against every occupancy with a slot table stamped by the candidate's
// number: the epoch trick, so it is never cleared) over range(1 << 22), and
// the bit-serialising loop over 2^22 pseudo-random words. It prints ns per
// item of each, best of 5 rounds.
//
//   gcc -O2 -o /tmp/fuse_search bench/fuse_search.c && /tmp/fuse_search
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t mix(uint64_t x) {
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t occ[4096], att[4096], seen[4096], stamp[4096], mask;
static int nocc, bits;

static uint64_t rook_attacks(int sq, uint64_t o) {
	static const int d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
	uint64_t a = 0;
	for (int k = 0; k < 4; k++) {
		int f = sq % 8 + d[k][0], r = sq / 8 + d[k][1];
		while (f >= 0 && f < 8 && r >= 0 && r < 8) {
			uint64_t b = 1ull << (8 * r + f);
			a |= b;
			if (o & b) break;
			f += d[k][0];
			r += d[k][1];
		}
	}
	return a;
}

__attribute__((noipa)) static int is_magic(uint64_t i, uint64_t epoch) {
	uint64_t m = mix(3 * i) & mix(3 * i + 1) & mix(3 * i + 2);
	if (__builtin_popcountll((mask * m) >> 56) < 6) return 0;
	for (int j = 0; j < nocc; j++) {
		uint64_t k = (occ[j] * m) >> (64 - bits);
		if (stamp[k] != epoch) {
			stamp[k] = epoch;
			seen[k] = att[j];
		} else if (seen[k] != att[j])
			return 0;
	}
	return 1;
}

__attribute__((noipa)) static uint64_t serialise(uint64_t b) {
	uint64_t n = 0;
	while (b) {
		n += __builtin_ctzll(b);
		b &= b - 1;
	}
	return n;
}

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
	// The rook's relevant occupancy mask on d4 (square 27), without edges.
	for (int f = 1; f < 7; f++) if (f != 3) mask |= 1ull << (8 * 3 + f);
	for (int r = 1; r < 7; r++) if (r != 3) mask |= 1ull << (8 * r + 3);
	bits = __builtin_popcountll(mask);
	uint64_t s = 0;
	do {
		occ[nocc] = s;
		att[nocc] = rook_attacks(27, s);
		nocc++;
		s = (s - mask) & mask;
	} while (s);
	const uint64_t n = 1 << 22;
	double bestM = 1e9, bestS = 1e9;
	uint64_t hits = 0, sum = 0, epoch = 0;
	for (int round = 0; round < 5; round++) {
		double t = now();
		hits = 0;
		for (uint64_t i = 0; i < n; i++) hits += is_magic(i, ++epoch);
		t = (now() - t) * 1e9 / n;
		if (t < bestM) bestM = t;
		t = now();
		sum = 0;
		for (uint64_t i = 0; i < n; i++) sum += serialise(i * 0x9e3779b97f4a7c15ull);
		t = (now() - t) * 1e9 / n;
		if (t < bestS) bestS = t;
	}
	printf("magic check: %.2f ns per candidate (%llu magics in range(1 << 22))\n", bestM, (unsigned long long)hits);
	printf("serialise: %.2f ns per word (sum %llu)\n", bestS, (unsigned long long)sum);
	return 0;
}
