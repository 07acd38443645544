package testscale

import "testing"

func TestShortUnlessLong(t *testing.T) {
	for _, c := range []struct {
		env   string
		short bool
	}{{"", true}, {"0", true}, {"1", testing.Short()}, {"yes", testing.Short()}} {
		t.Setenv(Env, c.env)
		if got := Short(); got != c.short {
			t.Errorf("%s=%q: Short() = %v, want %v", Env, c.env, got, c.short)
		}
	}
}
