package interp_test

import (
	"errors"

	"go.starlark.net/starlark"
)

// backtrace returns the Starlark call stack of err when it has one.
func backtrace(err error) string {
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		return ee.Backtrace()
	}
	return err.Error()
}
