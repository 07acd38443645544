package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// runKernelInstall implements "bitsh kernel install": it writes the
// kernelspec directory bitsh/ (kernel.json and logos) where Jupyter looks.
func runKernelInstall(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bitsh kernel install", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	user := fs.Bool("user", false, "install for the current user (Jupyter's user data directory)")
	prefix := fs.String("prefix", "", "install under `DIR`/share/jupyter (a virtual environment, a test)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, kernelUsage)
			return exitOK
		}
		return usageError(stderr, "kernel install: %v (bitsh kernel -h for usage)", err)
	}
	if *user && *prefix != "" || fs.NArg() > 0 {
		return usageError(stderr, "kernel install: give at most one of --user and --prefix DIR, and no other argument")
	}
	exe, err := executablePath()
	if err != nil {
		fmt.Fprintf(stderr, "%s: kernel install: cannot find the bitsh executable: %v\n", progName, err)
		return exitError
	}
	dir, err := kernelspecDir(*user, *prefix)
	if err != nil {
		fmt.Fprintf(stderr, "%s: kernel install: %v\n", progName, err)
		return exitError
	}
	if err := writeKernelspec(dir, exe); err != nil {
		fmt.Fprintf(stderr, "%s: kernel install: %v\n", progName, err)
		return exitError
	}
	fmt.Fprintf(stdout, "installed the bitsh kernelspec in %s\n", dir)
	return exitOK
}

// executablePath returns the path by which this bitsh was started, made
// absolute but not resolved through links (so a test binary standing in
// for bitsh under that name keeps acting as bitsh).
func executablePath() (string, error) {
	arg0 := os.Args[0]
	if filepath.Base(arg0) == arg0 {
		p, err := exec.LookPath(arg0)
		if err != nil {
			return os.Executable()
		}
		arg0 = p
	}
	return filepath.Abs(arg0)
}

// kernelspecDir is Jupyter's kernels/bitsh directory for the choice made:
// DIR/share/jupyter, the user's data directory ($JUPYTER_DATA_DIR, else
// $XDG_DATA_HOME/jupyter or ~/.local/share/jupyter), or the system one
// (/usr/local/share/jupyter).
func kernelspecDir(user bool, prefix string) (string, error) {
	switch {
	case prefix != "":
		return filepath.Join(prefix, "share", "jupyter", "kernels", "bitsh"), nil
	case user:
		if d := os.Getenv("JUPYTER_DATA_DIR"); d != "" {
			return filepath.Join(d, "kernels", "bitsh"), nil
		}
		if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
			return filepath.Join(d, "jupyter", "kernels", "bitsh"), nil
		}
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, ".local", "share", "jupyter", "kernels", "bitsh"), nil
	}
	return filepath.Join("/usr/local/share/jupyter", "kernels", "bitsh"), nil
}

func writeKernelspec(dir, exe string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	spec, _ := json.MarshalIndent(map[string]any{
		"argv":           []string{exe, "kernel", "-f", "{connection_file}"},
		"display_name":   "bitsh",
		"language":       "starlark",
		"interrupt_mode": "signal",
		"metadata":       map[string]any{"debugger": false},
	}, "", "  ")
	files := map[string][]byte{
		"kernel.json":    append(spec, '\n'),
		"logo-svg.svg":   []byte(logoSVG()),
		"logo-32x32.png": logoPNG(32),
		"logo-64x64.png": logoPNG(64),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// The logo is a 4x4 board of bits, the pattern of 0b1011_0110_1101_0010.
const logoBits = 0b1011_0110_1101_0010

// logoSVG draws the logo as SVG; written when a kernelspec is installed,
// not as every run starts.
func logoSVG() string {
	var b bytes.Buffer
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">` + "\n")
	b.WriteString(`<rect width="64" height="64" rx="8" fill="#1d2733"/>` + "\n")
	for i := 0; i < 16; i++ {
		fill := "#33475c"
		if logoBits>>i&1 == 1 {
			fill = "#f2b134"
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="12" height="12" rx="2" fill="%s"/>`+"\n", 6+14*(i%4), 6+14*(i/4), fill)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// logoPNG draws the logo at size×size pixels.
func logoPNG(size int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	bg := color.RGBA{0x1d, 0x27, 0x33, 0xff}
	on := color.RGBA{0xf2, 0xb1, 0x34, 0xff}
	off := color.RGBA{0x33, 0x47, 0x5c, 0xff}
	scale := float64(size) / 64
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			img.Set(x, y, bg)
			fx, fy := float64(x)/scale, float64(y)/scale
			cx, cy := int((fx-6)/14), int((fy-6)/14)
			if fx >= 6 && fy >= 6 && cx < 4 && cy < 4 && fx-6-float64(14*cx) < 12 && fy-6-float64(14*cy) < 12 {
				if logoBits>>(4*cy+cx)&1 == 1 {
					img.Set(x, y, on)
				} else {
					img.Set(x, y, off)
				}
			}
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}
