package block

import (
	"math/bits"

	"github.com/bitsh/bitsh/builtins/fuse"
)

// The block executor's own ops: pairs of fuse's ops that its peephole
// pass (block.go) fuses into one pass over a block. They are numbered
// from fuse.NumOps on (a Builder never makes them), and only this package
// reads them; opCheck (exec.go) marks a check's place in a plan.
const (
	opPopAndK   = fuse.NumOps + iota // popcount(A & Imm): the usual popcount(s & mask)
	opXorShrK                        // A ^ A>>Imm (Imm < 64): the xorshift step of hashes and Gray codes
	opXorShlK                        // A ^ A<<Imm (Imm < 64)
	opXorShrMul                      // (A ^ A>>Imm) * B (Imm < 64): the xorshift-multiply step of hash finalizers (murmur3's fmix64, splitmix64, xorshift64*)
	opXorShlMul                      // (A ^ A<<Imm) * B (Imm < 64)
	numOps                           // bounds the ops of a Line the executor runs
)

// ownOp declares one of the executor's own ops: its operands, what its Imm
// is, and its meaning on words.
type ownOp struct {
	name  string
	arity int
	imm   fuse.ImmUse
	eval  func(a, b, c, k uint64) uint64
}

var ownOps = [numOps - fuse.NumOps]ownOp{
	opPopAndK - fuse.NumOps:   {"pop_and_k", 1, fuse.ImmMask, func(a, b, c, k uint64) uint64 { return uint64(bits.OnesCount64(a & k)) }},
	opXorShrK - fuse.NumOps:   {"xor_shr_k", 1, fuse.ImmShift, func(a, b, c, k uint64) uint64 { return a ^ a>>k }},
	opXorShlK - fuse.NumOps:   {"xor_shl_k", 1, fuse.ImmShift, func(a, b, c, k uint64) uint64 { return a ^ a<<k }},
	opXorShrMul - fuse.NumOps: {"xor_shr_mul", 2, fuse.ImmShift, func(a, b, c, k uint64) uint64 { return (a ^ a>>k) * b }},
	opXorShlMul - fuse.NumOps: {"xor_shl_mul", 2, fuse.ImmShift, func(a, b, c, k uint64) uint64 { return (a ^ a<<k) * b }},
}

// own returns the declaration of one of the executor's own ops, or nil.
func own(op fuse.Op) *ownOp {
	if op >= fuse.NumOps && op < numOps {
		return &ownOps[op-fuse.NumOps]
	}
	return nil
}

// arity is op's number of operands, fuse's (Op.Arity) or the executor's own.
func arity(op fuse.Op) int {
	if o := own(op); o != nil {
		return o.arity
	}
	return op.Arity()
}

// meaning is op's meaning on words, fuse's (Op.Meaning) or the executor's
// own.
func meaning(op fuse.Op) func(a, b, c, imm uint64) uint64 {
	if o := own(op); o != nil {
		return o.eval
	}
	return op.Meaning()
}

// opName names op, fuse's (Op.String) or the executor's own.
func opName(op fuse.Op) string {
	if o := own(op); o != nil {
		return o.name
	}
	return op.String()
}
