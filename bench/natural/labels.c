/* The C twin of labels.star: Gosper's hack over the 7-subsets of 32 bits,
   each Fibonacci-hashed; a subset whose hash has 44 one bits is a hit, and
   its label, the text of its elements joined by "-", is printed; then the
   number of hits. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

#define N 32
#define K 7
static const uint64_t PHI = 0x9E3779B97F4A7C15ull;

static uint64_t ones(uint64_t x) {
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
	return (x * 0x0101010101010101ull) >> 56;
}

static void label(uint64_t x) {
	char text[4 * N];
	int n = 0;
	for (int i = 0; i < N; i++) {
		if ((x >> i) & 1) {
			if (n > 0)
				text[n++] = '-';
			n += snprintf(text + n, sizeof text - n, "%d", i);
		}
	}
	puts(text);
}

int main(void) {
	uint64_t x = ((uint64_t)1 << K) - 1, hits = 0;
	while (x < ((uint64_t)1 << N)) {
		if (ones(x * PHI) == 44) {
			hits++;
			label(x);
		}
		uint64_t c = x & -x, r = x + c;
		x = (((r ^ x) >> 2) / c) | r;
	}
	printf("%llu\n", (unsigned long long)hits);
	return 0;
}
