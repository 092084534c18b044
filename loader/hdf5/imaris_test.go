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
)

// realIMS is where Bitplane's minimal Imaris file of the shared test data
// is, for the tests that may do without it (seeds, cut files).
var realIMS, _ = testtool.LookSharedData("ims/Minimal_IMS_File.ims")

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestImarisWritten reads an Imaris-layout file written by h5py: every
// level, time point and channel equals h5py's read of the cropped Data,
// spacing and origin follow ExtMin/ExtMax, channels carry name, colour and
// range. Without a Unit attribute the unit is Imaris's default, the
// micrometre.
func TestImarisWritten(t *testing.T) {
	for _, unit := range []string{"um", "nounit"} {
		t.Run(unit, func(t *testing.T) { testImarisWritten(t, unit) })
	}
}

func testImarisWritten(t *testing.T, unit string) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	script, err := os.ReadFile("testdata/imaris.py")
	if err != nil {
		t.Fatal(err)
	}
	ims := filepath.Join(dir, "made.ims")
	out := testtool.RunPython(t, string(script), ims, filepath.Join(dir, "ref"), unit)
	var want struct {
		Levels   [][]int
		NT, NC   int
		Spacing  []float64
		Origin   []float64
		TStep    float64
		Channels []struct {
			Name   string
			Color  []int
			Window []float64
		}
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ctx := context.Background()
	src, err := loader.Open(ctx, ims)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "TCZYX" || len(m.Levels) != len(want.Levels) {
		t.Fatalf("axes %s, %d levels; want TCZYX, %d", m.Axes, len(m.Levels), len(want.Levels))
	}
	for r, size := range want.Levels {
		shape := append([]int{want.NT, want.NC}, size...)
		if fmt.Sprint(m.Levels[r].Shape) != fmt.Sprint(shape) {
			t.Fatalf("level %d shape %v, want %v", r, m.Levels[r].Shape, shape)
		}
		_, _, ref := testtool.ReadNPY(t, filepath.Join(dir, fmt.Sprintf("ref_L%d.npy", r)))
		got, err := loader.ReadAll(ctx, src, r, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, ref) {
			t.Errorf("level %d differs from h5py's read", r)
		}
	}
	for i := 0; i < 3; i++ {
		if !near(m.Spacing[2+i], want.Spacing[i]) || !near(m.Levels[0].Translation[2+i], want.Origin[i]+want.Spacing[i]/2) {
			t.Errorf("axis %c: spacing %g origin %g, want %g, %g", m.Axes[2+i], m.Spacing[2+i], m.Levels[0].Translation[2+i], want.Spacing[i], want.Origin[i])
		}
		if m.Units[2+i] != "micrometer" {
			t.Errorf("unit %q", m.Units[2+i])
		}
	}
	if !near(m.Spacing[0], want.TStep) || m.Units[0] != "second" {
		t.Errorf("T step %g %s, want %g s", m.Spacing[0], m.Units[0], want.TStep)
	}
	if len(m.Channels) != want.NC {
		t.Fatalf("%d channels", len(m.Channels))
	}
	for c, ch := range want.Channels {
		g := m.Channels[c]
		if g.Label != ch.Name || !g.HasColor || int(g.Color[0]) != ch.Color[0] || int(g.Color[1]) != ch.Color[1] || int(g.Color[2]) != ch.Color[2] ||
			!g.HasWindow || g.Lo != ch.Window[0] || g.Hi != ch.Window[1] {
			t.Errorf("channel %d: %+v, want %+v", c, g, ch)
		}
	}
}

// TestImarisReal reads Bitplane's minimal example file: its one plane
// equals h5py's read, and the extents give the spacing.
func TestImarisReal(t *testing.T) {
	realIMS := testtool.SharedData(t, "ims/Minimal_IMS_File.ims")
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.npy")
	out := testtool.RunPython(t, `
import sys, json, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
c = f['DataSet/ResolutionLevel 0/TimePoint 0/Channel 0']
size = [int(b''.join(c.attrs['ImageSize' + k])) for k in 'ZYX']
np.save(sys.argv[2], c['Data'][:size[0], :size[1], :size[2]])
img = f['DataSetInfo/Image'].attrs
ext = [(float(b''.join(img['ExtMin%d' % i])), float(b''.join(img['ExtMax%d' % i]))) for i in (2, 1, 0)]
print(json.dumps({'size': size, 'spacing': [(hi - lo) / n for (lo, hi), n in zip(ext, size)]}))
`, realIMS, ref)
	var want struct {
		Size    []int
		Spacing []float64
	}
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ctx := context.Background()
	src, err := loader.Open(ctx, realIMS)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	if m.Axes != "ZYX" || fmt.Sprint(m.Shape) != fmt.Sprint(want.Size) || m.DType != loader.Uint16 {
		t.Fatalf("%s %v %v, want ZYX %v uint16", m.Axes, m.Shape, m.DType, want.Size)
	}
	for i := range want.Spacing {
		if !near(m.Spacing[i], want.Spacing[i]) {
			t.Errorf("spacing %v, want %v", m.Spacing, want.Spacing)
		}
	}
	_, _, data := testtool.ReadNPY(t, ref)
	got, err := loader.ReadAll(ctx, src, 0, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Error("the image differs from h5py's read")
	}
}
