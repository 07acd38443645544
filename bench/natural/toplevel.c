/* The C twin of toplevel.star: Gosper's hack over the 6-subsets of 30
   bits, counting those with no two members adjacent. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

int main(void) {
	long n = 0;
	for (uint64_t x = (1 << 6) - 1, limit = (uint64_t)1 << 30; x < limit;) {
		if ((x & (x >> 1)) == 0)
			n++;
		uint64_t c = x & -x, r = x + c;
		x = (((r ^ x) >> 2) / c) | r;
	}
	printf("%ld\n", n);
	return 0;
}
