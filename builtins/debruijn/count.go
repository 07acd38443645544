package debruijn

import (
	"math/big"
	"math/bits"
)

// How Nth works. A magic with its top s bits zero, read as w bits from the
// most significant end, has as windows the w edges of an Eulerian circuit
// of the De Bruijn graph B(2, s-1): the vertices are the (s-1)-bit words,
// the s-bit window e is the edge from e >> 1 to e mod 2^(s-1), and the
// circuit starts with the loop 0^s at vertex 0. A prefix of L bits fixes the
// first L-s+1 edges and leaves us at vertex u (its last s-1 bits); its
// completions are the Eulerian trails from u back to 0 through the unused
// edges. Adding an edge 0 -> u turns those trails into the Eulerian circuits
// of the graph H, which the BEST theorem counts:
//
//	ec(H) = t_0(H) * prod over vertices x with edges of (outdeg(x) - 1)!
//
// where t_0(H), the number of spanning arborescences oriented towards 0, is
// a determinant of the reduced Laplacian (Tutte's matrix-tree theorem),
// computed exactly by fraction-free Bareiss elimination. Nth then walks the
// bits from the top: take the 0-branch if n <= count(prefix + 0), else
// subtract that count and take the 1-branch.

// completions returns the number of ways to finish a sequence of order s
// whose windows so far are the edges in used and whose last s-1 bits are
// the vertex u.
func completions(s uint, used uint64, u int) uint64 {
	nv := 1 << (s - 1) // vertices of B(2, s-1)
	ne := 1 << s       // edges
	var out, in [32]int
	var adj [32][32]int64
	for e := 0; e < ne; e++ {
		if used>>uint(e)&1 == 0 {
			from, to := e>>1, e&(nv-1)
			out[from]++
			in[to]++
			adj[from][to]++
		}
	}
	out[0]++ // the closing edge 0 -> u
	in[u]++
	adj[0][u]++
	// Index the vertices that have edges; vertex 0 (the root) always has.
	var idx [32]int
	n := 0
	fact := uint64(1)
	for x := 0; x < nv; x++ {
		if out[x] != in[x] {
			return 0 // unbalanced: no Eulerian circuit
		}
		if out[x] == 0 {
			idx[x] = -1
			continue
		}
		for f := 2; f < out[x]; f++ {
			fact *= uint64(f)
		}
		if x == 0 {
			idx[x] = -1 // the root's row and column are deleted
			continue
		}
		idx[x] = n
		n++
	}
	var m [31][31]int64
	for x := 1; x < nv; x++ {
		i := idx[x]
		if i < 0 {
			continue
		}
		m[i][i] = int64(out[x])
		for y := 0; y < nv; y++ {
			if j := idx[y]; j >= 0 {
				m[i][j] -= adj[x][y]
			}
		}
	}
	t := bareiss(&m, n)
	if t <= 0 {
		return 0
	}
	return uint64(t) * fact
}

// bareiss returns the determinant of the leading n x n block of m by
// fraction-free elimination, destroying m. Every intermediate entry is a
// minor of the matrix, so it fits in an int64 for the Laplacians used here
// (Hadamard's bound is below 2^59); the products a*b - c*d are formed in
// 128 bits before the exact division.
func bareiss(m *[31][31]int64, n int) int64 {
	if n == 0 {
		return 1
	}
	sign, prev := int64(1), int64(1)
	for k := 0; k < n-1; k++ {
		if m[k][k] == 0 {
			p := k + 1
			for p < n && m[p][k] == 0 {
				p++
			}
			if p == n {
				return 0
			}
			m[k], m[p] = m[p], m[k]
			sign = -sign
		}
		akk := m[k][k]
		for i := k + 1; i < n; i++ {
			aik := m[i][k]
			for j := k + 1; j < n; j++ {
				m[i][j] = step(m[i][j], akk, aik, m[k][j], prev)
			}
		}
		prev = akk
	}
	return sign * m[n-1][n-1]
}

