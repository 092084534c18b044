package formats

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/tiff/tiffwrite"
)

// write writes a file, making its folder.
func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pngBytes is a small gray PNG picture.
func pngBytes(t *testing.T) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 5, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// tiffBytes is a small one-page TIFF.
func tiffBytes(t *testing.T) []byte {
	p := filepath.Join(t.TempDir(), "x.tif")
	if err := tiffwrite.Stack(p, 5, 4, 1, loader.Uint8, func(int, []byte) {}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dicomBytes starts as a DICOM file does: a preamble of 128 bytes, then
// "DICM" and a group 0002 element (enough for a claim, not for reading).
func dicomBytes() []byte {
	b := make([]byte, 128, 200)
	b = append(b, "DICM\x02\x00\x10\x00UI\x04\x001.2\x00"...)
	return b
}

// detect is the name of the format the registry decides path is, or the
// error.
func detect(t *testing.T, path string) (string, error) {
	t.Helper()
	f, err := loader.Detect(path)
	return f.Name, err
}

// want checks that the registry gives path to format name.
func want(t *testing.T, path, name string) {
	t.Helper()
	if got, err := detect(t, path); got != name || err != nil {
		t.Errorf("%s: %q, %v; want %s", filepath.Base(path), got, err, name)
	}
}

// TestFoldersAreDecidedByMarkersThenContent covers the folders several
// formats may claim: PNGs beside a DICOMDIR (the DICOMDIR, a marker,
// decides), DICOM files without a marker (DICOM and frames both claim; the
// list's precedence gives it to DICOM), Zarr v2 and v3 stores and an N5
// container (their markers decide, frames do not claim them), and a
// folder of frames.
func TestFoldersAreDecidedByMarkersThenContent(t *testing.T) {
	dir := t.TempDir()
	pngs := filepath.Join(dir, "pngs")
	write(t, filepath.Join(pngs, "a.png"), pngBytes(t))
	write(t, filepath.Join(pngs, "b.png"), pngBytes(t))
	want(t, pngs, "sequence")

	withDir := filepath.Join(dir, "withdicomdir")
	write(t, filepath.Join(withDir, "a.png"), pngBytes(t))
	write(t, filepath.Join(withDir, "b.png"), pngBytes(t))
	write(t, filepath.Join(withDir, "DICOMDIR"), dicomBytes())
	want(t, withDir, "dicom")

	series := filepath.Join(dir, "series")
	for _, n := range []string{"IM1", "IM2", "IM3"} {
		write(t, filepath.Join(series, n), dicomBytes())
	}
	write(t, filepath.Join(series, "preview.png"), pngBytes(t))
	want(t, series, "dicom")

	v2 := filepath.Join(dir, "v2")
	write(t, filepath.Join(v2, ".zarray"), []byte(`{"zarr_format": 2}`))
	write(t, filepath.Join(v2, "0.png"), pngBytes(t)) // frames do not make it a stack
	want(t, v2, "zarr")
	v2group := filepath.Join(dir, "v2group")
	write(t, filepath.Join(v2group, ".zgroup"), []byte(`{"zarr_format": 2}`))
	want(t, v2group, "zarr")
	v3 := filepath.Join(dir, "v3")
	write(t, filepath.Join(v3, "zarr.json"), []byte(`{"zarr_format": 3, "node_type": "group"}`))
	want(t, v3, "zarr")
	n5 := filepath.Join(dir, "c.n5")
	write(t, filepath.Join(n5, "attributes.json"), []byte(`{"n5": "4.0.0"}`))
	want(t, n5, "n5")

	for _, c := range []struct {
		path          string
		listed, image bool
	}{
		{pngs, false, false}, {withDir, true, true}, {series, false, true},
		{v2, true, true}, {v2group, true, true}, {v3, true, true}, {n5, true, true},
	} {
		if got := loader.ListedFolder(c.path); got != c.listed {
			t.Errorf("ListedFolder(%s) = %v", filepath.Base(c.path), got)
		}
		if got := loader.FolderIsImage(c.path); got != c.image {
			t.Errorf("FolderIsImage(%s) = %v", filepath.Base(c.path), got)
		}
	}
}

// TestAddressesArePrecise: Zarr takes any address, N5 those at or below a
// .n5 folder, which the list gives to N5.
func TestAddressesArePrecise(t *testing.T) {
	want(t, "https://h/data.n5", "n5")
	want(t, "https://h/data.n5/setup0?x=1", "n5")
	want(t, "https://h/data.n5/sub/img.zarr", "zarr")
	want(t, "s3://bucket/img.ome.zarr", "zarr")
	want(t, filepath.Join(t.TempDir(), "*.png"), "sequence")
}

// TestFilesAreDecidedByContent: a file's content decides, whatever its
// name says; a name decides only for a format without a signature (SPE),
// and only when no format claims the content.
func TestFilesAreDecidedByContent(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		data   []byte
		format string
	}{
		{"picture.tif", pngBytes(t), "png"},
		{"stack.png", tiffBytes(t), "tiff"},
		{"stack.spe", tiffBytes(t), "tiff"},
		{"camera.spe", make([]byte, 4100), "spe"},
		{"scan.dcm", dicomBytes(), "dicom"},
		{"scan", dicomBytes(), "dicom"},
	} {
		p := filepath.Join(dir, c.name)
		write(t, p, c.data)
		want(t, p, c.format)
	}
	// A DICOM file whose preamble is a TIFF header: both claim it, and the
	// list gives it to DICOM.
	dual := append(tiffBytes(t)[:8], dicomBytes()[8:]...)
	p := filepath.Join(dir, "dual.dcm")
	write(t, p, dual)
	want(t, p, "dicom")
}

// TestAFileNoFormatClaimsNamesWhatWasTried: the error is ErrFormat and
// names every format that reads files by their content or name; opening
// says the same.
func TestAFileNoFormatClaimsNamesWhatWasTried(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.tif")
	write(t, p, []byte("this is not an image at all"))
	_, err := loader.Open(context.Background(), p)
	if !errors.Is(err, loader.ErrFormat) {
		t.Fatalf("open: %v, want ErrFormat", err)
	}
	for _, name := range []string{"tiff", "png", "dicom", "nifti", "spe", "video"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("%q does not name %s", err, name)
		}
	}
	if strings.Contains(err.Error(), "zarr") || strings.Contains(err.Error(), p) {
		t.Errorf("%q names a folder format or repeats the path", err)
	}
}

