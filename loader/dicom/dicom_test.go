package dicom

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// readAll opens path and reads every plane, in Z order, as one buffer.
func readAll(t *testing.T, path string) (loader.Source, []byte) {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	t.Cleanup(func() { src.Close() })
	b, err := loader.ReadAll(context.Background(), src, 0, 1<<30)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return src, b
}

// checkValues compares what the reader read with what pydicom read.
func checkValues(t *testing.T, src loader.Source, got []byte, want expected) {
	t.Helper()
	m := src.Meta()
	if m.DType.String() != dtypeName(want.DType) {
		t.Errorf("dtype %v, pydicom %s", m.DType, want.DType)
	}
	n := 1
	for _, v := range want.Shape {
		n *= v
	}
	if fmt.Sprint(trimOnes(m.Shape)) != fmt.Sprint(trimOnes(want.Shape)) {
		t.Fatalf("shape %v (%s), pydicom %v", m.Shape, m.Axes, want.Shape)
	}
	if !bytes.Equal(got, want.Data) {
		es := m.DType.Size()
		for i := 0; i < len(got) && i < len(want.Data); i += es {
			if !bytes.Equal(got[i:i+es], want.Data[i:i+es]) {
				t.Fatalf("%d bytes differ from pydicom's; first at sample %d: %v, pydicom %v", len(got), i/es, got[i:i+es], want.Data[i:i+es])
			}
		}
		t.Fatalf("%d bytes, pydicom %d", len(got), len(want.Data))
	}
}

func trimOnes(s []int) []int {
	for len(s) > 2 && s[0] == 1 {
		s = s[1:]
	}
	return s
}

