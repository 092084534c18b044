// Package testtool runs the external programs that make test fixtures
// (ImageMagick, Debian's python3 with tifffile, nibabel, zarr, dask, ffmpeg).
// When a program is missing a test is skipped on a developer machine but
// fails under CI (CI=true), so a CI run cannot pass without its peers.
package testtool

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"testing"
)

// Python is the interpreter that has Debian's python3-* packages.
const Python = "/usr/bin/python3"

// Require skips (or, under CI, fails) t unless the named program exists.
func Require(t testing.TB, prog string) string {
	t.Helper()
	p, err := exec.LookPath(prog)
	if err != nil {
		missing(t, prog+" is not installed")
	}
	return p
}

// RequirePython skips (or, under CI, fails) t unless Debian's python3 can
// import every named module.
func RequirePython(t testing.TB, modules ...string) {
	t.Helper()
	Require(t, Python)
	for _, m := range modules {
		if out, err := exec.Command(Python, "-c", "import "+m).CombinedOutput(); err != nil {
			missing(t, "python module "+m+" is not importable: "+string(out))
		}
	}
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why + " (required under CI)")
	}
	t.Skip(why)
}

// Run runs prog with args and fails t on error, showing its output.
func Run(t testing.TB, prog string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(prog, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", prog, args, err, out.String())
	}
	return out.Bytes()
}

// RunPython runs a Python script with Debian's python3 and args (available
// as sys.argv[1:]); it returns standard output and fails t on error.
func RunPython(t testing.TB, script string, args ...string) []byte {
	t.Helper()
	RequirePython(t)
	cmd := exec.Command(Python, append([]string{"-c", script}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s\n%s", err, errb.String(), script)
	}
	return out.Bytes()
}

// ReadPNG decodes the PNG file at path, failing t on error.
func ReadPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}
