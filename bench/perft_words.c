// The C twin of examples/perft.star: the same word-style perft (the
// position in eleven words: the pawns, knights, bishops, rooks, queens and
// kings of both colours, the white and the black pieces, the side to move,
// the castling rooks, the en-passant square or 0), the same move encoding
// and move generation into a move list per ply, each move made into new
// words and dropped when the mover's king is then attacked, recursing
// through the same two functions. Slider attacks are magic-bitboard
// lookups (fancy magics found at start-up from a fixed seed, as
// examples/magics.star finds them), the others 64-entry tables. It prints,
// for the six positions of chessprogramming.org's "Perft Results", the
// count at each published depth, whether it is the published one, and the
// time, in the format of `bitsh examples/perft.star full -times`.
//
//   gcc -O2 -o /tmp/perft_words bench/perft_words.c && /tmp/perft_words
//   /tmp/perft_words 3      # every position at depth 3 instead
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef uint64_t u64;

#define EP (1u << 18)
#define RANK_1 0xffull
#define RANK_3 0xff0000ull
#define RANK_6 0xff0000000000ull
#define RANK_8 0xff00000000000000ull

static u64 knight_tab[64], king_tab[64], pawn_tab[2][64]; // pawn_tab[1]: white's

struct magic {
	u64 mask, magic, *table;
	int shift;
};
static struct magic rook_m[64], bishop_m[64];
static u64 slider_store[102400 + 5248];

static u64 slide(int sq, u64 occ, const int (*d)[2]) {
	u64 a = 0;
	for (int k = 0; k < 4; k++) {
		int f = sq % 8 + d[k][0], r = sq / 8 + d[k][1];
		while (f >= 0 && f < 8 && r >= 0 && r < 8) {
			u64 b = 1ull << (8 * r + f);
			a |= b;
			if (occ & b) break;
			f += d[k][0];
			r += d[k][1];
		}
	}
	return a;
}

