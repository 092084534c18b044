package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vastview/base/subproc"
	"vastview/base/testtool"
)

// TestMain runs as vastview's main does (serving as a decoder's child
// process when started as one) the command line testtool.CLIEnv holds, in
// a child process of a test, or else the tests.
func TestMain(m *testing.M) {
	subproc.Main()
	if v := os.Getenv(testtool.CLIEnv); v != "" {
		os.Exit(Run(strings.Split(v, "\n"), os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// vv runs one vastview command line in-process.
func vv(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return code, o.String(), e.String()
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := vv(args...)
	if code != 0 {
		t.Fatalf("vastview %v: exit %d: %s", args, code, errs)
	}
	return out
}

func infoOf(t *testing.T, path string) infoJSON {
	t.Helper()
	var j infoJSON
	if err := json.Unmarshal([]byte(mustRun(t, "info", "--json", path)), &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// checkPlane runs `plane` with args and compares the .raw output with the
// bytes in want.
func checkPlane(t *testing.T, src, want string, args ...string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "p.raw")
	mustRun(t, append([]string{"plane", src, "--out", out}, args...)...)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, ref) {
		t.Fatalf("plane %v: %d bytes differ from the reference's %d", args, len(got), len(ref))
	}
}

func TestInfoAndPlanesOfTifffileStack(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
d = sys.argv[1]
rng = np.random.default_rng(5)
a = rng.integers(0, 65535, size=(9, 21, 17), dtype=np.uint16)
tifffile.imwrite(d + '/s.tif', a, imagej=True, resolution=(1/0.25, 1/0.25),
                 metadata={'spacing': 1.5, 'unit': 'um', 'axes': 'ZYX'})
a[4].astype('<u2').tofile(d + '/xy4.raw')
a[:, 6, :].astype('<u2').tofile(d + '/xz6.raw')
a[:, :, 11].astype('<u2').tofile(d + '/yz11.raw')
`, dir)
	src := filepath.Join(dir, "s.tif")
	j := infoOf(t, src)
	if j.Axes != "ZYX" || !slices.Equal(j.Shape, []int{9, 21, 17}) || j.DType != "uint16" {
		t.Fatalf("info: %+v", j)
	}
	if !near(j.Spacing, []float64{1.5, 0.25, 0.25}) || j.Units[2] != "micrometer" {
		t.Errorf("spacing %v units %v", j.Spacing, j.Units)
	}
	if len(j.Levels) != 1 || !slices.Equal(j.Levels[0].Shape, j.Shape) || !near(j.Levels[0].Scale, j.Spacing) {
		t.Errorf("levels %+v", j.Levels)
	}
	checkPlane(t, src, filepath.Join(dir, "xy4.raw"), "--z", "4")
	checkPlane(t, src, filepath.Join(dir, "xy4.raw"), "--index", "4")
	checkPlane(t, src, filepath.Join(dir, "xz6.raw"), "--plane", "xz", "--index", "6")
	checkPlane(t, src, filepath.Join(dir, "yz11.raw"), "--plane", "yz", "--index", "11")
}

func TestInfoAndPlaneOfNibabelVolume(t *testing.T) {
	testtool.RequirePython(t, "nibabel", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, nibabel as nib
d = sys.argv[1]
a = (np.arange(5*6*4*3, dtype=np.float32).reshape(5, 6, 4, 3) * 0.5 - 7)  # x, y, z, t
img = nib.Nifti1Image(a, np.diag([0.5, 0.7, 2.0, 1]))
img.header.set_zooms((0.5, 0.7, 2.0, 1.5))
img.header.set_xyzt_units('mm', 'sec')
nib.save(img, d + '/v.nii.gz')
a[:, :, 2, 1].T.astype('<f4').tofile(d + '/t1z2.raw')
`, dir)
	src := filepath.Join(dir, "v.nii.gz")
	j := infoOf(t, src)
	if j.Format != "nifti" || j.Axes != "TZYX" || !slices.Equal(j.Shape, []int{3, 4, 6, 5}) || j.DType != "float32" {
		t.Fatalf("info: %+v", j)
	}
	if !near(j.Spacing, []float64{1.5, 2.0, 0.7, 0.5}) || j.Units[1] != "millimeter" || j.Units[0] != "second" {
		t.Errorf("spacing %v units %v", j.Spacing, j.Units)
	}
	checkPlane(t, src, filepath.Join(dir, "t1z2.raw"), "--t", "1", "--z", "2")
}

func TestInfoOfImageMagickFrames(t *testing.T) {
	testtool.Require(t, "convert")
	dir := t.TempDir()
	for _, n := range []string{"f1", "f2", "f10"} {
		testtool.Run(t, "convert", "-size", "13x7", "gradient:", "-depth", "8", filepath.Join(dir, n+".png"))
	}
	j := infoOf(t, dir)
	if j.Axes != "ZYX" || !slices.Equal(j.Shape, []int{3, 7, 13}) || j.DType != "uint8" {
		t.Fatalf("info: %+v", j)
	}
}

func TestPlanePNGDrawsTheWindow(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
a = np.array([[0, 100, 150, 200, 250, 1000]], dtype=np.uint16)
tifffile.imwrite(sys.argv[1] + '/w.tif', a)
`, dir)
	out := filepath.Join(dir, "w.png")
	mustRun(t, "plane", filepath.Join(dir, "w.tif"), "--out", out, "--level-range", "100,200")
	img := testtool.ReadPNG(t, out)
	want := []uint32{0, 0, 128, 255, 255, 255}
	if b := img.Bounds(); b.Dx() != 6 || b.Dy() != 1 {
		t.Fatalf("png is %v", b)
	}
	for x, w := range want {
		r, _, _, _ := img.At(x, 0).RGBA()
		if r>>8 != w {
			t.Errorf("pixel %d: %d, want %d", x, r>>8, w)
		}
	}
	mustRun(t, "plane", filepath.Join(dir, "w.tif"), "--out", out, "--window", "100,150")
	if code, _, errs := vv("plane", filepath.Join(dir, "w.tif"), "--out", out, "--colormap", "nope"); code != 1 || !strings.Contains(errs, "unknown colormap") {
		t.Errorf("bad colormap: exit %d, %q", code, errs)
	}
}

func TestBadInputGivesOneClearLine(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.tif")
	os.WriteFile(junk, []byte("this is not an image at all"), 0o644)
	trunc := filepath.Join(dir, "trunc.tif")
	// A little-endian TIFF header whose first IFD lies past the end.
	os.WriteFile(trunc, []byte{'I', 'I', 42, 0, 0, 0, 1, 0}, 0o644)
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"info", filepath.Join(dir, "missing.tif")}, "missing.tif: no such file"},
		{[]string{"info", junk}, "junk.tif: not a supported image format"},
		{[]string{"info", trunc}, "trunc.tif: tiff"},
		{[]string{"info", empty}, "empty"},
		{[]string{"plane", trunc, "--out", filepath.Join(dir, "x.raw")}, "trunc.tif"},
		{[]string{"plane", junk}, "--out"},
		{[]string{"plane", junk, "--out", "x.bmp"}, ".raw or .png"},
		{[]string{"info", "--bogus", junk}, "unknown option --bogus"},
		{[]string{"bench", "nosuch"}, "unknown benchmark"},
	} {
		code, out, errs := vv(c.args...)
		if code != 1 || out != "" {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, out)
		}
		if !strings.HasPrefix(errs, "vastview: ") || !strings.Contains(errs, c.want) || strings.Count(errs, "\n") != 1 {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, errs, c.want)
		}
	}
}

func near(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if d := a[i] - b[i]; d > 1e-6*max(1, b[i]) || d < -1e-6*max(1, b[i]) {
			return false
		}
	}
	return true
}

func TestPlanePNGOfColourPixels(t *testing.T) {
	testtool.RequirePython(t, "tifffile", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
a = (np.arange(5 * 7 * 3).reshape(5, 7, 3) * 11 % 256).astype(np.uint8)
tifffile.imwrite(sys.argv[1] + '/rgb.tif', a, photometric='rgb')
a.tofile(sys.argv[1] + '/rgb.raw')
`, dir)
	out := filepath.Join(dir, "rgb.png")
	mustRun(t, "plane", filepath.Join(dir, "rgb.tif"), "--out", out, "--colormap", "rgb")
	img := testtool.ReadPNG(t, out)
	want, err := os.ReadFile(filepath.Join(dir, "rgb.raw"))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 7 || b.Dy() != 5 {
		t.Fatalf("png is %v", b)
	}
	for y := 0; y < 5; y++ {
		for x := 0; x < 7; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			w := want[3*(7*y+x):]
			if uint8(r>>8) != w[0] || uint8(g>>8) != w[1] || uint8(b>>8) != w[2] {
				t.Fatalf("pixel (%d,%d) = %d %d %d, want %v", x, y, r>>8, g>>8, b>>8, w[:3])
			}
		}
	}
	gray := filepath.Join(dir, "w.tif")
	testtool.RunPython(t, `
import sys, numpy as np, tifffile
tifffile.imwrite(sys.argv[1], np.zeros((4, 4), np.uint8))
`, gray)
	if code, _, errs := vv("plane", gray, "--out", out, "--colormap", "rgb"); code != 1 || !strings.Contains(errs, "three samples") {
		t.Errorf("rgb of a gray image: exit %d, %q", code, errs)
	}
}

func TestInfoAndPlaneOfSinglePNG(t *testing.T) {
	testtool.RequirePython(t, "numpy", "PIL")
	dir := t.TempDir()
	testtool.RunPython(t, `
import sys, numpy as np
from PIL import Image
d = sys.argv[1]
rng = np.random.default_rng(9)
rgb = rng.integers(0, 256, (6, 11, 3), dtype=np.uint8)
Image.fromarray(rgb, 'RGB').save(d + '/rgb.png')
rgb[..., 1].tofile(d + '/green.raw')
mask = rng.integers(0, 2, (6, 11), dtype=np.uint8)
Image.fromarray(mask.astype(bool)).save(d + '/mask.png')
mask.tofile(d + '/mask.raw')
deep = rng.integers(0, 65536, (6, 11), dtype=np.uint16)
Image.fromarray(deep).save(d + '/deep.png')
deep.astype('<u2').tofile(d + '/deep.raw')
`, dir)
	for name, want := range map[string]string{"rgb": "CYX [3 6 11] uint8", "mask": "YX [6 11] uint8", "deep": "YX [6 11] uint16"} {
		j := infoOf(t, filepath.Join(dir, name+".png"))
		if got := j.Axes + " " + fmt.Sprint(j.Shape) + " " + j.DType; j.Format != "png" || got != want {
			t.Errorf("%s.png: info %s %s, want png %s", name, j.Format, got, want)
		}
	}
	checkPlane(t, filepath.Join(dir, "rgb.png"), filepath.Join(dir, "green.raw"), "--c", "1")
	checkPlane(t, filepath.Join(dir, "mask.png"), filepath.Join(dir, "mask.raw"))
	checkPlane(t, filepath.Join(dir, "deep.png"), filepath.Join(dir, "deep.raw"))
	good, err := os.ReadFile(filepath.Join(dir, "rgb.png"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.png")
	os.WriteFile(cut, good[:len(good)/2], 0o644)
	code, _, errs := vv("plane", cut, "--out", filepath.Join(dir, "x.raw"))
	if code != 1 || !strings.HasPrefix(errs, "vastview: "+cut+": png: ") || strings.Count(errs, "\n") != 1 {
		t.Errorf("truncated PNG: exit %d, %q", code, errs)
	}
}
