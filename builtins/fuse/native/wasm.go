package native

// A minimal WebAssembly binary encoder: just what the emitter uses.

const (
	tI32  = 0x7f
	tI64  = 0x7e
	tVoid = 0x40
)

// Opcodes.
const (
	opUnreachable = 0x00
	opBlock       = 0x02
	opLoop        = 0x03
	opIf          = 0x04
	opElse        = 0x05
	opEnd         = 0x0b
	opBr          = 0x0c
	opBrIf        = 0x0d
	opReturn      = 0x0f
	opCall        = 0x10
	opDrop        = 0x1a
	opSelect      = 0x1b
	opLocalGet    = 0x20
	opLocalSet    = 0x21
	opLocalTee    = 0x22
	opI32Load     = 0x28
	opI64Load     = 0x29
	opI32Store    = 0x36
	opI64Store    = 0x37
	opI32Const    = 0x41
	opI64Const    = 0x42
	opI32Eqz      = 0x45
	opI32Eq       = 0x46
	opI32Ne       = 0x47
	opI32LtS      = 0x48
	opI32LtU      = 0x49
	opI32GeU      = 0x4f
	opI64Eqz      = 0x50
	opI64Eq       = 0x51
	opI64Ne       = 0x52
	opI64LtS      = 0x53
	opI64LtU      = 0x54
	opI64GtS      = 0x55
	opI64GtU      = 0x56
	opI64LeU      = 0x58
	opI64GeS      = 0x59
	opI64GeU      = 0x5a
	opI32Add      = 0x6a
	opI32Sub      = 0x6b
	opI32Mul      = 0x6c
	opI32And      = 0x71
	opI32Or       = 0x72
	opI32Shl      = 0x74
	opI64Clz      = 0x79
	opI64Ctz      = 0x7a
	opI64Popcnt   = 0x7b
	opI64Add      = 0x7c
	opI64Sub      = 0x7d
	opI64Mul      = 0x7e
	opI64DivU     = 0x80
	opI64RemU     = 0x82
	opI64And      = 0x83
	opI64Or       = 0x84
	opI64Xor      = 0x85
	opI64Shl      = 0x86
	opI64ShrS     = 0x87
	opI64ShrU     = 0x88
	opI64Rotl     = 0x89
	opI64Rotr     = 0x8a
	opI32WrapI64  = 0xa7
	opI64ExtendU  = 0xad
)

type code struct{ b []byte }

func (c *code) byte(b ...byte) { c.b = append(c.b, b...) }

func (c *code) u32(x uint32) {
	for {
		b := byte(x & 0x7f)
		x >>= 7
		if x != 0 {
			c.b = append(c.b, b|0x80)
			continue
		}
		c.b = append(c.b, b)
		return
	}
}

func (c *code) s64(x int64) {
	for {
		b := byte(x & 0x7f)
		x >>= 7
		if x == 0 && b&0x40 == 0 || x == -1 && b&0x40 != 0 {
			c.b = append(c.b, b)
			return
		}
		c.b = append(c.b, b|0x80)
	}
}

func (c *code) i64(x uint64) { c.byte(opI64Const); c.s64(int64(x)) }
func (c *code) i32(x int32)  { c.byte(opI32Const); c.s64(int64(x)) }
func (c *code) get(l int)    { c.byte(opLocalGet); c.u32(uint32(l)) }
func (c *code) set(l int)    { c.byte(opLocalSet); c.u32(uint32(l)) }
func (c *code) tee(l int)    { c.byte(opLocalTee); c.u32(uint32(l)) }
func (c *code) call(f int)   { c.byte(opCall); c.u32(uint32(f)) }

// mem emits a load or store with alignment 3 (8 bytes) or 2 and offset.
func (c *code) mem(op byte, offset uint32) {
	align := uint32(3)
	if op == opI32Load || op == opI32Store {
		align = 2
	}
	c.byte(op)
	c.u32(align)
	c.u32(offset)
}

// section appends a section of id holding body to a module.
func section(mod []byte, id byte, body []byte) []byte {
	var c code
	c.u32(uint32(len(body)))
	mod = append(mod, id)
	mod = append(mod, c.b...)
	return append(mod, body...)
}

func vec(items ...[]byte) []byte {
	var c code
	c.u32(uint32(len(items)))
	for _, it := range items {
		c.b = append(c.b, it...)
	}
	return c.b
}

func str(s string) []byte {
	var c code
	c.u32(uint32(len(s)))
	return append(c.b, s...)
}

func funcType(params, results []byte) []byte {
	b := []byte{0x60}
	b = append(b, vec(bytesOf(params)...)...)
	return append(b, vec(bytesOf(results)...)...)
}

func bytesOf(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

// funcBody encodes a function body whose locals (after its parameters)
// are the groups given as count, type pairs.
func funcBody(body []byte, groups ...int) []byte {
	var c code
	var gs [][]byte
	for i := 0; i < len(groups); i += 2 {
		if groups[i] == 0 {
			continue
		}
		var g code
		g.u32(uint32(groups[i]))
		g.byte(byte(groups[i+1]))
		gs = append(gs, g.b)
	}
	inner := append(vec(gs...), body...)
	inner = append(inner, opEnd)
	c.u32(uint32(len(inner)))
	return append(c.b, inner...)
}
