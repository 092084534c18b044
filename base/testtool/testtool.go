// Package testtool runs the external programs that make test fixtures
// (ImageMagick, Debian's python3 with tifffile, nibabel, zarr, dask and GDAL, ffmpeg).
// When a program is missing a test is skipped on a developer machine but
// fails under CI (CI=true), so a CI run cannot pass without its peers.
package testtool

import (
	"bytes"
	"encoding/binary"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
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

// ReadNPY reads a NumPy .npy file (format 1.x or 2.x, C order): its dtype
// descriptor ("<u2", "|u1", ...), shape and raw sample bytes.
func ReadNPY(t testing.TB, path string) (descr string, shape []int, data []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		t.Fatalf("%s: not a .npy file", path)
	}
	n, start := int(binary.LittleEndian.Uint16(b[8:10])), 10
	if b[6] >= 2 {
		n, start = int(binary.LittleEndian.Uint32(b[8:12])), 12
	}
	if start+n > len(b) {
		t.Fatalf("%s: header runs past the end", path)
	}
	h := string(b[start : start+n])
	field := func(key string) string {
		i := strings.Index(h, "'"+key+"':")
		if i < 0 {
			t.Fatalf("%s: no %s in %q", path, key, h)
		}
		return strings.TrimSpace(h[i+len(key)+3:])
	}
	if strings.HasPrefix(field("fortran_order"), "True") {
		t.Fatalf("%s: Fortran order", path)
	}
	d := field("descr")
	descr = d[1 : 1+strings.IndexByte(d[1:], '\'')]
	s := field("shape")
	for _, f := range strings.Split(s[1:strings.IndexByte(s, ')')], ",") {
		if f = strings.TrimSpace(f); f != "" {
			v, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s: shape %q", path, s)
			}
			shape = append(shape, v)
		}
	}
	return descr, shape, b[start+n:]
}
