package compile

import "github.com/bitsh/bitsh/builtins/fuse"

// hashGrowBits is the log2 of the factor a table's slots grow by where a
// rebuild grows them: 4, as CPython's dicts grow by about 3 (fewer
// rebuilds, each moving every entry again, on the way to a large table).
const hashGrowBits = 2

// hashGrown is h's mask grown (h's mask below its most, 1<<h.bits - 1):
// the slots times 1<<hashGrowBits, at most the most.
func (c *compiler) hashGrown(h *hashTable) *fuse.Expr {
	grown := c.exactExpr(mk(fuse.OpOr, c.exactExpr(mk(fuse.OpShl, h.get(hdrMask), constExpr(hashGrowBits))), constExpr(1<<hashGrowBits-1)))
	return c.exactExpr(mk(fuse.OpMin, grown, constExpr(1<<h.bits-1)))
}
