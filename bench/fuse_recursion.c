/* The C twin of bench/fuse_recursion.star: Isenberg's De Bruijn generator
   written recursively, the same function as docs/fuse.md's find, counting
   the sequences below the subtrees lo .. hi-1 of range(2^K) (all 2^26 with
   K = 10, lo = 0, hi = 1024). gcc -O2; prints leaves and ns per leaf. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef uint64_t u64;

static u64 find(u64 seq, u64 depth, u64 vtx, u64 nz, u64 lock, u64 path, u64 k) {
	if (((lock >> vtx) & 1) || nz > 32) return 0;
	if (depth == 0) return 1;
	lock |= (u64)1 << vtx;
	if (vtx == 31 && depth > 2)
		return find(seq | ((u64)1 << (depth - 1)), depth - 2, 62, nz + 1, lock, path, k);
	if (k > 0) {
		if (path & 1)
			return find(seq | ((u64)1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, path >> 1, k - 1);
		return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, path >> 1, k - 1);
	}
	return find(seq, depth - 1, (2 * vtx) & 63, nz + 1, lock, 0, 0) +
	       find(seq | ((u64)1 << (depth - 1)), depth - 1, (2 * vtx + 1) & 63, nz, lock, 0, 0);
}

int main(int argc, char **argv) {
	u64 K = argc > 1 ? strtoull(argv[1], 0, 0) : 13;
	u64 lo = argc > 2 ? strtoull(argv[2], 0, 0) : 1650;
	u64 hi = argc > 3 ? strtoull(argv[3], 0, 0) : 1660;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	u64 n = 0;
	for (u64 i = lo; i < hi; i++) n += find(0, 58, 0, 6, (u64)1 << 32, i, K);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("debruijn: %llu leaves: %.2f ns per leaf\n", (unsigned long long)n, ns / (double)n);
	return 0;
}
