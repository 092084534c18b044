package cli

import (
	"strings"
	"testing"

	"vastview/loader"
)

// helpNames gives, for each registered format, the words by which `help`
// names it in its list of what SRC may be.
var helpNames = map[string][]string{
	"tiff":       {"TIFF", "BigTIFF", "OME-TIFF", "ImageJ hyperstack"},
	"nrrd":       {"NRRD"},
	"metaimage":  {"MetaImage"},
	"nifti":      {"NIfTI"},
	"mrc":        {"MRC"},
	"dicom":      {"DICOM"},
	"hdf5":       {"HDF5", "Imaris"},
	"bdv":        {"BigDataViewer"},
	"czi":        {"CZI"},
	"lif":        {"LIF"},
	"nd2":        {"ND2"},
	"zarr":       {"Zarr"},
	"n5":         {"N5"},
	"cine":       {"cine"},
	"norpix-seq": {"seq"},
	"spe":        {"SPE"},
	"video":      {"video"},
	"png":        {"PNG"},
	"jpeg":       {"JPEG"},
	"bmp":        {"BMP"},
	"gif":        {"GIF"},
	"sequence":   {"folder or quoted glob"},
}

// TestHelpNamesEveryFormat checks `vastview help` against the formats that
// register: each is named in the paragraph on SRC, so the list cannot fall
// behind a new reader.
func TestHelpNamesEveryFormat(t *testing.T) {
	out := mustRun(t, "help")
	_, src, ok := strings.Cut(out, "\nSRC is ")
	if !ok {
		t.Fatalf("help has no paragraph on SRC:\n%s", out)
	}
	src = strings.Join(strings.Fields(src), " ")
	fs := loader.Formats()
	if len(fs) == 0 {
		t.Fatal("no format registered")
	}
	for _, f := range fs {
		words, ok := helpNames[f.Name]
		if !ok {
			t.Errorf("format %q registers, but the test does not know how help names it", f.Name)
			continue
		}
		for _, w := range words {
			if !strings.Contains(src, w) {
				t.Errorf("help's SRC list does not name %s (format %q)", w, f.Name)
			}
		}
	}
}
