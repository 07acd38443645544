package setcard

// Canon returns the canonical form of h, the least of its images under the
// 31104 symmetries in document 004's order (see Hand.Less), and the number
// of symmetries that fix h; h's orbit has NumSymmetries/automorphisms
// members. The empty hand is its own canonical form with all 31104
// symmetries; every other canonical form contains card 0.
//
// Only the 384*len(h) symmetries that send a card of h to card 0 are tried:
// the least image contains 0, and each symmetry sending h to it sends
// exactly one card of h to 0, so the fixing symmetries are counted once.
func Canon(h Hand) (canon Hand, automorphisms int) {
	h[1] &= highMask
	var buf [NumCards]Card
	cards := buf[:0]
	for w := 0; w < 2; w++ {
		for x := h[w]; x != 0; x &= x - 1 {
			cards = append(cards, Card(w*64+trailingZeros(x)))
		}
	}
	if len(cards) == 0 {
		return h, NumSymmetries
	}
	g := group()
	first := true
	for _, c := range cards {
		for _, i := range &g.toZero[c] {
			a := &g.aut[i]
			var img Hand
			for _, x := range cards {
				y := a[x]
				img[y>>6] |= 1 << (y & 63)
			}
			switch {
			case first:
				canon, automorphisms, first = img, 1, false
			case img == canon:
				automorphisms++
			case img.Less(canon):
				canon, automorphisms = img, 1
			}
		}
	}
	return canon, automorphisms
}

// IsCanonical reports whether h is its own canonical form.
func IsCanonical(h Hand) bool {
	c, _ := Canon(h)
	return c == h
}
