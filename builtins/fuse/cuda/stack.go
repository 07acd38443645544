//go:build linux

package cuda

import (
	"fmt"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/cgen"
)

// The calls of helpers that recurse nest on each GPU thread's stack, which
// CUDA keeps at 1 KiB unless raised (cuCtxSetLimit, CU_LIMIT_STACK_SIZE),
// and the driver reserves the stack for every thread the card can hold at
// once (its multiprocessors times the threads each holds, some 270,000 on
// an H100), whatever a launch uses. The card's compiler cannot size the
// stack of recursive code, so it is sized here from a bound of a call's
// frame (cgen.FrameBytes), and the depth is capped so that the reservation
// stays within a share of the card's memory: an item whose calls go deeper
// than the cap is handed to the CPU (cgen's status Deep), whose own limit
// (fuse.Func.MaxCalls) and errors then apply.

// stackShare: the threads' stacks may take 1/stackShare of the card's memory.
const stackShare = 4

// stackSlack is the bytes of a thread's stack beyond the kernel's own
// local memory and the frames of the helpers: fused_func's frame, which the
// card's compiler may not inline into the kernel, and the small functions
// of the generated code.
const stackSlack = 4096

// stackPlan returns the depth cap and the stack per thread for a kernel
// with local bytes of its own whose helpers' frames take at most frame
// bytes, on a card holding threads threads at once with mem bytes of
// memory, for a function allowing maxCalls calls: the most calls whose
// stacks, for all those threads, fit in mem/stackShare (and no more than
// maxCalls). depth is 0 where not even one call fits.
func stackPlan(local, frame, threads, mem uint64, maxCalls int) (depth int, stack uint64) {
	frame = max(frame, 16)
	budget := mem / stackShare / max(threads, 1)
	fixed := local + stackSlack
	if budget < fixed+frame {
		return 0, 0
	}
	d := min(uint64(maxCalls), (budget-fixed)/frame)
	return int(d), fixed + d*frame
}

// stackFor sizes the threads' stack for the recursive kernel fn of f and
// returns the depth it allows: stackPlan's, halved while the driver
// refuses that much (other work holding the card's memory, or a stack
// past the card's most). The stack only grows: a kernel loaded before
// keeps the room it was given. The caller holds dev.mu with the context
// current.
func (dev *Device) stackFor(fn uintptr, f *fuse.Func) (int, error) {
	const attrLocal = 3  // CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES
	const limitStack = 0 // CU_LIMIT_STACK_SIZE
	var local int32
	if err := dev.check("cuFuncGetAttribute", dev.d.cuFuncGetAttribute(&local, attrLocal, fn)); err != nil {
		return 0, err
	}
	frame := max(cgen.FrameBytes(f), 16)
	fixed := uint64(max(local, 0)) + stackSlack
	threads := uint64(max(dev.sms, 1)) * uint64(max(dev.threadsPerSM, 1))
	depth, _ := stackPlan(uint64(max(local, 0)), frame, threads, dev.mem, f.MaxCalls())
	var refused error
	for ; depth > 0; depth /= 2 {
		stack := fixed + uint64(depth)*frame
		if stack <= dev.stack {
			return depth, nil
		}
		if refused = dev.check("cuCtxSetLimit", dev.d.cuCtxSetLimit(limitStack, stack)); refused != nil {
			continue
		}
		var got uint64
		if dev.d.cuCtxGetLimit(&got, limitStack) == 0 && got < stack {
			return 0, fmt.Errorf("gpu: the threads' stack is %d bytes, where %d were asked", got, stack)
		}
		dev.stack = stack
		return depth, nil
	}
	if refused != nil {
		return 0, fmt.Errorf("%w (the threads' stack for the calls of helpers that recurse)", refused)
	}
	return 0, fmt.Errorf("gpu: a thread's stack on this card cannot hold one call of the helpers that recurse (%d bytes a call)", frame)
}
