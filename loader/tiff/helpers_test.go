package tiff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// refScript dumps what tifffile reads from each file named in argv[1:] (its
// first series, or the series after '#': "f.tif#2") to that argument +
// ".ref" as little-endian samples, with samples moved before Y,X (a single
// sample dropped), half floats widened and bilevel as 0/1 bytes, as the
// loader presents them, and prints a JSON object of shape, dtype, axes and
// the file's number of series per argument.
const refScript = `
import sys, json, numpy as np, tifffile
res = {}
for arg in sys.argv[1:]:
    path, _, sel = arg.partition('#')
    with tifffile.TiffFile(path) as tf:
        s = tf.series[int(sel or 0)]
        a = s.asarray()
        axes = s.axes
        nseries = len(tf.series)
    for x in 'SIQ':
        if x in axes and a.shape[axes.index(x)] == 1:
            a = np.squeeze(a, axes.index(x))
            axes = axes.replace(x, '')
    if 'S' in axes:
        a = np.moveaxis(a, axes.index('S'), -3)
        axes = axes.replace('S', '')
        axes = axes[:-2] + 'C' + axes[-2:]
    if a.dtype == np.float16:
        a = a.astype(np.float32)  # read as float32
    if a.dtype == np.bool_:
        a = a.astype(np.uint8)  # 1-bit samples read as 0 and 1
    a = np.ascontiguousarray(a)
    open(arg + '.ref', 'wb').write(a.astype(a.dtype.newbyteorder('<')).tobytes())
    res[arg] = {'shape': list(a.shape), 'dtype': a.dtype.name, 'axes': axes, 'series': nseries}
json.dump(res, sys.stdout)
`

// ref is an array as tifffile reads it.
type ref struct {
	Shape  []int  `json:"shape"`
	DType  string `json:"dtype"`
	Axes   string `json:"axes"`
	Series int    `json:"series"` // the file's number of series
	Data   []byte `json:"-"`
}

// tifffileRead returns what tifffile reads from each path.
func tifffileRead(t *testing.T, paths ...string) map[string]ref {
	t.Helper()
	testtool.RequirePython(t, "tifffile", "numpy")
	js := testtool.RunPython(t, refScript, paths...)
	var rs map[string]ref
	if err := json.Unmarshal(js, &rs); err != nil {
		t.Fatalf("reference: %v: %s", err, js)
	}
	for p, r := range rs {
		var err error
		if r.Data, err = os.ReadFile(p + ".ref"); err != nil {
			t.Fatal(err)
		}
		rs[p] = r
	}
	return rs
}

// python runs a script that writes fixtures; argv[1] is dir.
func python(t *testing.T, dir, script string) {
	t.Helper()
	testtool.RequirePython(t, "tifffile", "numpy")
	testtool.RunPython(t, "import sys, numpy as np, tifffile\nd = sys.argv[1]\n"+script, dir)
}

// openTIFF opens path through the loader (checking that the format is
// found by its magic bytes and that the Meta validates).
func openTIFF(t testing.TB, path string) loader.Source {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// smallBands cuts strip pages of more than 1000 bytes into bands of 320
// bytes, so that strips of a few kilobytes are read in bands as strips of
// hundreds of megabytes are.
var smallBands = banding{maxPlane: 1000, band: 320}

// openBandedTIFF opens the TIFF file at path as openTIFF does, cutting
// strip pages into chunks by bands.
func openBandedTIFF(t testing.TB, path string, bands banding) loader.Source {
	t.Helper()
	src, err := openBanded(path, bands)
	if err != nil {
		t.Fatalf("open %s: %v", filepath.Base(path), err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

func readAll(t testing.TB, src loader.Source) []byte {
	t.Helper()
	b, err := loader.ReadAll(context.Background(), src, 0, 1<<31)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return b
}

// expectRef checks that our reading of path matches r: axes, shape, dtype
// and every sample.
func expectRef(t *testing.T, path, axes string, r ref) loader.Source {
	t.Helper()
	return checkRef(t, openTIFF(t, path), path, axes, r)
}

// checkRef compares src, the file at path, with tifffile's reading r.
func checkRef(t *testing.T, src loader.Source, path, axes string, r ref) loader.Source {
	t.Helper()
	m := src.Meta()
	if m.Axes != axes {
		t.Errorf("%s: axes %q, want %q", filepath.Base(path), m.Axes, axes)
	}
	if !reflect.DeepEqual(m.Shape, r.Shape) {
		t.Errorf("%s: shape %v, tifffile reads %v", filepath.Base(path), m.Shape, r.Shape)
	}
	if m.DType.String() != r.DType {
		t.Errorf("%s: dtype %s, tifffile reads %s", filepath.Base(path), m.DType, r.DType)
	}
	if t.Failed() {
		t.FailNow()
	}
	got := readAll(t, src)
	if !bytes.Equal(got, r.Data) {
		t.Fatalf("%s: samples differ from tifffile's at byte %d", filepath.Base(path), firstDiff(got, r.Data))
	}
	return src
}

// expectTifffile compares our reading of path with tifffile's.
func expectTifffile(t *testing.T, path, axes string) loader.Source {
	t.Helper()
	return expectRef(t, path, axes, tifffileRead(t, path)[path])
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func expectSpacing(t *testing.T, m *loader.Meta, spacing []float64, units []string) {
	t.Helper()
	for i := range spacing {
		if d := m.Spacing[i] - spacing[i]; d > 1e-9*spacing[i] || d < -1e-9*spacing[i] {
			t.Errorf("spacing %v, want %v", m.Spacing, spacing)
			break
		}
	}
	if !reflect.DeepEqual(m.Units, units) {
		t.Errorf("units %q, want %q", m.Units, units)
	}
}

// openErr opens path expecting an error at Open or while reading every
// chunk, and returns it.
func openErr(t *testing.T, path string) error {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		return err
	}
	defer src.Close()
	_, err = loader.ReadAll(context.Background(), src, 0, 1<<31)
	if err == nil {
		t.Fatalf("%s: no error", filepath.Base(path))
	}
	return err
}

// expectFormatErr checks that err is a one-line *loader.FormatError
// containing want.
func expectFormatErr(t *testing.T, err error, want string) {
	t.Helper()
	var fe *loader.FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a FormatError", err, err)
	}
	if !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q does not say %q", err, want)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
