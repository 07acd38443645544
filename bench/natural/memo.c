/* The C twin of memo.star: the longest Collatz chain below 100,000, a
   recursive steps(n) with a memo table filled as it goes (open addressing,
   linear probing, multiplicative hashing, doubled when half full). gcc -O2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t *keys, *vals;
static uint64_t mask, used;

static uint64_t *slot(uint64_t k) {
	uint64_t i = (k * 0x9E3779B97F4A7C15ull) >> 40 & mask;
	while (keys[i] != 0 && keys[i] != k)
		i = (i + 1) & mask;
	return &keys[i];
}

static void put(uint64_t k, uint64_t v);

static void grow(void) {
	uint64_t *ok = keys, *ov = vals, n = mask + 1;
	mask = 2 * n - 1, used = 0;
	keys = calloc(2 * n, 8), vals = calloc(2 * n, 8);
	for (uint64_t i = 0; i < n; i++)
		if (ok[i] != 0)
			put(ok[i], ov[i]);
	free(ok), free(ov);
}

static void put(uint64_t k, uint64_t v) {
	if (2 * (used + 1) > mask + 1)
		grow();
	uint64_t *s = slot(k);
	if (*s == 0)
		used++;
	*s = k;
	vals[s - keys] = v;
}

static uint64_t steps(uint64_t n) {
	uint64_t *s = slot(n);
	if (*s != 0)
		return vals[s - keys];
	uint64_t r = (n % 2 == 0 ? steps(n / 2) : steps(3 * n + 1)) + 1;
	put(n, r);
	return r;
}

int main(void) {
	mask = 15, keys = calloc(16, 8), vals = calloc(16, 8);
	put(1, 0);
	uint64_t best = 0, arg = 1;
	for (uint64_t n = 1; n < 100000; n++) {
		uint64_t s = steps(n);
		if (s > best)
			best = s, arg = n;
	}
	printf("%lu %lu %lu\n", (unsigned long)arg, (unsigned long)best, (unsigned long)used);
	return 0;
}