// TestSeveralClaimsAreAnErrorNamingThem: a TIFF file with MRC2014's "MAP"
// at byte 208 is claimed by both, and no precedence says which reads it.
func TestSeveralClaimsAreAnErrorNamingThem(t *testing.T) {
	b := tiffBytes(t)
	for len(b) < 1024 {
		b = append(b, 0)
	}
	copy(b[208:], "MAP ")
	p := filepath.Join(t.TempDir(), "both.tif")
	write(t, p, b)
	_, err := loader.Open(context.Background(), p)
	var amb *loader.AmbiguousError
	if !errors.As(err, &amb) || !slices.Equal(amb.Formats, []string{"tiff", "mrc"}) {
		t.Fatalf("open: %v, want both tiff and mrc named", err)
	}
	if !strings.Contains(err.Error(), "tiff, mrc") {
		t.Errorf("message %q", err)
	}
}

// TestTheListIsComplete: Formats lists every format in the order of the
// list, each with the words help and README name it by, and the
// precedences name listed formats.
func TestTheListIsComplete(t *testing.T) {
	var names []string
	for _, f := range loader.Formats() {
		names = append(names, f.Name)
		if len(f.Titles) == 0 {
			t.Errorf("%s has no titles", f.Name)
		}
	}
	if !slices.Equal(names, Order) {
		t.Errorf("formats %v, want %v", names, Order)
	}
}

// TestREADMENamesEveryFormat checks README's list of what opens against
// the registry (ignoring case: a list item may start with the word).
func TestREADMENamesEveryFormat(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(b), "\nSRC is a file")
	if !ok {
		t.Fatal("README has no paragraph on SRC")
	}
	list, _, _ = strings.Cut(list, "\n## ")
	list = strings.ToLower(strings.Join(strings.Fields(list), " "))
	for _, f := range loader.Formats() {
		for _, w := range f.Titles {
			if !strings.Contains(list, strings.ToLower(w)) {
				t.Errorf("README's list of what opens does not name %s (format %s)", w, f.Name)
			}
		}
	}
}
