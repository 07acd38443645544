/* The C twin of hash64.star: multiply-add-shift hashing of the keys 0 to
   2^24 - 1 into 2^15 buckets; bits 32 to 63 of A * x + B are those of its
   low 64 bits, so C's wrapping product gives them. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

#define A 0x9E3779B97F4A7C15ULL
#define B 0xD1B54A32D192ED03ULL

static long counts[1 << 15];

int main(void) {
	long n = 1 << 24;
	for (uint64_t x = 0; x < (uint64_t)n; x++) {
		uint32_t h = (A * x + B) >> 32;
		counts[h >> (32 - 15)]++;
	}
	long most = 0, least = n;
	for (int i = 0; i < 1 << 15; i++) {
		if (counts[i] > most)
			most = counts[i];
		if (counts[i] < least)
			least = counts[i];
	}
	printf("%ld %ld\n", most, least);
	return 0;
}
