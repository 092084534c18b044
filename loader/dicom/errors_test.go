package dicom

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

// TestRefusedSyntaxes compresses a file to JPEG-LS with dcmtk's dcmcjpls
// and GDCM, and marks one as JPEG 2000 with pydicom (GDCM's encoder
// crashes here): opening it is one error naming the syntax.
func TestRefusedSyntaxes(t *testing.T) {
	for _, c := range []struct {
		tool string
		args []string
		name string
	}{
		{"dcmcjpls", nil, "JPEG-LS lossless"},
		{"gdcmconv", []string{"--jpegls"}, "JPEG-LS lossless"},
		{"", nil, "JPEG 2000"},
	} {
		dir, want := generate(t, "", series{N: 1, Rows: 8, Cols: 8, DType: "<u2"})
		p := filepath.Join(dir, want[0].Files[0])
		if c.tool != "" {
			testtool.Run(t, testtool.Require(t, c.tool), append(c.args, p, p+".c")...)
		} else {
			testtool.RunPython(t, `
import sys, pydicom
from pydicom.encaps import encapsulate
d = pydicom.dcmread(sys.argv[1])
d.file_meta.TransferSyntaxUID = "1.2.840.10008.1.2.4.90"
d.PixelData = encapsulate([b"\xff\x4f\xff\x51" + bytes(60)])
d["PixelData"].is_undefined_length = True
d["PixelData"].VR = "OB"
d.save_as(sys.argv[2], write_like_original=False)
`, p, p+".c")
		}
		_, err := loader.Open(context.Background(), p+".c")
		var ue *loader.UnsupportedError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v", c.args, err)
		}
	}
}

// TestTruncated cuts a pydicom-written file inside its header and inside
// its pixel data, and makes an element claim more bytes than the file
// holds: each is one clear error, never a panic or a large allocation.
func TestTruncated(t *testing.T) {
	dir, want := generate(t, "", series{N: 1, Rows: 64, Cols: 64, DType: "<u2", Desc: "Axial"})
	p := filepath.Join(dir, want[0].Files[0])
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	desc := strings.Index(string(b), "Axial")
	bad := append([]byte(nil), b...)
	binary.LittleEndian.PutUint16(bad[desc-2:], 0xFFF0) // SeriesDescription's length
	for name, data := range map[string][]byte{
		"header": b[:desc], "pixels": b[:len(b)-100], "length": bad, "short": b[:60],
	} {
		q := filepath.Join(t.TempDir(), "x.dcm")
		os.WriteFile(q, data, 0o644)
		_, err := loader.Open(context.Background(), q)
		if err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name != "short" && !strings.Contains(err.Error(), loader.ErrTruncated.Error()) {
			t.Errorf("%s: %v does not say the file is truncated", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestNoPreamble reads a file pydicom writes without the 128-byte
// preamble and "DICM" (the dataset alone, implicit VR), named .dcm.
func TestNoPreamble(t *testing.T) {
	dir, want := generate(t, "", series{N: 1, Rows: 5, Cols: 7, DType: "<i2", Syntax: "implicit"})
	p := filepath.Join(dir, want[0].Files[0])
	q := filepath.Join(t.TempDir(), "bare.dcm")
	testtool.RunPython(t, `
import sys, pydicom
d = pydicom.dcmread(sys.argv[1])
d.preamble = None
d.file_meta = pydicom.dataset.FileMetaDataset()
pydicom.dcmwrite(sys.argv[2], d, write_like_original=True)
`, p, q)
	b, _ := os.ReadFile(q)
	if hasPreamble(b) {
		t.Fatal("pydicom wrote a preamble")
	}
	src, got := readAll(t, q)
	checkValues(t, src, got, want[0])
}

// TestBadFileInFolder cuts one file of a series short: the folder opens
// with the others, and a note names the file left out.
func TestBadFileInFolder(t *testing.T) {
	dir, want := generate(t, "", series{N: 4, Rows: 6, Cols: 6, DType: "<u2"})
	p := filepath.Join(dir, want[0].Files[2])
	b, _ := os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-20], 0o644)
	src, err := loader.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	note := strings.Join(m.Notes, "; ")
	if m.Shape[0] != 3 || !strings.Contains(note, "1 file not read ("+want[0].Files[2]+":") {
		t.Errorf("shape %v, notes %q", m.Shape, note)
	}
}
