package words

// Block is how many elements a Lazy computes at a time: small enough that
// every step of a chain reads and writes a block that stays in the L1
// cache, big enough that dispatching a step costs little per element.
const Block = 256

// MaxSteps bounds the work per element of one Lazy, its operands'
// steps included. Callers evaluate an operand (Materialize) rather than
// extend a chain past it, so that a loop like x = x ^ (x >> 1) cannot
// build a computation whose cost doubles at every turn.
const MaxSteps = 16

// A Lazy is an elementwise computation kept unevaluated: its base words
// transformed by steps, in order. A chain of operations on arrays then
// costs one pass over memory, a block at a time, and no array in between;
// a reduction (Count, Sum) of a Lazy needs no n-word result at all.
// Only steps that cannot fail are deferred, so a Lazy never reports an
// error later than the eager operation would have. A Lazy is immutable
// and safe to evaluate from several goroutines at once.
type Lazy struct {
	base []uint64
	// gen, when not nil, replaces base: each evaluation calls it for a
	// fill function that writes the elements in order, a block at a time.
	gen   func() func(dst []uint64)
	n     int
	steps []step
	cost  int // steps, the operands' included
}

type stepKind uint8

const (
	opWord   stepKind = iota // acc op x, or x op acc
	opArray                  // acc op arr[i], or arr[i] op acc
	opLazy                   // acc op sub[i], or sub[i] op acc
	cmpWord                  // acc cmp x
	cmpArray                 // acc cmp arr[i]
	cmpLazy                  // acc cmp sub[i]
	mapBlock                 // fn(acc, acc)
)

type step struct {
	kind stepKind
	op   Op
	cmp  Cmp
	left bool // the operand is on the left of op
	x    uint64
	arr  []uint64
	sub  *Lazy
	fn   func(dst, src []uint64)
}

// NewLazy starts a computation from the words of base, which the caller
// must not modify afterwards.
func NewLazy(base []uint64) *Lazy { return &Lazy{base: base, n: len(base)} }

// NewGenerated starts a computation from n generated elements: every
// evaluation calls start once, and the function it returns fills the
// elements in order into successive slices (of Block words at most),
// computing them rather than reading them. start is called from
// several goroutines at once if the Lazy is evaluated so.
func NewGenerated(n int, start func() func(dst []uint64)) *Lazy {
	return &Lazy{gen: start, n: n}
}

// Len returns the number of elements.
func (l *Lazy) Len() int { return l.n }

// Cost returns the number of steps per element, operands' included.
func (l *Lazy) Cost() int { return l.cost }

func (l *Lazy) then(s step, extra int) *Lazy {
	steps := make([]step, len(l.steps), len(l.steps)+1)
	copy(steps, l.steps)
	return &Lazy{base: l.base, gen: l.gen, n: l.n, steps: append(steps, s), cost: l.cost + 1 + extra}
}

// Deferrable reports whether op never fails, so that it can be a step.
func Deferrable(op Op) bool { return op != Div && op != Mod }

// OpWord returns l op x, or x op l when left; op must be Deferrable.
func (l *Lazy) OpWord(op Op, x uint64, left bool) *Lazy {
	return l.then(step{kind: opWord, op: op, x: x, left: left}, 0)
}

// OpArray returns l op b elementwise, or b op l when left; b has l's
// length and op is Deferrable.
func (l *Lazy) OpArray(op Op, b []uint64, left bool) *Lazy {
	return l.then(step{kind: opArray, op: op, arr: b[:l.n], left: left}, 0)
}

// OpLazy returns l op b elementwise, or b op l when left; b has l's
// length and op is Deferrable.
func (l *Lazy) OpLazy(op Op, b *Lazy, left bool) *Lazy {
	if b.n != l.n {
		panic("words: OpLazy: lengths differ")
	}
	return l.then(step{kind: opLazy, op: op, sub: b, left: left}, b.cost)
}

