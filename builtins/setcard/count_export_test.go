package setcard

import "context"

// Internals of the counting kernels, exported to the external tests only.

// SymClass is a conjugacy class of the symmetries as Burnside's sum uses it.
type SymClass struct {
	Rep   int       // the representative's number
	Size  uint64    // members
	Slice bool      // counted by the slice method
	H     [27]uint8 // then for this map of AG(3,3)
}

// SymClassesForTest returns the conjugacy classes of Burnside's sum.
func SymClassesForTest() []SymClass {
	var out []SymClass
	for _, c := range symClasses() {
		out = append(out, SymClass{c.rep, c.size, c.slice, c.h})
	}
	return out
}

// ClassKeyForTest returns the class invariant of symmetry i.
func ClassKeyForTest(i int) [4][3]uint8 { return keyOf(SymmetryParts(i)) }

// CountOptions mirrors countOptions.
type CountOptions struct{ IdentityOnly, AllOrders, CyclesOnly, SkipIdentity bool }

// FixCountsForTest returns fix[class][k] computed as opt says.
func FixCountsForTest(ctx context.Context, kmax, workers int, opt CountOptions) ([][]uint64, error) {
	return fixCounts(ctx, kmax, workers, nil, countOptions{opt.IdentityOnly, opt.AllOrders, opt.CyclesOnly, opt.SkipIdentity})
}

// CycleFixForTest counts the SET-less k-sets (k <= kmax) fixed by symmetry i
// by the search over its cycles.
func CycleFixForTest(i, kmax int) []uint64 {
	g := SymmetryAt(i)
	return newCycleKernel(&g).count(&walker{ctx: context.Background()}, kmax)
}
