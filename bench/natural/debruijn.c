/* The C twin of debruijn.star: Isenberg's generator, stopped at the LIMIT-th
   sequence. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

#define LIMIT (1 << 18)
static uint64_t pow2[64], lock;
static long count;
static uint64_t found;

static void find(uint64_t seq, int depth, int vtx, int nz) {
	if (count >= LIMIT)
		return;
	if ((lock & pow2[vtx]) == 0 && nz <= 32) {
		if (depth == 0) {
			if (++count == LIMIT)
				found = seq;
		} else {
			lock ^= pow2[vtx];
			if (vtx == 31 && depth > 2) {
				find(seq | pow2[depth - 1], depth - 2, 62, nz + 1);
			} else {
				find(seq, depth - 1, (2 * vtx) & 63, nz + 1);
				find(seq | pow2[depth - 1], depth - 1, (2 * vtx + 1) & 63, nz);
			}
			lock ^= pow2[vtx];
		}
	}
}

int main(void) {
	for (int i = 0; i < 64; i++)
		pow2[i] = (uint64_t)1 << i;
	lock = pow2[32];
	find(0, 64 - 6, 0, 6);
	printf("%ld 0x%llx\n", count, (unsigned long long)found);
	return 0;
}
