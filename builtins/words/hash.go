package words

import (
	"context"
	"github.com/bitsh/bitsh/builtins/rng"
	"math/bits"
)

// A Checker tests candidate magics for one set of keys: a magic is good
// when keys that share a hash have equal tags, the tag of key i being
// values[i], or the key itself without values (distinct keys must then
// have distinct hashes). It reuses its table between candidates, so a
// candidate costs the keys it hashes before its first collision and
// nothing else.
type Checker struct {
	keys, tags []uint64
	shift      uint
	bits       uint
	// direct: slot = hash, for hashes of at most directBits bits (or
	// few more than the keys); else open addressing on the hash's top bits.
	direct []dslot
	table  []slot
	mask   uint64 // len(table) - 1 when open addressing
	gen    uint64 // the slots of the current candidate carry gen
}

// A dslot is a slot of a directly indexed table; a slot one of an open
// addressed table, which also keeps the hash.
type (
	dslot struct{ gen, tag uint64 }
	slot  struct{ gen, hash, tag uint64 }
)

// directBits bounds the directly indexed tables: 2^20 slots of 16 bytes.
const directBits = 20

// NewChecker prepares the test of candidates for keys and, if non-nil,
// values (of the same length) with hashes of bits bits, 1 <= bits <= 64.
// It does not copy keys or values: they must not change while in use.
func NewChecker(keys, values []uint64, bits uint) *Checker {
	if bits < 1 || bits > 64 {
		panic("words: NewChecker: bits outside 1..64")
	}
	if values != nil && len(values) != len(keys) {
		panic("words: NewChecker: lengths differ")
	}
	c := &Checker{keys: keys, tags: values, shift: 64 - bits, bits: bits}
	if c.tags == nil {
		c.tags = keys
	}
	if isDirect(len(keys), bits) {
		c.direct = make([]dslot, 1<<bits)
	} else {
		size := uint64(1) << openBits(len(keys))
		c.table = make([]slot, size)
		c.mask = size - 1
	}
	return c
}

// isDirect reports whether hashes of bits bits index the table directly:
// when the table is small, or not much bigger than the keys.
func isDirect(n int, bits uint) bool {
	return bits <= directBits || bits < 40 && uint64(1)<<bits <= 2*uint64(n)
}

func bitsLen(x uint64) int { return bits.Len64(x) }

// TableBytes returns the memory a Checker for n keys and bits allocates,
// for callers that check a budget first.
func TableBytes(n int, bits uint) int64 {
	if isDirect(n, bits) {
		return 16 << bits
	}
	return 24 << openBits(n)
}

// openBits is log2 of an open-addressed table's size: at least twice the
// keys, so that probes stay short.
func openBits(n int) int { return max(4, bitsLen(uint64(2*max(n, 1)-1))) }

// OK reports whether magic is good for the checker's keys, stopping at
// the first collision.
func (c *Checker) OK(magic uint64) bool {
	_, ok := c.test(magic)
	return ok
}

// test is OK that also returns how many keys it hashed.
func (c *Checker) test(magic uint64) (tested int, ok bool) {
	c.gen++
	if c.gen == 0 { // after 2^64 candidates: never in practice, but be exact
		clear(c.table)
		clear(c.direct)
		c.gen = 1
	}
	gen, shift := c.gen, c.shift
	keys, tags, table := c.keys, c.tags, c.table
	tags = tags[:len(keys)]
	if direct := c.direct; direct != nil {
		for i, k := range keys {
			e := &direct[k*magic>>shift]
			if e.gen != gen {
				e.gen, e.tag = gen, tags[i]
			} else if e.tag != tags[i] {
				return i + 1, false
			}
		}
		return len(keys), true
	}
	// Open addressing: the slot index is the top bits of the hash (which
	// are as well mixed as the hash is), probing linearly.
	top := 64 - uint(bits.Len64(c.mask))
	for i, k := range keys {
		h := k * magic >> shift
		j := (h << (64 - c.bits)) >> top
		for {
			e := &table[j&c.mask]
			if e.gen != gen {
				e.gen, e.hash, e.tag = gen, h, tags[i]
				break
			}
			if e.hash == h {
				if e.tag != tags[i] {
					return i + 1, false
				}
				break
			}
			j++
		}
	}
	return len(keys), true
}

// HashOK reports whether magic hashes keys without a harmful collision
// (see Checker); it allocates a table per call, so testing many magics
// goes through one Checker.
func HashOK(keys, values []uint64, magic uint64, bits uint) bool {
	return NewChecker(keys, values, bits).OK(magic)
}

// FindMagic tests the candidates rng.New(seed).Sparse(sparse) in order and
// returns the first good one and its position (from 0), or ok == false
// after tries candidates. It polls ctx about every millisecond of work
// and returns its error when done; progress, if not nil, is called now
// and then with the candidates tried so far.
func FindMagic(ctx context.Context, c *Checker, seed uint64, sparse int, tries uint64, progress func(tried uint64)) (magic, index uint64, ok bool, err error) {
	r := rng.New(seed)
	work := 0
	for i := uint64(0); i < tries; i++ {
		m := r.Sparse(sparse)
		n, good := c.test(m)
		if good {
			return m, i, true, nil
		}
		if work += n + 8; work >= pollEvery {
			work = 0
			if err := ctx.Err(); err != nil {
				return 0, i + 1, false, err
			}
			if progress != nil {
				progress(i + 1)
			}
		}
	}
	return 0, tries, false, nil
}
