/* The C twin of gosper64.star: Fibonacci hashing of every 5-subset of a
   64-bit word, walked with Gosper's hack; the walk's last step carries
   past bit 63, so x and r are 128-bit. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
	long counts[64] = {0};
	unsigned __int128 limit = (unsigned __int128)1 << 64;
	for (unsigned __int128 x = (1 << 5) - 1; x < limit;) {
		uint64_t h = (uint64_t)x * 0x9E3779B97F4A7C15ULL;
		counts[h >> 58]++;
		unsigned __int128 c = x & -x, r = x + c;
		x = (((r ^ x) >> 2) / c) | r;
	}
	long most = 0, least = -1;
	for (int i = 0; i < 64; i++) {
		if (counts[i] > most)
			most = counts[i];
		if (least < 0 || counts[i] < least)
			least = counts[i];
	}
	printf("%ld %ld\n", most, least);
	return 0;
}
