package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// python is Debian's interpreter, where python3-nbclient installs (the
// python3 first on PATH may be another one).
const python = "/usr/bin/python3"

// TestNotebook runs examples/notebooks/tour.ipynb on the bitsh kernel with
// a real Jupyter client (nbclient) and checks every output: values,
// streams, SVG pictures, an error and an interrupt.
func TestNotebook(t *testing.T) {
	if err := exec.Command(python, "-c", "import nbclient, nbformat, jupyter_client").Run(); err != nil {
		t.Skipf("skipping: %s cannot import nbclient (apt-get install python3-nbclient python3-jupyter-client; .ci/run does so as root): %v", python, err)
	}
	exe, err := exec.LookPath("bitsh") // the test binary, copied onto PATH by testscript.Main
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "share", "jupyter", "kernels", "bitsh")
	if err := writeKernelspec(spec, exe); err != nil {
		t.Fatal(err)
	}
	nb, err := filepath.Abs("../../examples/notebooks/tour.ipynb")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "testdata/notebook/check.py", nb, filepath.Join(dir, "out.ipynb"))
	cmd.Env = append(os.Environ(), "JUPYTER_PATH="+filepath.Join(dir, "share", "jupyter"), "JUPYTER_RUNTIME_DIR="+filepath.Join(dir, "runtime"))
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("check.py: %v", err)
	}
	if !strings.Contains(string(out), "all outputs as expected") {
		t.Fatal("check.py did not confirm the outputs")
	}
}
