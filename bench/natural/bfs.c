/* The C twin of bfs.star: breadth-first search over the 2x4 sliding
   puzzle from 64 starts, with a visited set (open addressing, linear
   probing, multiplicative hashing) and a queue array. gcc -O2. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS (1 << 16) /* more than twice the 20160 states */

static const int moves[8][3] = {{1, 4, -1}, {0, 2, 5}, {1, 3, 6}, {2, 7, -1}, {0, 5, -1}, {1, 4, 6}, {2, 5, 7}, {3, 6, -1}};
static uint64_t slots[SLOTS];
static uint64_t queue[SLOTS], dist[SLOTS];

/* add inserts s + 1 (0 marks an empty slot) and reports whether it was new. */
static int add(uint64_t s) {
	uint64_t i = (s * 0x9E3779B97F4A7C15ull) >> 48;
	while (slots[i] != 0) {
		if (slots[i] == s + 1)
			return 0;
		i = (i + 1) & (SLOTS - 1);
	}
	slots[i] = s + 1;
	return 1;
}

static void bfs(uint64_t start, long *n, long *far) {
	memset(slots, 0, sizeof slots);
	add(start);
	long len = 1, i = 0;
	queue[0] = start, dist[0] = 0;
	*far = 0;
	while (i < len) {
		uint64_t s = queue[i], d = dist[i];
		i++;
		if ((long)d > *far)
			*far = d;
		uint64_t z = s >> 24;
		for (int k = 0; k < 3 && moves[z][k] >= 0; k++) {
			uint64_t p = moves[z][k];
			uint64_t t = (s >> (3 * p)) & 7;
			uint64_t u = ((s & 0xffffff) ^ (t << (3 * p)) ^ (t << (3 * z))) | (p << 24);
			if (add(u)) {
				queue[len] = u, dist[len] = d + 1;
				len++;
			}
		}
	}
	*n = len;
}

int main(void) {
	long states = 0, depths = 0;
	for (int k = 0; k < 64; k++) {
		int cells[8] = {0, 1, 2, 3, 4, 5, 6, 7}, a, b, t;
		a = k % 8, b = (k * 3 + 1) % 8;
		t = cells[a], cells[a] = cells[b], cells[b] = t;
		a = (k * 5 + 2) % 8, b = (k + 6) % 8;
		t = cells[a], cells[a] = cells[b], cells[b] = t;
		uint64_t start = 0;
		for (int c = 0; c < 8; c++) {
			start |= (uint64_t)cells[c] << (3 * c);
			if (cells[c] == 0)
				start |= (uint64_t)c << 24;
		}
		long n, far;
		bfs(start, &n, &far);
		states += n, depths += far;
	}
	printf("%ld %ld\n", states, depths);
	return 0;
}