// step returns (a*b - c*d) / p, which is exact in Bareiss elimination.
func step(a, b, c, d, p int64) int64 {
	if c == 0 || d == 0 {
		if p == 1 {
			return a * b
		}
		return a * b / p // |a*b| stays far below 2^63 here: a and b are minors of small order
	}
	h1, l1 := mul128(a, b)
	h2, l2 := mul128(c, d)
	lo, borrow := bits.Sub64(l1, l2, 0)
	hi := uint64(h1) - uint64(h2) - borrow
	neg := int64(hi) < 0
	if neg {
		lo, borrow = bits.Sub64(0, lo, 0)
		hi = -hi - borrow
	}
	q := uint64(p)
	if p < 0 {
		q = uint64(-p)
		neg = !neg
	}
	if hi >= q {
		return stepBig(a, b, c, d, p) // quotient beyond 64 bits: cannot happen for these matrices
	}
	r, _ := bits.Div64(hi, lo, q)
	if neg {
		return -int64(r)
	}
	return int64(r)
}

func mul128(a, b int64) (hi int64, lo uint64) {
	h, l := bits.Mul64(uint64(a), uint64(b))
	hi = int64(h)
	if a < 0 {
		hi -= b
	}
	if b < 0 {
		hi -= a
	}
	return hi, l
}

// stepBig is step in arbitrary precision; the result is truncated to 64
// bits, which only matters for matrices far outside this package's use.
func stepBig(a, b, c, d, p int64) int64 {
	x := new(big.Int).Mul(big.NewInt(a), big.NewInt(b))
	y := new(big.Int).Mul(big.NewInt(c), big.NewInt(d))
	x.Sub(x, y)
	x.Quo(x, big.NewInt(p))
	return x.Int64()
}

// Nth returns the n-th (counting from 1) magic for width in ascending
// order among those whose top log2(width) bits are zero, the order of
// Isenberg's generator; ok is false when width is invalid or n is not
// in 1..Count(width). It counts completions instead of enumerating, so any
// n takes the same few milliseconds.
func Nth(n uint64, width int) (m uint64, ok bool) {
	s, ok := Log2(width)
	if !ok || n == 0 || n > Count(width) {
		return 0, false
	}
	emask := uint64(1)<<s - 1
	vmask := emask >> 1
	used := uint64(1) // the window 0^s
	var win uint64    // the last s bits
	for pos := width - int(s) - 1; pos >= 0; pos-- {
		e0 := win << 1 & emask
		var c0 uint64
		if used>>e0&1 == 0 {
			c0 = completions(s, used|1<<e0, int(e0&vmask))
		}
		if n <= c0 {
			win = e0
		} else {
			n -= c0
			win = e0 | 1
			m |= 1 << uint(pos)
		}
		used |= 1 << win
	}
	return m, true
}

// Rank returns the position n (counting from 1) of the magic m in the
// order of Nth, so that Nth(Rank(m, w), w) == m; ok is false when width is
// invalid or m is not a magic for width with its top log2(width) bits
// zero. Like Nth it counts completions instead of enumerating: walking
// m's bits from the top, every 1 bit skips the magics that continue the
// prefix with a 0.
func Rank(m uint64, width int) (n uint64, ok bool) {
	s, ok := Log2(width)
	if !ok || m>>(uint(width)-s) != 0 || !IsMagic(m, width) {
		return 0, false
	}
	emask := uint64(1)<<s - 1
	vmask := emask >> 1
	used := uint64(1) // the window 0^s
	var win uint64    // the last s bits
	for pos := width - int(s) - 1; pos >= 0; pos-- {
		e0 := win << 1 & emask
		win = e0
		if m>>uint(pos)&1 != 0 {
			if used>>e0&1 == 0 {
				n += completions(s, used|1<<e0, int(e0&vmask))
			}
			win = e0 | 1
		}
		used |= 1 << win
	}
	return n + 1, true
}
