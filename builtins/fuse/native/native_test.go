package native_test

import (
	"errors"
	"testing"

	"github.com/bitsh/bitsh/builtins/fuse"
	"github.com/bitsh/bitsh/builtins/fuse/native"
	"github.com/bitsh/bitsh/builtins/internal/fusescript"
)

// runAll runs p on the inputs a block at a time and returns each item's
// result or error.
func runAll(t *testing.T, w *native.Worker, params int, inputs [][]uint64) ([]uint64, []error) {
	t.Helper()
	res := make([]uint64, len(inputs))
	errs := make([]error, len(inputs))
	for lo := 0; lo < len(inputs); {
		n := min(native.Block, len(inputs)-lo)
		for p := 0; p < params; p++ {
			for i := 0; i < n; i++ {
				w.Params(p)[i] = inputs[lo+i][p]
			}
		}
		done, out, err := w.Run(n, false)
		copy(res[lo:], out[:done])
		if err != nil {
			if errors.Is(err, fuse.ErrStopped) {
				t.Fatal(err)
			}
			errs[lo+done] = err
			done++ // go on after the failing item
		}
		lo += done
	}
	return res, errs
}

func TestConstructsAgreeWithEval(t *testing.T) {
	for _, tc := range fusescript.Constructs {
		t.Run(tc.Name, func(t *testing.T) {
			s, err := fusescript.Load(tc.Src)
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.Compile("f")
			if err != nil {
				t.Fatal(err)
			}
			p, err := native.Compile(f)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			w, err := p.NewWorker(nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			inputs := fusescript.Inputs(600, tc.Params, tc.Small)
			got, errs := runAll(t, w, tc.Params, inputs)
			st := f.NewState(nil)
			for i, in := range inputs {
				want, werr := st.Eval(in)
				if (werr == nil) != (errs[i] == nil) || werr == nil && got[i] != want {
					t.Fatalf("f%v = %#x, %v; Eval gives %#x, %v\n%s", in, got[i], errs[i], want, werr, f)
				}
				var fe, we *fuse.FlowError
				if errors.As(werr, &we) && (!errors.As(errs[i], &fe) || *fe != *we) {
					t.Fatalf("f%v: error %v; Eval gives %v", in, errs[i], werr)
				}
			}
		})
	}
}