static const int rook_d[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
static const int bishop_d[4][2] = {{1, 1}, {1, -1}, {-1, 1}, {-1, -1}};

static u64 rng = 0x9e3779b97f4a7c15ull;
static u64 next(void) { // xorshift64*
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

// find_magics fills m for the slider of directions d, its tables from *store.
static void find_magics(struct magic *m, const int (*d)[2], u64 **store) {
	static u64 occ[4096], att[4096], used[4096];
	for (int sq = 0; sq < 64; sq++) {
		u64 edges = ((RANK_1 | RANK_8) & ~(RANK_1 << (8 * (sq / 8)))) |
		            ((0x0101010101010101ull | 0x8080808080808080ull) & ~(0x0101010101010101ull << (sq % 8)));
		u64 mask = slide(sq, 0, d) & ~edges;
		int bits = __builtin_popcountll(mask), n = 0;
		u64 s = 0;
		do { // every subset of mask, the carry rippler
			occ[n] = s;
			att[n++] = slide(sq, s, d);
			s = (s - mask) & mask;
		} while (s);
		for (;;) {
			u64 c = next() & next() & next();
			if (__builtin_popcountll((mask * c) >> 56) < 6) continue;
			memset(used, 0, sizeof used);
			int ok = 1;
			for (int i = 0; i < n && ok; i++) {
				u64 k = (occ[i] * c) >> (64 - bits);
				if (!used[k]) used[k] = att[i];
				else if (used[k] != att[i]) ok = 0;
			}
			if (!ok) continue;
			m[sq] = (struct magic){mask, c, *store, 64 - bits};
			for (int i = 0; i < n; i++) (*store)[(occ[i] * c) >> (64 - bits)] = att[i];
			*store += (u64)1 << bits;
			break;
		}
	}
}

static inline u64 rook_attacks(int sq, u64 occ) {
	const struct magic *m = &rook_m[sq];
	return m->table[((occ & m->mask) * m->magic) >> m->shift];
}
static inline u64 bishop_attacks(int sq, u64 occ) {
	const struct magic *m = &bishop_m[sq];
	return m->table[((occ & m->mask) * m->magic) >> m->shift];
}

static void init(void) {
	static const int kn[8][2] = {{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}};
	static const int kg[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
	for (int sq = 0; sq < 64; sq++) {
		int f = sq % 8, r = sq / 8;
		for (int k = 0; k < 8; k++) {
			int nf = f + kn[k][0], nr = r + kn[k][1];
			if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) knight_tab[sq] |= 1ull << (8 * nr + nf);
			nf = f + kg[k][0], nr = r + kg[k][1];
			if (nf >= 0 && nf < 8 && nr >= 0 && nr < 8) king_tab[sq] |= 1ull << (8 * nr + nf);
		}
		for (int df = -1; df <= 1; df += 2) {
			if (f + df < 0 || f + df > 7) continue;
			if (r < 7) pawn_tab[1][sq] |= 1ull << (sq + 8 + df);
			if (r > 0) pawn_tab[0][sq] |= 1ull << (sq - 8 + df);
		}
	}
	u64 *store = slider_store;
	find_magics(rook_m, rook_d, &store);
	find_magics(bishop_m, bishop_d, &store);
}

#define POS u64 pawns, u64 knights, u64 bishops, u64 rooks, u64 queens, u64 kings, u64 white, u64 black, u64 turn, u64 castle, u64 ep

static u64 perft(POS, u64 depth);

// attacked: whether side by (0 white, 1 black), whose pieces are them, attacks sq.
static int attacked(int sq, u64 by, u64 pawns, u64 knights, u64 bishops, u64 rooks, u64 queens, u64 kings, u64 them, u64 occ) {
	if (knight_tab[sq] & knights & them) return 1;
	if (pawn_tab[by == 1][sq] & pawns & them) return 1;
	if (king_tab[sq] & kings & them) return 1;
	if (bishop_attacks(sq, occ) & (bishops | queens) & them) return 1;
	if (rook_attacks(sq, occ) & (rooks | queens) & them) return 1;
	return 0;
}

#define EACH(x, b) for (u64 _b = (b); _b && ((x) = __builtin_ctzll(_b), 1); _b &= _b - 1)

// gen fills moves with the pseudo-legal moves and returns how many.
static int gen(POS, u64 *moves) {
	u64 own = turn ? black : white, opp = turn ? white : black;
	u64 occ = own | opp, free_ = ~own, empty = ~occ;
	int n = 0;
	u64 to, fr, mine = pawns & own;
	if (turn == 0) {
		u64 one = (mine << 8) & empty, two = ((one & RANK_3) << 8) & empty;
		EACH(to, one) {
			if (to >= 56)
				for (u64 promo = 1; promo < 5; promo++) moves[n++] = to - 8 + 64 * to + 32768 * promo;
			else
				moves[n++] = to - 8 + 64 * to;
		}
		EACH(to, two) moves[n++] = to - 16 + 64 * to;
	} else {
		u64 one = (mine >> 8) & empty, two = ((one & RANK_6) >> 8) & empty;
		EACH(to, one) {
			if (to < 8)
				for (u64 promo = 1; promo < 5; promo++) moves[n++] = to + 8 + 64 * to + 32768 * promo;
			else
				moves[n++] = to + 8 + 64 * to;
		}
		EACH(to, two) moves[n++] = to + 16 + 64 * to;
	}
	u64 epbb = ep ? 1ull << ep : 0;
	EACH(fr, mine) {
		EACH(to, pawn_tab[turn == 0][fr] & (opp | epbb)) {
			if (to >= 56 || to < 8)
				for (u64 promo = 1; promo < 5; promo++) moves[n++] = fr + 64 * to + 32768 * promo;
			else if (to == ep)
				moves[n++] = fr + 64 * to + EP;
			else
				moves[n++] = fr + 64 * to;
		}
	}
	EACH(fr, knights & own) EACH(to, knight_tab[fr] & free_) moves[n++] = fr + 64 * to + 4096;
	EACH(fr, bishops & own) EACH(to, bishop_attacks(fr, occ) & free_) moves[n++] = fr + 64 * to + 2 * 4096;
	EACH(fr, rooks & own) EACH(to, rook_attacks(fr, occ) & free_) moves[n++] = fr + 64 * to + 3 * 4096;
	EACH(fr, queens & own)
	EACH(to, (rook_attacks(fr, occ) | bishop_attacks(fr, occ)) & free_) moves[n++] = fr + 64 * to + 4 * 4096;
	u64 k = __builtin_ctzll(kings & own);
	EACH(to, king_tab[k] & free_) moves[n++] = k + 64 * to + 5 * 4096;
	if (castle & own) {
		int base = turn == 0 ? 0 : 56;
		u64 by = 1 - turn;
		if ((castle & own & (1ull << (base + 7))) && !(occ & (3ull << (base + 5))))
			if (!attacked(k, by, pawns, knights, bishops, rooks, queens, kings, opp, occ) &&
			    !attacked(k + 1, by, pawns, knights, bishops, rooks, queens, kings, opp, occ))
				moves[n++] = k + 64 * (k + 2) + 5 * 4096;
		if ((castle & own & (1ull << base)) && !(occ & (7ull << (base + 1))))
			if (!attacked(k, by, pawns, knights, bishops, rooks, queens, kings, opp, occ) &&
			    !attacked(k - 1, by, pawns, knights, bishops, rooks, queens, kings, opp, occ))
				moves[n++] = k + 64 * (k - 2) + 5 * 4096;
	}
	return n;
}

// play makes move m; it returns 0 if the move leaves the mover's king
// attacked, else the number of legal sequences of depth - 1 more moves.
static u64 play(POS, u64 m, u64 depth) {
	(void)ep; // the move carries its en-passant capture; the parameters are the position's words
	u64 fr = m & 63, to = (m >> 6) & 63, kind = (m >> 12) & 7, promo = (m >> 15) & 7;
	u64 fb = 1ull << fr, tb = 1ull << to;
	u64 own = turn ? black : white, opp = turn ? white : black;
	if (opp & tb) {
		u64 keep = ~tb;
		pawns &= keep;
		knights &= keep;
		bishops &= keep;
		rooks &= keep;
		queens &= keep;
		opp ^= tb;
	}
	own ^= fb | tb;
	castle &= ~(fb | tb);
	u64 newep = 0;
	if (kind == 0) {
		if (promo) {
			pawns ^= fb;
			if (promo == 1) knights |= tb;
			else if (promo == 2) bishops |= tb;
			else if (promo == 3) rooks |= tb;
			else queens |= tb;
		} else {
			pawns ^= fb | tb;
			if (m & EP) {
				u64 cap = turn == 0 ? to - 8 : to + 8;
				pawns ^= 1ull << cap;
				opp ^= 1ull << cap;
			} else if (to - fr == 16 || fr - to == 16)
				newep = (fr + to) >> 1;
		}
	} else if (kind == 1)
		knights ^= fb | tb;
	else if (kind == 2)
		bishops ^= fb | tb;
	else if (kind == 3)
		rooks ^= fb | tb;
	else if (kind == 4)
		queens ^= fb | tb;
	else {
		kings ^= fb | tb;
		castle &= ~(turn == 0 ? RANK_1 : RANK_8);
		if (to == fr + 2) {
			u64 rook = (1ull << (to + 1)) | (1ull << (to - 1));
			rooks ^= rook;
			own ^= rook;
		} else if (fr == to + 2) {
			u64 rook = (1ull << (to - 2)) | (1ull << (to + 1));
			rooks ^= rook;
			own ^= rook;
		}
	}
	if (attacked(__builtin_ctzll(kings & own), 1 - turn, pawns, knights, bishops, rooks, queens, kings, opp, own | opp))
		return 0;
	if (depth == 1) return 1;
	white = turn ? opp : own;
	black = turn ? own : opp;
	return perft(pawns, knights, bishops, rooks, queens, kings, white, black, 1 - turn, castle, newep, depth - 1);
}

static u64 perft(POS, u64 depth) {
	if (depth == 0) return 1;
	u64 moves[256];
	int n = gen(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, moves);
	u64 total = 0;
	for (int i = 0; i < n; i++)
		total += play(pawns, knights, bishops, rooks, queens, kings, white, black, turn, castle, ep, moves[i], depth);
	return total;
}

// parse_fen reads the eleven words of a position from FEN.
static void parse_fen(const char *fen, u64 p[11]) {
	memset(p, 0, 11 * sizeof p[0]);
	int rank = 7, file = 0;
	const char *s = fen;
	for (; *s != ' '; s++) {
		if (*s == '/') {
			rank--;
			file = 0;
		} else if (*s >= '1' && *s <= '8')
			file += *s - '0';
		else {
			u64 b = 1ull << (8 * rank + file++);
			const char *kinds = "pnbrqk";
			char lower = *s | 0x20;
			p[strchr(kinds, lower) - kinds] |= b;
			p[*s == lower ? 7 : 6] |= b;
		}
	}
	s++;
	p[8] = *s == 'b';
	s += 2;
	for (; *s != ' '; s++) {
		if (*s == 'K') p[9] |= 1ull << 7;
		if (*s == 'Q') p[9] |= 1ull << 0;
		if (*s == 'k') p[9] |= 1ull << 63;
		if (*s == 'q') p[9] |= 1ull << 56;
	}
	s++;
	if (*s != '-') p[10] = (u64)(s[0] - 'a') + 8 * (u64)(s[1] - '1');
}

static const struct {
	const char *name, *fen;
	int depth;
	u64 want[6];
} positions[] = {
    {"initial", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 5,
     {20, 400, 8902, 197281, 4865609}},
    {"Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 4,
     {48, 2039, 97862, 4085603}},
    {"position 3", "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5, {14, 191, 2812, 43238, 674624}},
    {"position 4", "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", 4,
     {6, 264, 9467, 422333}},
    {"position 4 mirrored", "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1", 4,
     {6, 264, 9467, 422333}},
    {"position 5", "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8", 4,
     {44, 1486, 62379, 2103487}},
};

int main(int argc, char **argv) {
	init();
	int only = argc > 1 ? atoi(argv[1]) : 0;
	int ok = 1;
	for (size_t i = 0; i < sizeof positions / sizeof positions[0]; i++) {
		u64 p[11];
		parse_fen(positions[i].fen, p);
		int depth = only ? only : positions[i].depth;
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		u64 got = perft(p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], depth);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		int known = depth <= 6 && positions[i].want[depth - 1];
		int right = known && got == positions[i].want[depth - 1];
		printf("%-20s depth %d: %8llu  C, %s  (%.3f ms)\n", positions[i].name, depth, (unsigned long long)got,
		       right ? "ok" : known ? "WRONG" : "unpublished here", ms);
		ok = ok && (right || !known);
	}
	printf("all published counts: %s\n", ok ? "True" : "False");
	return !ok;
}
