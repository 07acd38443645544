/* The C twin of magic.star: rook magics found by trial with the same
   xorshift generator and squares. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

static uint64_t seed = 0x9E3779B97F4A7C15ULL;
static const int DIRS[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};

static uint64_t rand64(void) {
	uint64_t x = seed;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return seed = x;
}

static int count_bits(uint64_t x) {
	int n = 0;
	for (; x; n++)
		x &= x - 1;
	return n;
}

static uint64_t rook_mask(int sq) {
	int r = sq / 8, f = sq % 8;
	uint64_t m = 0;
	for (int d = 0; d < 4; d++) {
		int dr = DIRS[d][0], df = DIRS[d][1], rr = r + dr, ff = f + df;
		while (0 <= rr + dr && rr + dr < 8 && 0 <= ff + df && ff + df < 8) {
			m |= (uint64_t)1 << (rr * 8 + ff);
			rr += dr, ff += df;
		}
	}
	return m;
}

static uint64_t rook_attacks(int sq, uint64_t occ) {
	int r = sq / 8, f = sq % 8;
	uint64_t a = 0;
	for (int d = 0; d < 4; d++) {
		int dr = DIRS[d][0], df = DIRS[d][1], rr = r + dr, ff = f + df;
		while (0 <= rr && rr < 8 && 0 <= ff && ff < 8) {
			a |= (uint64_t)1 << (rr * 8 + ff);
			if ((occ >> (rr * 8 + ff)) & 1)
				break;
			rr += dr, ff += df;
		}
	}
	return a;
}

static uint64_t find_magic(int sq) {
	static uint64_t occs[4096], atts[4096], used[4096];
	static long epoch[4096];
	uint64_t mask = rook_mask(sq), sub = 0;
	int bits = count_bits(mask), n = 0;
	do {
		occs[n] = sub;
		atts[n++] = rook_attacks(sq, sub);
		sub = (sub - mask) & mask;
	} while (sub);
	int shift = 64 - bits;
	for (int i = 0; i < (1 << bits); i++)
		epoch[i] = 0;
	for (long tries = 0;;) {
		uint64_t magic = rand64() & rand64() & rand64();
		if (count_bits((mask * magic) >> 56) < 6)
			continue;
		tries++;
		int ok = 1;
		for (int i = 0; i < n; i++) {
			uint64_t idx = (occs[i] * magic) >> shift;
			if (epoch[idx] != tries) {
				epoch[idx] = tries;
				used[idx] = atts[i];
			} else if (used[idx] != atts[i]) {
				ok = 0;
				break;
			}
		}
		if (ok)
			return magic;
	}
}

int main(void) {
	uint64_t acc = 0;
	int n = 0;
	for (int sq = 1; sq < 64; sq += 9, n++)
		acc ^= find_magic(sq);
	printf("%d 0x%llx\n", n, (unsigned long long)acc);
	return 0;
}
