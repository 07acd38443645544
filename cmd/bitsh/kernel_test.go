package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bitsh/bitsh/internal/testscale"
)

// python is Debian's interpreter, where python3-nbclient installs (the
// python3 first on PATH may be another one).
const python = "/usr/bin/python3"

// TestNotebook runs examples/notebooks/tour.ipynb on the bitsh kernel with
// a real Jupyter client (nbclient) and checks every output: values,
// streams, SVG pictures, an error and an interrupt.
func TestNotebook(t *testing.T) {
	dir := installForClient(t)
	nb, err := filepath.Abs("../../examples/notebooks/tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	runClient(t, dir, "all outputs as expected", "testdata/notebook/check.py", nb, filepath.Join(dir, "out.ipynb"))
}

// TestNotebookUnattended runs the same notebook as jupyter nbconvert
// --execute would: with nobody to interrupt the long cell, and no error
// allowed outside the cell tagged raises-exception.
func TestNotebookUnattended(t *testing.T) {
	if testscale.Short() {
		t.Skip("skipping: the long cell runs its 5 s")
	}
	dir := installForClient(t)
	nb, err := filepath.Abs("../../examples/notebooks/tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	runClient(t, dir, "ran unattended", "testdata/notebook/unattended.py", nb)
}

// TestKernelProtocol checks kernel_info, complete, inspect, is_complete,
// interrupt_request and shutdown with jupyter_client.
func TestKernelProtocol(t *testing.T) {
	dir := installForClient(t)
	runClient(t, dir, "all replies as expected", "testdata/notebook/protocol.py")
}

// TestKernelHostile sends the requests that used to wedge the kernel
// (execute and complete on the control channel during a cell) or kill it
// (inspect of "(" * 20000000), then an interrupt and a shutdown during a
// cell, and checks every reply and that the kernel stays alive.
func TestKernelHostile(t *testing.T) {
	dir := installForClient(t)
	runClient(t, dir, "all hostile requests answered", "testdata/notebook/hostile.py")
}

// installForClient skips the test without Debian's Jupyter client, else
// installs the kernelspec (pointing at this test binary acting as bitsh)
// in a temporary Jupyter data directory, which it returns.
func installForClient(t *testing.T) string {
	t.Helper()
	if err := exec.Command(python, "-c", "import nbclient, nbformat, jupyter_client").Run(); err != nil {
		t.Skipf("skipping: %s cannot import nbclient (apt-get install python3-nbclient python3-jupyter-client; .ci/run does so as root): %v", python, err)
	}
	exe, err := exec.LookPath("bitsh") // the test binary, copied onto PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := writeKernelspec(filepath.Join(dir, "share", "jupyter", "kernels", "bitsh"), exe); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runClient runs a Python client script against the kernelspec in dir and
// fails unless it exits 0 and prints confirm.
func runClient(t *testing.T, dir, confirm string, args ...string) {
	t.Helper()
	cmd := exec.Command(python, args...)
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+filepath.Join(dir, "share", "jupyter"), "JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	if !strings.Contains(string(out), confirm) {
		t.Fatalf("%s did not print %q", args[0], confirm)
	}
}
