package dicom

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
)

// compressAll runs tool with args over every file of dir, in place.
func compressAll(t *testing.T, dir string, files []string, tool string, args ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, f)
		tmp := p + ".tmp"
		testtool.Run(t, tool, append(append([]string(nil), args...), p, tmp)...)
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
}

// syntaxOf is the transfer syntax pydicom reads in the file at path.
func syntaxOf(t *testing.T, path string) string {
	t.Helper()
	return string(testtool.RunPython(t, `import sys, pydicom; print(pydicom.dcmread(sys.argv[1], stop_before_pixels=True).file_meta.TransferSyntaxUID, end="")`, path))
}

// TestJPEGLossless compresses pydicom-written series with dcmtk's dcmcjpeg
// (process 14 with each of the seven predictors, selection value 1, point
// transforms, 8 to 16 bits, signed, colour, multi-frame with and without
// an offset table) and with GDCM's gdcmconv, and compares the volume read
// with the uncompressed original as pydicom read it (with the point
// transform's low bits cleared).
func TestJPEGLossless(t *testing.T) {
	cj := testtool.Require(t, "dcmcjpeg")
	type tc struct {
		s    series
		tool string
		args []string
		ts   string
		pt   int
	}
	var cases []tc
	// Every predictor (-short: 1 and 2; 4 and 7 are in the cases below too).
	for _, sv := range testtool.Quick([]int{1, 2, 3, 4, 5, 6, 7}, 2) {
		cases = append(cases, tc{series{N: 2, Rows: 19, Cols: 23, DType: "<u2", BitsStored: 12}, cj, []string{"+el", "+sv", fmt.Sprint(sv)}, tsJPEGLL14, 0})
	}
	cases = append(cases,
		tc{series{N: 2, Rows: 16, Cols: 16, DType: "<u1"}, cj, []string{"+e1"}, tsJPEGLLSV1, 0},
		tc{series{N: 2, Rows: 16, Cols: 17, DType: "<i2"}, cj, []string{"+e1"}, tsJPEGLLSV1, 0},
		tc{series{N: 2, Rows: 16, Cols: 17, DType: "<u2", Random: true}, cj, []string{"+el", "+sv", "4"}, tsJPEGLL14, 0},
		tc{series{N: 2, Rows: 13, Cols: 11, DType: "<u2", BitsStored: 10}, cj, []string{"+el", "+sv", "7", "+pt", "3"}, tsJPEGLL14, 3},
		tc{series{N: 2, Rows: 9, Cols: 10, DType: "<u1", SPP: 3}, cj, []string{"+e1"}, tsJPEGLLSV1, 0},
		tc{series{Frames: 3, Rows: 9, Cols: 10, DType: "<u2", BitsStored: 16}, cj, []string{"+e1", "+ot"}, tsJPEGLLSV1, 0},
		tc{series{Frames: 3, Rows: 9, Cols: 10, DType: "<u2", BitsStored: 16}, cj, []string{"+e1", "-ot"}, tsJPEGLLSV1, 0},
	)
	if gc, err := lookTool("gdcmconv"); err == nil {
		cases = append(cases,
			tc{series{N: 2, Rows: 20, Cols: 21, DType: "<u2", BitsStored: 16}, gc, []string{"--jpeg", "--lossless"}, tsJPEGLLSV1, 0},
			tc{series{N: 2, Rows: 20, Cols: 21, DType: "<i2", BitsStored: 16}, gc, []string{"--jpeg", "--lossless"}, tsJPEGLLSV1, 0},
		)
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s%v-%s-spp%d-f%d", filepath.Base(c.tool), c.args, c.s.DType, c.s.SPP, c.s.Frames), func(t *testing.T) {
			dir, want := generate(t, "", c.s)
			compressAll(t, dir, want[0].Files, c.tool, c.args...)
			if ts := syntaxOf(t, filepath.Join(dir, want[0].Files[0])); ts != c.ts {
				t.Fatalf("%s wrote transfer syntax %s, want %s", c.tool, ts, c.ts)
			}
			if c.pt > 0 {
				clearLow(want[0].Data, c.s.DType, c.pt)
			}
			src, got := readAll(t, dir)
			checkValues(t, src, got, want[0])
		})
	}
}

// clearLow clears the low pt bits of every sample (the point transform).
func clearLow(b []byte, dt string, pt int) {
	if dt == "<u1" || dt == "<i1" {
		for i := range b {
			b[i] &^= byte(1<<pt - 1)
		}
		return
	}
	for i := 0; i+1 < len(b); i += 2 {
		binary.LittleEndian.PutUint16(b[i:], binary.LittleEndian.Uint16(b[i:])&^uint16(1<<pt-1))
	}
}

// TestJPEGBaseline compresses 8-bit series with dcmcjpeg +eb and compares
// the volume with pydicom's pixel_array (through Pillow's libjpeg) of the
// compressed files, colour converted from YBR_FULL(_422) to RGB with
// pydicom's convert_color_space: gray within 1 of it (the two decoders'
// integer IDCTs round differently), colour within 3 (that difference in
// Y plus 1.772 times it in Cb, rounded).
func TestJPEGBaseline(t *testing.T) {
	cj := testtool.Require(t, "dcmcjpeg")
	testtool.RequirePython(t, "PIL")
	for _, c := range []struct {
		s    series
		args []string
		tol  int
	}{
		{series{N: 2, Rows: 24, Cols: 40, DType: "<u1"}, nil, 1},
		{series{N: 2, Rows: 16, Cols: 24, DType: "<u1", SPP: 3}, nil, 3},
		{series{N: 2, Rows: 15, Cols: 21, DType: "<u1", SPP: 3}, nil, 3},
		{series{N: 2, Rows: 16, Cols: 24, DType: "<u1", SPP: 3}, []string{"+s4"}, 3},
	} {
		t.Run(fmt.Sprint(c.s.SPP, c.args, c.s.Cols), func(t *testing.T) {
			dir, want := generate(t, "", c.s)
			compressAll(t, dir, want[0].Files, cj, append([]string{"+eb"}, c.args...)...)
			var all []byte
			for _, f := range want[0].Files {
				all = append(all, pixelArray(t, filepath.Join(dir, f))...)
			}
			src, got := readAll(t, dir)
			if len(got) != len(all) {
				t.Fatalf("%d bytes, pydicom %d", len(got), len(all))
			}
			worst := 0
			for i := range got {
				d := int(got[i]) - int(all[i])
				worst = max(worst, d, -d)
			}
			if worst > c.tol {
				t.Errorf("samples differ from pydicom's by up to %d", worst)
			}
			if src.Meta().Notes == nil {
				t.Error("no notes")
			}
		})
	}
}

// pixelArray is pydicom's pixel_array of the file (colour as channel, row,
// column), little-endian.
func pixelArray(t *testing.T, path string) []byte {
	t.Helper()
	out := path + ".raw"
	testtool.RunPython(t, `
import sys, numpy as np, pydicom
from pydicom.pixel_data_handlers.util import convert_color_space
d = pydicom.dcmread(sys.argv[1]); a = d.pixel_array
if d.PhotometricInterpretation.startswith("YBR_FULL"): a = convert_color_space(a, "YBR_FULL", "RGB")
if d.SamplesPerPixel == 3: a = np.moveaxis(a, -1, -3)
a.astype(a.dtype.newbyteorder("<")).tofile(sys.argv[2])
`, path, out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(out)
	return b
}

func lookTool(name string) (string, error) { return exec.LookPath(name) }
