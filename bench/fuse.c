/* C references for fused functions (builtins/fuse): the loops a C
 * programmer would write by hand for the benchmarks of
 * builtins/fuse/bench_test.go. Prints "label ns_per_op" lines for
 * bench/compare.sh.
 *   fuse_count_popcount: one op is one item of counting the s in
 *     range(2^28) with popcount(s & 0x2a5a5a) == 3, on as many threads as
 *     the machine has cores (Go's benchmark runs GOMAXPROCS workers).
 *   fuse_map3: one op is one word of out[i] = (x ^ x >> 7) * K over 2^20
 *     words, one thread.
 * The popcnt instruction is enabled below, as Go uses it (after a CPU
 * check), so that the comparison is of loops, not of popcount emulation.
 * Build: gcc -O2 -o fuse fuse.c (glibc 2.34+ has pthreads in libc). */
#pragma GCC target("popcnt")
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef uint64_t U64;

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct part {
	U64 lo, hi, count;
};

static void *count_part(void *arg) {
	struct part *p = arg;
	U64 n = 0;
	for (U64 s = p->lo; s < p->hi; s++)
		n += __builtin_popcountll(s & 0x2a5a5a) == 3;
	p->count = n;
	return NULL;
}

volatile U64 sink;

int main(void) {
	{
		const U64 N = (U64)1 << 28;
		long threads = sysconf(_SC_NPROCESSORS_ONLN);
		if (threads < 1)
			threads = 1;
		pthread_t tid[256];
		struct part parts[256];
		if (threads > 256)
			threads = 256;
		double t0 = now();
		for (long t = 0; t < threads; t++) {
			parts[t].lo = N / threads * t;
			parts[t].hi = t == threads - 1 ? N : N / threads * (t + 1);
			pthread_create(&tid[t], NULL, count_part, &parts[t]);
		}
		U64 total = 0;
		for (long t = 0; t < threads; t++) {
			pthread_join(tid[t], NULL);
			total += parts[t].count;
		}
		double t1 = now();
		sink = total;
		printf("fuse_count_popcount %.3f\n", (t1 - t0) / N);
	}
	{
		enum { n = 1 << 20, rounds = 64 };
		U64 *in = malloc(n * sizeof(U64)), *out = malloc(n * sizeof(U64));
		for (U64 i = 0; i < n; i++)
			in[i] = i * 0x5851f42d4c957f2dULL;
		double t0 = now();
		for (int r = 0; r < rounds; r++) {
			for (U64 i = 0; i < n; i++) {
				U64 x = in[i];
				out[i] = (x ^ x >> 7) * 0x9e3779b97f4a7c15ULL;
			}
			sink = out[r];
		}
		double t1 = now();
		printf("fuse_map3 %.3f\n", (t1 - t0) / ((double)n * rounds));
	}
	return 0;
}
