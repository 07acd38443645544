/* The C twin of cover.star: the tilings of a 4 x 15 box by the twelve
   pentominoes, over a table of (piece, mask) pairs. gcc -O2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define H 4
#define W 15
#define N (H * W)

static const int PIECES[12][5][2] = {
	{{0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 1}}, {{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}},
	{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {3, 1}}, {{0, 1}, {1, 1}, {2, 0}, {2, 1}, {3, 0}},
	{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}}, {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {2, 1}},
	{{0, 0}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}, {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}},
	{{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}}, {{0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 1}},
	{{0, 1}, {1, 0}, {1, 1}, {2, 1}, {3, 1}}, {{0, 0}, {0, 1}, {1, 1}, {2, 1}, {2, 2}},
};

typedef struct { int piece; uint64_t mask; } placement;
static placement table[N][512];
static int ntable[N];
static const uint64_t FULL = ((uint64_t)1 << N) - 1;

static int cmp(const void *a, const void *b) {
	const int *x = a, *y = b;
	return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

static long solve(uint64_t board, int used) {
	if (board == FULL)
		return 1;
	int cell = 0;
	while ((board >> cell) & 1)
		cell++;
	long n = 0;
	for (int i = 0; i < ntable[cell]; i++) {
		placement p = table[cell][i];
		if (!((used >> p.piece) & 1) && !(board & p.mask))
			n += solve(board | p.mask, used | (1 << p.piece));
	}
	return n;
}

int main(void) {
	for (int piece = 0; piece < 12; piece++) {
		int shapes[8][5][2], nshapes = 0;
		for (int k = 0; k < 8; k++) {
			int pts[5][2], r0 = 99, c0 = 99;
			for (int i = 0; i < 5; i++) {
				int r = PIECES[piece][i][0], c = PIECES[piece][i][1];
				if (k & 1) { int t = r; r = c; c = t; }
				if (k & 2) r = -r;
				if (k & 4) c = -c;
				pts[i][0] = r, pts[i][1] = c;
				if (r < r0) r0 = r;
				if (c < c0) c0 = c;
			}
			for (int i = 0; i < 5; i++)
				pts[i][0] -= r0, pts[i][1] -= c0;
			qsort(pts, 5, sizeof pts[0], cmp);
			int dup = 0;
			for (int s = 0; s < nshapes; s++)
				dup |= memcmp(shapes[s], pts, sizeof pts) == 0;
			if (!dup)
				memcpy(shapes[nshapes++], pts, sizeof pts);
		}
		for (int s = 0; s < nshapes; s++)
			for (int r0 = 0; r0 < H; r0++)
				for (int c0 = 0; c0 < W; c0++) {
					uint64_t mask = 0;
					int low = N, fits = 1;
					for (int i = 0; i < 5 && fits; i++) {
						int r = r0 + shapes[s][i][0], c = c0 + shapes[s][i][1];
						if (r >= H || c >= W) { fits = 0; break; }
						int cell = c * H + r;
						mask |= (uint64_t)1 << cell;
						if (cell < low) low = cell;
					}
					if (fits) {
						table[low][ntable[low]].piece = piece;
						table[low][ntable[low]++].mask = mask;
					}
				}
	}
	printf("%ld\n", solve(0, 0));
	return 0;
}