// CompareWord returns l cmp x: 1 where it holds, else 0.
func (l *Lazy) CompareWord(c Cmp, x uint64) *Lazy {
	return l.then(step{kind: cmpWord, cmp: c, x: x}, 0)
}

// CompareArray returns l cmp b elementwise; b has l's length.
func (l *Lazy) CompareArray(c Cmp, b []uint64) *Lazy {
	return l.then(step{kind: cmpArray, cmp: c, arr: b[:l.n]}, 0)
}

// CompareLazy returns l cmp b elementwise; b has l's length.
func (l *Lazy) CompareLazy(c Cmp, b *Lazy) *Lazy {
	if b.n != l.n {
		panic("words: CompareLazy: lengths differ")
	}
	return l.then(step{kind: cmpLazy, cmp: c, sub: b}, b.cost)
}

// Map returns fn applied to l a block at a time: fn(dst, src) sets each
// dst[i] from src[i] alone (dst may alias src) and cannot fail; it may be
// called from several goroutines at once.
func (l *Lazy) Map(fn func(dst, src []uint64)) *Lazy {
	return l.then(step{kind: mapBlock, fn: fn}, 0)
}

// An evaluation holds the state of one pass over a Lazy: its generator
// and those of its operands, and a block for each operand.
type evaluation struct {
	l    *Lazy
	fill func(dst []uint64)
	subs []*evaluation // by step; nil where the step has no Lazy operand
	tmp  []uint64
}

func (l *Lazy) start() *evaluation {
	e := &evaluation{l: l}
	if l.gen != nil {
		e.fill = l.gen()
	}
	for i := range l.steps {
		if sub := l.steps[i].sub; sub != nil {
			if e.subs == nil {
				e.subs = make([]*evaluation, len(l.steps))
				e.tmp = make([]uint64, Block)
			}
			e.subs[i] = sub.start()
		}
	}
	return e
}

// block sets dst to the next elements, lo..lo+len(dst)-1: blocks are
// evaluated in order.
func (e *evaluation) block(dst []uint64, lo int) {
	hi := lo + len(dst)
	l := e.l
	src := dst
	switch {
	case e.fill != nil:
		e.fill(dst)
	case len(l.steps) == 0:
		copy(dst, l.base[lo:hi])
	default:
		src = l.base[lo:hi] // the first step reads the base in place
	}
	for i := range l.steps {
		s := &l.steps[i]
		var arg []uint64
		switch s.kind {
		case opArray, cmpArray:
			arg = s.arr[lo:hi]
		case opLazy, cmpLazy:
			arg = e.tmp[:len(dst)]
			e.subs[i].block(arg, lo)
		}
		switch s.kind {
		case opWord:
			if s.left {
				ApplyLeft(s.op, dst, s.x, src)
			} else {
				ApplyRight(s.op, dst, src, s.x)
			}
		case opArray, opLazy:
			if s.left {
				Apply(s.op, dst, arg, src)
			} else {
				Apply(s.op, dst, src, arg)
			}
		case cmpWord:
			CompareWord(s.cmp, dst, src, s.x)
		case cmpArray, cmpLazy:
			Compare(s.cmp, dst, src, arg)
		case mapBlock:
			s.fn(dst, src)
		}
		src = dst
	}
}

// Blocks calls fn with the elements in order, a block of at most Block
// at a time, until fn returns false. The block is reused: fn must not
// keep it.
func (l *Lazy) Blocks(fn func(blk []uint64) bool) {
	e := l.start()
	blk := make([]uint64, Block)
	for lo := 0; lo < l.n; lo += Block {
		b := blk[:min(Block, l.n-lo)]
		e.block(b, lo)
		if !fn(b) {
			return
		}
	}
}

// Materialize returns the elements in a new slice.
func (l *Lazy) Materialize() []uint64 {
	out := make([]uint64, l.n)
	e := l.start()
	for lo := 0; lo < l.n; lo += Block {
		e.block(out[lo:min(lo+Block, l.n)], lo)
	}
	return out
}