func dtypeName(np string) string {
	return map[string]string{"uint8": "uint8", "int8": "int8", "uint16": "uint16", "int16": "int16",
		"uint32": "uint32", "int32": "int32", ">u2": "uint16", ">i2": "int16"}[np]
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

// TestSyntaxes writes a series of shuffled, obliquely oriented slices in
// each uncompressed transfer syntax and sample type with pydicom, and
// checks the volume read against pydicom's pixel_array of each file,
// stacked along the slice normal.
func TestSyntaxes(t *testing.T) {
	orient := []float64{0.8, 0.6, 0, -0.6, 0.8, 0} // rotated about z
	for _, syntax := range []string{"implicit", "explicit", "bigendian", "deflated"} {
		for _, dt := range []string{"<u1", "<i1", "<u2", "<i2", "<u4", "<i4"} {
			t.Run(syntax+dt, func(t *testing.T) {
				if syntax != "explicit" && dt != "<u2" {
					testtool.Long(t, "every syntax with every type (-short: each syntax with <u2, each type explicit)")
				}
				s := series{N: 6, Rows: 9, Cols: 11, DType: dt, Syntax: syntax, Orient: orient, Origin: []float64{3, -4, 10},
					Step: 1.25, Shuffle: true, Slope: ptr(2.0), Intercept: ptr(-1024.0), WC: ptr(40.0), WW: ptr(400.0), Desc: "Axial", Number: ptr(3)}
				dir, want := generate(t, "", s)
				src, got := readAll(t, dir)
				checkValues(t, src, got, want[0])
				m := src.Meta()
				if m.Format != "dicom" || m.Axes != "ZYX" {
					t.Errorf("format %s axes %s", m.Format, m.Axes)
				}
				if !near(m.Spacing[0], 1.25) || m.Spacing[1] != 0.5 || m.Spacing[2] != 0.75 || m.Units[0] != "millimeter" {
					t.Errorf("spacing %v %v", m.Spacing, m.Units)
				}
				if !near(m.Levels[0].Translation[0], want[0].Zs[0]) {
					t.Errorf("z translation %v, first position along the normal %v", m.Levels[0].Translation[0], want[0].Zs[0])
				}
				if m.ValueScale == nil || m.ValueScale.Slope != 2 || m.ValueScale.Intercept != -1024 {
					t.Errorf("value scale %+v", m.ValueScale)
				}
				// Window 40/400 in rescaled values is (-160-(-1024))/2 .. (240+1024)/2 stored.
				if len(m.Channels) != 1 || !m.Channels[0].HasWindow || m.Channels[0].Lo != 432 || m.Channels[0].Hi != 632 {
					t.Errorf("channels %+v", m.Channels)
				}
			})
		}
	}
}

// TestRealFiles reads pydicom's own test files (GE CT, explicit VR little
// endian) and compares them with pydicom's pixel_array.
func TestRealFiles(t *testing.T) {
	for _, c := range []struct{ open, dir string }{
		{testtool.SharedData(t, "dicom/CT_small.dcm"), ""},
		{testtool.SharedData(t, "dicom/CT5N_series"), testtool.SharedData(t, "dicom/CT5N_series")},
		{testtool.SharedData(t, "dicom/CT5N_series/2693"), testtool.SharedData(t, "dicom/CT5N_series")},
	} {
		t.Run(filepath.Base(c.open), func(t *testing.T) {
			want := pydicomStack(t, c.open, c.dir)
			src, got := readAll(t, c.open)
			checkValues(t, src, got, want)
			m := src.Meta()
			if m.ValueScale == nil || m.ValueScale.Intercept != -1024 || m.ValueScale.Slope != 1 {
				t.Errorf("value scale %+v", m.ValueScale)
			}
			if c.dir != "" {
				if m.Axes != "ZYX" || !near(m.Spacing[0], 2.5) || !near(m.Spacing[1], 0.488281) {
					t.Errorf("axes %s spacing %v", m.Axes, m.Spacing)
				}
				// Window 40/400, intercept -1024: stored 864..1264.
				if len(m.Channels) != 1 || m.Channels[0].Lo != 864 || m.Channels[0].Hi != 1264 {
					t.Errorf("channels %+v", m.Channels)
				}
			} else if m.Axes != "YX" || !near(m.Spacing[0], 0.661468) {
				t.Errorf("axes %s spacing %v", m.Axes, m.Spacing)
			}
		})
	}
}

// pydicomStack reads the file (or every file of dir) with pydicom, in the
// order of ImagePositionPatient along the normal.
func pydicomStack(t *testing.T, file, dir string) expected {
	t.Helper()
	out := filepath.Join(t.TempDir(), "stack.raw")
	script := `
import sys, os, numpy as np, pydicom
f, d, out = sys.argv[1:4]
names = [os.path.join(d, n) for n in os.listdir(d)] if d else [f]
ds = [pydicom.dcmread(n) for n in names]
def z(x):
    o = np.array(x.ImageOrientationPatient, float)
    return float(np.dot(np.cross(o[:3], o[3:]), np.array(x.ImagePositionPatient, float)))
ds.sort(key=z)
a = np.stack([x.pixel_array for x in ds])
a.astype(a.dtype.newbyteorder("<")).tofile(out)
print(a.dtype, *a.shape)
`
	res := testtool.RunPython(t, script, file, dir, out)
	var e expected
	var dims [3]int
	fmt.Sscan(string(res), &e.DType, &dims[0], &dims[1], &dims[2])
	e.Shape = dims[:]
	var err error
	if e.Data, err = os.ReadFile(out); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestRLE compresses series with pydicom's RLE encoder (gray 8, 16 and
// 32 bits, signed, RGB) and compares with pydicom's decoded pixel_array.
func TestRLE(t *testing.T) {
	for _, s := range []series{
		{N: 3, Rows: 17, Cols: 13, DType: "<u1", RLE: true},
		{N: 3, Rows: 17, Cols: 13, DType: "<i2", RLE: true},
		{N: 2, Rows: 8, Cols: 300, DType: "<u2", RLE: true, BitsStored: 12, Random: true},
		{N: 2, Rows: 7, Cols: 9, DType: "<u1", SPP: 3, RLE: true},
		{Frames: 4, Rows: 7, Cols: 9, DType: "<i2", RLE: true},
	} {
		t.Run(fmt.Sprintf("%s-spp%d-frames%d", s.DType, s.SPP, s.Frames), func(t *testing.T) {
			dir, want := generate(t, "", s)
			src, got := readAll(t, dir)
			checkValues(t, src, got, want[0])
		})
	}
}

// TestColour reads RGB pixels stored by pixel (PlanarConfiguration 0) and
// by plane (1) as a C axis of red, green and blue.
func TestColour(t *testing.T) {
	for _, planar := range []int{0, 1} {
		for _, syntax := range []string{"explicit", "bigendian"} {
			t.Run(fmt.Sprint(syntax, planar), func(t *testing.T) {
				dir, want := generate(t, "", series{N: 3, Rows: 6, Cols: 7, DType: "<u1", SPP: 3, Planar: planar, Syntax: syntax})
				src, got := readAll(t, dir)
				checkValues(t, src, got, want[0])
				if m := src.Meta(); m.Axes != "ZCYX" || !m.RGB {
					t.Errorf("axes %s, RGB %v", m.Axes, m.RGB)
				}
			})
		}
	}
}

// TestHighBits stores garbage above BitsStored: samples are read as
// pydicom 2.3 returns them, the stored words.
func TestHighBits(t *testing.T) {
	for _, dt := range []string{"<u2", "<i2"} {
		dir, want := generate(t, "", series{N: 2, Rows: 4, Cols: 5, DType: dt, BitsStored: 12, RawHighBits: true, Random: true})
		src, got := readAll(t, dir)
		checkValues(t, src, got, want[0])
	}
}

// TestMultiFrame reads an enhanced CT object: its frames are Z, spaced by
// the per-frame PlanePositionSequence.
func TestMultiFrame(t *testing.T) {
	for _, sign := range []int{1, -1} {
		dir, want := generate(t, "", series{Frames: 5, Rows: 6, Cols: 8, DType: "<i2", Step: 0.7, FrameSign: sign,
			Orient: []float64{1, 0, 0, 0, 0, -1}})
		src, got := readAll(t, dir)
		checkValues(t, src, got, want[0])
		m := src.Meta()
		if m.Axes != "ZYX" || m.Shape[0] != 5 || !near(m.Spacing[0], 0.7) {
			t.Errorf("axes %s shape %v spacing %v", m.Axes, m.Shape, m.Spacing)
		}
	}
}

// TestSeriesFolder puts three series in one folder: Meta.Series lists
// them named from description and number, the largest opens, and
// selectors by index and by name open the others.
func TestSeriesFolder(t *testing.T) {
	dir, want := generate(t, "",
		series{N: 2, Rows: 4, Cols: 4, DType: "<u2", Desc: "Scout", Number: ptr(1), Prefix: "A"},
		series{N: 5, Rows: 8, Cols: 6, DType: "<i2", Desc: "Axial", Number: ptr(2), Shuffle: true, Prefix: "B"},
		series{N: 3, Rows: 5, Cols: 5, DType: "<u1", Number: ptr(7), Prefix: "C"},
	)
	src, got := readAll(t, dir)
	checkValues(t, src, got, want[1])
	m := src.Meta()
	var names []string
	for _, s := range m.Series {
		names = append(names, s.Name)
	}
	if fmt.Sprint(names) != "[Scout (1) Axial (2) series 7]" || m.SeriesIndex != 1 {
		t.Errorf("series %q, index %d", names, m.SeriesIndex)
	}
	for sel, k := range map[string]int{"0": 0, "2": 2, "Scout (1)": 0, "series 7": 2} {
		src, got := readAll(t, dir+"#"+sel)
		checkValues(t, src, got, want[k])
		if src.Meta().SeriesIndex != k {
			t.Errorf("#%s: series index %d", sel, src.Meta().SeriesIndex)
		}
	}
	// One file opens its own series from the folder.
	src, got = readAll(t, filepath.Join(dir, want[2].Files[1]))
	checkValues(t, src, got, want[2])
	// Also by a relative path.
	t.Chdir(dir)
	src, got = readAll(t, "./"+want[2].Files[0])
	checkValues(t, src, got, want[2])
	if m := src.Meta(); len(m.DataFiles) != 2 {
		t.Errorf("data files %q", m.DataFiles)
	}
	if _, err := loader.Open(context.Background(), dir+"#Coronal"); err == nil {
		t.Error("no error for a missing series")
	}
}

// TestDICOMDIR makes a DICOMDIR with dcmtk's dcmmkdir over files in
// subfolders; the DICOMDIR and its folder open the series it lists.
func TestDICOMDIR(t *testing.T) {
	mkdir := testtool.Require(t, "dcmmkdir")
	dir := t.TempDir()
	sub := filepath.Join(dir, "SUB")
	os.Mkdir(sub, 0o755)
	_, want := generate(t, sub, series{N: 4, Rows: 6, Cols: 5, DType: "<u2", Shuffle: true, Prefix: "IM", Number: ptr(4), Patient: true})
	testtool.Run(t, mkdir, "--recurse", "--input-directory", dir, "--output-file", filepath.Join(dir, "DICOMDIR"), "SUB")
	for _, p := range []string{filepath.Join(dir, "DICOMDIR"), dir} {
		src, got := readAll(t, p)
		checkValues(t, src, got, want[0])
	}
}

// TestLazy checks that opening reads no samples: pixel data made garbage
// after writing opens, and fails when read.
func TestLazy(t *testing.T) {
	dir, want := generate(t, "", series{N: 3, Rows: 16, Cols: 16, DType: "<u2", RLE: true})
	p := filepath.Join(dir, want[0].Files[1])
	b, _ := os.ReadFile(p)
	// The RLE header of the frame: two segments, the first at byte 64.
	at := bytes.Index(b, []byte{2, 0, 0, 0, 64, 0, 0, 0})
	if at < 0 {
		t.Fatal("no RLE header in the file pydicom wrote")
	}
	b[at] = 7
	os.WriteFile(p, b, 0o644)
	src, err := loader.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	buf := make([]byte, src.Meta().Levels[0].ChunkBytes(src.Meta().DType))
	if err := src.ReadChunk(context.Background(), 0, []int{0, 0, 0}, buf); err != nil {
		t.Errorf("plane 0: %v", err)
	}
	if err := src.ReadChunk(context.Background(), 0, []int{1, 0, 0}, buf); err == nil {
		t.Error("no error for a corrupt RLE frame")
	} else {
		t.Log(err)
	}
}

// TestMonochrome1 reads a MONOCHROME1 series as stored, with a note.
func TestMonochrome1(t *testing.T) {
	dir, want := generate(t, "", series{N: 2, Rows: 4, Cols: 3, DType: "<u2", Photometric: "MONOCHROME1"})
	src, got := readAll(t, dir)
	checkValues(t, src, got, want[0])
	found := false
	for _, n := range src.Meta().Notes {
		found = found || strings.HasPrefix(n, "MONOCHROME1")
	}
	if !found {
		t.Errorf("notes %q", src.Meta().Notes)
	}
}

// TestOrientationSplit writes one series UID with axial and sagittal
// slices (as a localiser has): they are two images, each sorted along its
// own normal.
func TestOrientationSplit(t *testing.T) {
	dir, want := generate(t, "",
		series{UID: "1.2.826.0.1.3680043.8.498.1", N: 3, Rows: 5, Cols: 5, DType: "<i2", Number: ptr(1), Shuffle: true, Prefix: "A"},
		series{UID: "1.2.826.0.1.3680043.8.498.1", N: 4, Rows: 5, Cols: 5, DType: "<i2", Number: ptr(1), Shuffle: true, Prefix: "S",
			Orient: []float64{0, 1, 0, 0, 0, -1}},
	)
	src, got := readAll(t, dir)
	if m := src.Meta(); len(m.Series) != 2 || m.SeriesIndex != 1 {
		t.Fatalf("series %+v, index %d", m.Series, m.SeriesIndex)
	}
	checkValues(t, src, got, want[1])
	src, got = readAll(t, dir+"#0")
	checkValues(t, src, got, want[0])
}

// TestMultiFrameTimes writes an enhanced multi-frame object with pydicom
// whose 12 frames repeat 4 positions (as an fMRI run stores its volumes):
// it opens as 3 time points of 4 planes, the T spacing RepetitionTime in
// milliseconds, the samples as pydicom reads them.
func TestMultiFrameTimes(t *testing.T) {
	dir, want := generate(t, "", series{Frames: 12, FramePeriod: 4, Rows: 5, Cols: 6, DType: "<i2", Step: 2, TR: 2000,
		Orient: []float64{1, 0, 0, 0, 1, 0}, Origin: []float64{-3, 4, 5}})
	src, got := readAll(t, dir)
	m := src.Meta()
	if m.Axes != "TZYX" || fmt.Sprint(m.Shape) != "[3 4 5 6]" {
		t.Fatalf("axes %s shape %v, want TZYX [3 4 5 6]", m.Axes, m.Shape)
	}
	if m.Spacing[0] != 2000 || m.Units[0] != "millisecond" || !near(m.Spacing[1], 2) {
		t.Errorf("spacing %v units %q", m.Spacing, m.Units)
	}
	want[0].Shape = m.Shape
	checkValues(t, src, got, want[0])
	if w := m.Anatomy.World(0, 0, 3); !near(w[2], 5+3*2) {
		t.Errorf("plane 3 at %v, want z %v", w, 5+3*2)
	}
}

// TestSeriesTimes writes a series of 12 single-frame files with pydicom,
// shuffled, whose InstanceNumbers repeat 4 positions (a perfusion run):
// it opens as 3 time points of 4 planes sorted along the normal, time
// points in InstanceNumber order, the samples as pydicom reads them.
func TestSeriesTimes(t *testing.T) {
	dir, want := generate(t, "", series{N: 12, FramePeriod: 4, Rows: 5, Cols: 6, DType: "<i2", Step: 2, Shuffle: true,
		Orient: []float64{1, 0, 0, 0, 0, -1}, Origin: []float64{-3, 4, 5}})
	src, got := readAll(t, dir)
	m := src.Meta()
	if m.Axes != "TZYX" || fmt.Sprint(m.Shape) != "[3 4 5 6]" || !near(m.Spacing[1], 2) {
		t.Fatalf("axes %s shape %v spacing %v, want TZYX [3 4 5 6], Z 2", m.Axes, m.Shape, m.Spacing)
	}
	// pydicom's planes are sorted by position, then InstanceNumber: (z, t).
	plane := 5 * 6 * 2
	w := want[0]
	tz := make([]byte, len(w.Data))
	for z := range 4 {
		for ti := range 3 {
			copy(tz[(ti*4+z)*plane:], w.Data[(z*3+ti)*plane:(z*3+ti+1)*plane])
		}
	}
	w.Data, w.Shape = tz, m.Shape
	checkValues(t, src, got, w)
}
