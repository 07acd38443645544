package builtins_test

import (
	"context"
	"errors"
	"math/big"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/bitsh/bitsh/builtins"
	"github.com/bitsh/bitsh/internal/testscale"
	"go.starlark.net/starlark"
)

// roundRef is Python's round(x, -d) for d > 0, computed the plain way:
// the nearest multiple of 10**d, halves to even.
func roundRef(x *big.Int, d int64) *big.Int {
	m := new(big.Int).Exp(big.NewInt(10), big.NewInt(d), nil)
	q, r := new(big.Int).DivMod(x, m, new(big.Int))
	if c := new(big.Int).Lsh(r, 1).Cmp(m); c > 0 || c == 0 && q.Bit(0) == 1 {
		q.Add(q, big.NewInt(1))
	}
	return q.Mul(q, m)
}

// TestRoundIntNearCutOff compares round(x, -d) with roundRef where d is
// near the number of digits of x, on both sides of where round may
// answer 0 without dividing: a limit in bits compared with a count of
// digits answered 0 for round(2**16000000, -4194305), whose answer has
// 4,816,480 digits.
func TestRoundIntNearCutOff(t *testing.T) {
	th := newThread(context.Background())
	round := builtins.Predeclared()["round"]
	check := func(x *big.Int, d int64) {
		t.Helper()
		got, err := starlark.Call(th, round, starlark.Tuple{starlark.MakeBigInt(x), starlark.MakeInt64(-d)}, nil)
		if err != nil {
			t.Fatalf("round(<%d-bit int>, -%d): %v", x.BitLen(), d, err)
		}
		if want := roundRef(x, d); got.(starlark.Int).BigInt().Cmp(want) != 0 {
			t.Errorf("round(<%d-bit int>, -%d) = <%d-bit int>, want <%d-bit int> (%v)", x.BitLen(), d,
				got.(starlark.Int).BigInt().BitLen(), want.BitLen(), want.Sign())
		}
	}
	// The sweep's case: 2**16000000 and 4194305 digits.
	check(new(big.Int).Lsh(big.NewInt(1), 16000000), 4194305)
	for _, digits := range []int64{1, 2, 19, 20, 300, 1000} {
		ten := new(big.Int).Exp(big.NewInt(10), big.NewInt(digits), nil)
		half := new(big.Int).Rsh(ten, 1)
		for _, x := range []*big.Int{
			half,
			new(big.Int).Sub(half, big.NewInt(1)),
			new(big.Int).Add(half, big.NewInt(1)),
			new(big.Int).Neg(half),
			new(big.Int).Sub(ten, big.NewInt(1)),
			new(big.Int).Mul(ten, big.NewInt(7)),
			new(big.Int).Lsh(big.NewInt(1), uint(ten.BitLen()-1)),
			new(big.Int).Lsh(big.NewInt(1), uint(ten.BitLen()-2)),
			new(big.Int).Lsh(big.NewInt(1), uint(ten.BitLen()-3)),
		} {
			for d := digits - 2; d <= digits+2; d++ {
				if d > 0 {
					check(x, d)
				}
			}
		}
	}
}

// TestBigNumberStopsOnOneProcessor runs big-number builtins that would take
// hours on one processor (GOMAXPROCS=1, a container's share) with a
// context that ends after 50 ms: each must return the interruption error.
// math/big's assembly loops cannot be preempted, so a builtin that does
// not yield starves the context's timer itself and never sees it end.
func TestBigNumberStopsOnOneProcessor(t *testing.T) {
	if testscale.Short() {
		t.Skip("multiplies numbers of millions of bits")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	env := builtins.Predeclared()
	for _, src := range []string{
		"pow(3, m, m)",     // 4,000,000 squarings of 4,000,000-bit numbers
		"pow(3, m - 1, m)", // an even modulus's path
	} {
		m := new(big.Int).Add(new(big.Int).Lsh(big.NewInt(1), 4000000), big.NewInt(7))
		if strings.Contains(src, "m - 1") {
			m.Sub(m, big.NewInt(1)) // even
		}
		ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("timeout after 50ms"))
		th := newThread(ctx)
		stop := context.AfterFunc(ctx, func() { th.Cancel("cancelled") })
		done := make(chan error, 1)
		go func() {
			_, err := starlark.Eval(th, "<test>", src, starlark.StringDict{"pow": env["pow"], "m": starlark.MakeBigInt(m)})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "interrupted") {
				t.Errorf("%s: %v, want the interruption error", src, err)
			}
		case <-time.After(2 * time.Minute): // a hang guard, not a timing assertion
			t.Fatalf("%s did not return within 2 minutes of its context's end", src)
		}
		stop()
		cancel()
	}
}
