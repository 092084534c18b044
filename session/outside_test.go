package session

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader/metaimage"
)

// TestStatusNotesDataOutsideItsFolder: a MetaImage header whose data file
// lies outside its folder opens, and the status bar says where the data
// is read from.
func TestStatusNotesDataOutsideItsFolder(t *testing.T) {
	root := t.TempDir()
	ds, out := filepath.Join(root, "ds"), filepath.Join(root, "out")
	os.MkdirAll(ds, 0o755)
	os.MkdirAll(out, 0o755)
	os.WriteFile(filepath.Join(out, "m.raw"), make([]byte, 64), 0o644)
	hdr := filepath.Join(ds, "m.mhd")
	os.WriteFile(hdr, []byte("ObjectType = Image\nNDims = 2\nDimSize = 8 8\nElementType = MET_UCHAR\nElementDataFile = ../out/m.raw\n"), 0o644)
	src, err := metaimage.Open(context.Background(), hdr)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Options{})
	h.open(src, hdr)
	if st := h.s.Status().Text; !strings.Contains(st, "note: the data file") || !strings.Contains(st, "outside the dataset's folder") {
		t.Errorf("status %q says nothing of the data file outside", st)
	}
}
