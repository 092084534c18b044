package hdf5

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
	_ "vastview/loader/n5" // the N5 reader, for XML + N5
)

type bdvWant struct {
	Levels  int
	Factors [][]float64
	Spacing []float64
	Origin  []float64
	Series  int
}

func writeBDV(t *testing.T, mode string) (string, bdvWant) {
	t.Helper()
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	script, err := os.ReadFile("testdata/bdv.py")
	if err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, string(script), dir, mode)
	var w bdvWant
	if err := json.Unmarshal(out, &w); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return dir, w
}

// checkBDV compares every level of src with h5py's reads, and the
// geometry with the registration's.
func checkBDV(t *testing.T, src loader.Source, dir string, series int, w bdvWant, axes string) {
	t.Helper()
	m := src.Meta()
	if m.Axes != axes || len(m.Levels) != w.Levels || m.DType != loader.Uint16 {
		t.Fatalf("axes %s, %d levels, %v; want %s, %d, uint16", m.Axes, len(m.Levels), m.DType, axes, w.Levels)
	}
	lead := len(axes) - 3
	for l := 0; l < w.Levels; l++ {
		_, shape, ref := testtool.ReadNPY(t, filepath.Join(dir, fmt.Sprintf("ref_%d_L%d.npy", series, l)))
		if fmt.Sprint(m.Levels[l].Shape) != fmt.Sprint(shape) {
			t.Fatalf("level %d shape %v, h5py %v", l, m.Levels[l].Shape, shape)
		}
		got, err := loader.ReadAll(context.Background(), src, l, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, ref) {
			t.Errorf("level %d differs from h5py's read", l)
		}
		for i := 0; i < 3; i++ {
			j := 2 - i
			s := w.Spacing[j] * w.Factors[l][j]
			tr := w.Origin[j] + (w.Factors[l][j]-1)/2*w.Spacing[j]
			if !near(m.Levels[l].Scale[lead+i], s) || !near(m.Levels[l].Translation[lead+i], tr) {
				t.Errorf("level %d axis %c: scale %g translation %g, want %g %g", l, axes[lead+i], m.Levels[l].Scale[lead+i], m.Levels[l].Translation[lead+i], s, tr)
			}
		}
	}
	if m.Units[lead] != "micrometer" {
		t.Errorf("units %q", m.Units)
	}
}

