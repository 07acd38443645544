/* The C twin of setqueens.star: N-queens by backtracking over flags of the
   columns and diagonals in use, 12 queens. gcc -O2. */
#include <stdio.h>

static int cols[32], d1[64], d2[64];

static long place(int row, int n) {
	if (row == n)
		return 1;
	long count = 0;
	for (int c = 0; c < n; c++) {
		if (cols[c] || d1[row + c] || d2[row + n - c])
			continue;
		cols[c] = d1[row + c] = d2[row + n - c] = 1;
		count += place(row + 1, n);
		cols[c] = d1[row + c] = d2[row + n - c] = 0;
	}
	return count;
}

int main(void) {
	printf("%ld\n", place(0, 12));
	return 0;
}
