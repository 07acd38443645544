package interp_test

import (
	"strings"
	"testing"

	"github.com/bitsh/bitsh/interp"
)

// TestBacktraceShortensMessage: an error message of megabytes (a value
// named by code that does not abbreviate it) is shown as its start and
// its end, with the number of bytes left out.
func TestBacktraceShortensMessage(t *testing.T) {
	ee := evalError(t, "fail('begin' + 'x' * 1000000 + 'end')\n")
	bt := interp.Backtrace(ee)
	if len(bt) > 2500 || !strings.Contains(bt, "bytes left out") || !strings.Contains(bt, "begin") || !strings.HasSuffix(bt, "end") {
		t.Errorf("Backtrace of a 1 MB message: %d bytes, %.100q ... %q", len(bt), bt, bt[max(len(bt)-100, 0):])
	}
	ee = evalError(t, "fail('short')\n")
	if bt := interp.Backtrace(ee); !strings.HasSuffix(bt, "Error in fail: fail: short") {
		t.Errorf("Backtrace of a short message: %q", bt)
	}
}

// TestBacktraceShortensNumbers: a message of megabytes because it names
// a huge number in full (fuse's compiler does) shows the number's first
// and last digits and its length.
func TestBacktraceShortensNumbers(t *testing.T) {
	ee := evalError(t, "fail('x = ' + '9' * 300000 + ' does not fit')\n")
	bt := interp.Backtrace(ee)
	if !strings.HasSuffix(bt, "x = 9999999999999999...9999 (300000 digits) does not fit") {
		t.Errorf("Backtrace of a 300,000-digit number: %d bytes, ending %q", len(bt), bt[max(len(bt)-100, 0):])
	}
}
