package debruijn

// Seek advances a new iterator (one whose Next has not been called) to the
// least magic >= target, as Next would: Value returns it and later calls
// of Next continue in ascending order. It reports false when there is
// none. Together with Nth it starts an enumeration at any index, which is
// how a shard enumerates only its own contiguous part.
//
// It runs Next's search, abandoning every choice whose bits so far (the
// path's prefix, read off the path's chain) are below target's: one
// branch per level at most, so Seek costs about width choice points.
func (it *Iter) Seek(target uint64) bool {
	w := uint(it.width)
	if it.done || it.k != 0 || it.frames[0].try != 0 {
		panic("debruijn: Seek on a used Iter")
	}
	if w < 64 && target>>w != 0 || target>>(w-it.s) != 0 {
		// Every magic has its top s bits zero.
		it.done = true
		return false
	}
	k := 0
	for {
		f := &it.frames[k&31]
		if f.try == 2 {
			if k == 0 {
				it.done = true
				return false
			}
			k--
			g := &it.frames[k&31]
			c := int8((uint64(g.y)<<1 | uint64(g.try-1)) & it.emask)
			it.unlink(int8(g.y^it.top), c^1)
			it.unlink(int8(g.y), c)
			continue
		}
		b := f.try
		f.try++
		y, t := int8(f.y), int8(f.y^it.top)
		c := int8((uint64(y)<<1 | uint64(b)) & it.emask)
		if it.link(y, c) != 0 {
			continue
		}
		tail := it.tailOf[c&63]
		if tail == t {
			tail = it.tailOf[(c^1)&63]
		}
		if n := it.link(t, c^1); n != 0 {
			found := false
			if n == it.width {
				v, z := it.val[t&63], uint(it.zoff[t&63])
				r := v<<z | v>>(w-z)
				if it.width < 64 {
					r &= 1<<w - 1
				}
				it.value = r >> (it.s - 1)
				found = it.value >= target
			}
			it.unlink(y, c)
			if found {
				it.k = k
				return true
			}
			continue
		}
		if it.below(tail, target) {
			it.unlink(t, c^1)
			it.unlink(y, c)
			continue
		}
		k++
		it.frames[k&31] = frame{y: uint8(tail)}
	}
}

// below reports whether the bits the path has fixed, read off its chain
// (whose tail is tail), are less than target's bits in the same places.
// Window i's last bit is the magic's bit width-s-i; the chain holds the
// windows from 0 on, after zoff windows from the cycle's end (which the
// top s-1 zero bits already fix).
func (it *Iter) below(tail int8, target uint64) bool {
	w := uint(it.width)
	size := uint(it.size[tail&63])
	z := uint(it.zoff[tail&63])
	d := min(size-z, w-it.s+1) // bits fixed below the top s-1 zeros
	if d == 0 {
		return false
	}
	mask := uint64(1)<<d - 1
	have := it.val[tail&63] >> (size - z - d) & mask
	want := target >> (w - (it.s - 1) - d) & mask
	return have < want
}
