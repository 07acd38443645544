/* The C twin of queens.star: the N-queens solutions, each printed in hex
   as it is found (four bits a row), then their count. gcc -O2. */
#include <stdint.h>
#include <stdio.h>

#define N 12
static const uint64_t FULL = ((uint64_t)1 << N) - 1;

static long place(int row, uint64_t cols, uint64_t left, uint64_t right, uint64_t sol) {
	if (row == N) {
		printf("%llx\n", (unsigned long long)sol);
		return 1;
	}
	long count = 0;
	for (int col = 0; col < N; col++) {
		uint64_t bit = (uint64_t)1 << col;
		if (((cols | left | right) & bit) == 0)
			count += place(row + 1, cols | bit, ((left | bit) << 1) & FULL, (right | bit) >> 1, sol * 16 + col);
	}
	return count;
}

int main(void) {
	printf("%ld\n", place(0, 0, 0, 0, 0));
	return 0;
}
