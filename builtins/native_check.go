package builtins

import (
	"github.com/bitsh/bitsh/builtins/machine"
	"go.starlark.net/starlark"
)

// CheckNative compiles fn as a plain function run as machine code, as a
// run's first offer of fn with args compiles it (the hook of
// native_calls.go: machine.Compile with machine.Plain(args) and the Env
// the run on thread gives the compiler), and waits for its machine code.
// It returns "" where fn would run as machine code, else the reason the
// report of a run (bitsh -native-report) gives after "not compiled: ".
// Nothing of fn runs.
func CheckNative(thread *starlark.Thread, fn *starlark.Function, args starlark.Tuple) string {
	code, err := machine.Compile(fn, machine.Plain(args), machineEnv(thread))
	if err == nil {
		<-code.Plain.Ready()
		err = code.Plain.Err()
	}
	if err != nil {
		return withFile(fn, err.Error())
	}
	return ""
}