// TestBDVChannels: two setups that differ only in channel are the C axis.
func TestBDVChannels(t *testing.T) {
	dir, w := writeBDV(t, "channels")
	src, err := loader.Open(context.Background(), filepath.Join(dir, "data.xml"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Meta().Format != bdvFormat {
		t.Fatalf("format %q", src.Meta().Format)
	}
	checkBDV(t, src, dir, 0, w, "TCZYX")
}

// TestBDVSeries: setups of different sizes are series; #1 opens the
// second.
func TestBDVSeries(t *testing.T) {
	dir, w := writeBDV(t, "series")
	for i := 0; i < w.Series; i++ {
		src, err := loader.Open(context.Background(), filepath.Join(dir, "data.xml")+fmt.Sprintf("#%d", i))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(src.Meta().Series); n != w.Series || src.Meta().SeriesIndex != i {
			t.Errorf("%d series, index %d", n, src.Meta().SeriesIndex)
		}
		checkBDV(t, src, dir, i, w, "TZYX")
		src.Close()
	}
}

// bdvN5Script writes a BigDataViewer XML + N5 pair: zarr-python's N5Store
// holding setup0 and setup1 (timepoint0, levels s0 and s1 with the setup's
// downsamplingFactors) as BigDataViewer lays them out, each level beside it
// as zarr reads it (.npy), and an XML giving setup 0 a voxel size of
// 0.5 x 0.5 x 2 um and setup 1 a registration that scales by 3 x 3 x 6 and
// shifts by (10, 20, 30).
const bdvN5Script = `
import os, sys, numpy as np, numcodecs, zarr, warnings
warnings.simplefilter("ignore")
out = sys.argv[1]
g = zarr.group(store=zarr.N5Store(os.path.join(out, "data.n5")))
for s, (dt, shape) in enumerate([("uint16", (6, 20, 24)), ("uint8", (4, 10, 16))]):
    su = g.create_group("setup%d" % s)
    su.attrs["downsamplingFactors"] = [[1, 1, 1], [2, 2, 2]]
    su.attrs["dataType"] = dt
    tp = su.create_group("timepoint0")
    full = (np.arange(np.prod(shape)) * 37 % 251).astype(dt).reshape(shape)
    for k, f in enumerate([1, 2]):
        a = tp.create_dataset("s%d" % k, data=full[::f, ::f, ::f], chunks=(2, 8, 8), compressor=numcodecs.GZip())
        np.save(os.path.join(out, "s%d_%d.npy" % (s, k)), a[...].astype(a.dtype.newbyteorder("<")))
open(os.path.join(out, "data.xml"), "w").write("""<?xml version="1.0" encoding="UTF-8"?>
<SpimData version="0.2"><BasePath type="relative">.</BasePath>
<SequenceDescription><ImageLoader format="bdv.n5" version="1.0"><n5 type="relative">data.n5</n5></ImageLoader>
<ViewSetups>
<ViewSetup><id>0</id><name>GFP</name><size>24 20 6</size><voxelSize><unit>micrometer</unit><size>0.5 0.5 2.0</size></voxelSize></ViewSetup>
<ViewSetup><id>1</id><name>DAPI</name><size>16 10 4</size><voxelSize><unit>micrometer</unit><size>1 1 1</size></voxelSize></ViewSetup>
</ViewSetups>
<Timepoints type="range"><first>0</first><last>0</last></Timepoints></SequenceDescription>
<ViewRegistrations>
<ViewRegistration timepoint="0" setup="1"><ViewTransform type="affine"><affine>3 0 0 10 0 3 0 20 0 0 6 30</affine></ViewTransform></ViewRegistration>
</ViewRegistrations></SpimData>""")
`

// TestBDVN5: a BigDataViewer XML + N5 pair opens each view setup as a
// series, by index or by its name, with the N5 levels as zarr reads them
// and the XML's voxel size, unit and registration as the geometry.
func TestBDVN5(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	dir := t.TempDir()
	testtool.RunPython(t, bdvN5Script, dir)
	ctx := context.Background()
	for _, c := range []struct {
		sel            string
		series         int
		spacing, trans []float64 // z, y, x of level 0, then level 1's translation
	}{
		{"", 0, []float64{2, 0.5, 0.5}, []float64{0, 0, 0, 1, 0.25, 0.25}},
		{"#DAPI", 1, []float64{6, 3, 3}, []float64{30, 20, 10, 33, 21.5, 11.5}},
	} {
		src, err := loader.Open(ctx, filepath.Join(dir, "data.xml")+c.sel)
		if err != nil {
			t.Fatal(err)
		}
		m := src.Meta()
		if m.Format != "bdv" || m.Axes != "ZYX" || len(m.Series) != 2 || m.SeriesIndex != c.series || m.Series[1].Name != "DAPI" {
			t.Fatalf("%q: %s %s series %v (%d)", c.sel, m.Format, m.Axes, m.Series, m.SeriesIndex)
		}
		if len(m.Levels) != 2 {
			t.Fatalf("%q: %d levels", c.sel, len(m.Levels))
		}
		for i := range 3 {
			l0, l1 := m.Levels[0], m.Levels[1]
			if math.Abs(m.Spacing[i]-c.spacing[i]) > 1e-9 || m.Units[i] != "micrometer" ||
				math.Abs(l0.Translation[i]-c.trans[i]) > 1e-9 || math.Abs(l1.Scale[i]-2*c.spacing[i]) > 1e-9 ||
				math.Abs(l1.Translation[i]-c.trans[3+i]) > 1e-9 {
				t.Fatalf("%q axis %d: spacing %v %v, levels %+v", c.sel, i, m.Spacing, m.Units, m.Levels)
			}
		}
		for k := range 2 {
			_, shape, want := testtool.ReadNPY(t, filepath.Join(dir, fmt.Sprintf("s%d_%d.npy", c.series, k)))
			got, err := loader.ReadAll(ctx, src, k, 1<<24)
			if err != nil || fmt.Sprint(m.Levels[k].Shape) != fmt.Sprint(shape) || !bytes.Equal(got, want) {
				t.Fatalf("%q level %d: shape %v (zarr %v), samples equal %v, %v", c.sel, k, m.Levels[k].Shape, shape, bytes.Equal(got, want), err)
			}
		}
		src.Close()
	}
}
