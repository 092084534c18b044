package hdf5

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/internal/testtool"
	"vastview/loader"
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

// TestBDVN5: the N5 image loader is refused by name.
func TestBDVN5(t *testing.T) {
	p := filepath.Join(t.TempDir(), "n5.xml")
	os.WriteFile(p, []byte(`<?xml version="1.0"?><SpimData version="0.2"><SequenceDescription><ImageLoader format="bdv.n5"><n5 type="relative">x.n5</n5></ImageLoader></SequenceDescription></SpimData>`), 0o644)
	_, err := loader.Open(context.Background(), p)
	var ue *loader.UnsupportedError
	if !asError(err, &ue) {
		t.Fatalf("err %v, want an UnsupportedError", err)
	}
}
