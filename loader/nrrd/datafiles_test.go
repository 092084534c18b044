package nrrd

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/loadertest"
)

// planeHeader is the header of 16 planes of 128x128 16-bit samples.
const planeHeader = "NRRD0004\ntype: uint16\ndimension: 3\nsizes: 128 128 16\nendian: little\nencoding: raw\n"

// planes returns the samples of planeHeader's array: plane z all z+1.
func planes() []byte {
	b := make([]byte, 16*128*128*2)
	for i := 0; i < len(b); i += 2 {
		b[i] = byte(i/(128*128*2) + 1)
	}
	return b
}

// TestDataFilesNamed checks that Meta.DataFiles names the file a detached
// header makes the reader read, wherever it is, and nothing when the data
// is the header's own file.
func TestDataFilesNamed(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	raw := filepath.Join(dir, "outside.raw")
	loadertest.WriteFile(t, raw, planes())
	self := filepath.Join(dir, "self.nhdr")
	hdr := planeHeader + "data file: self.nhdr\nbyte skip: -1\n\n"
	loadertest.WriteFile(t, self, append([]byte(hdr), planes()...))
	for _, c := range []struct {
		name, dataFile string
		want           []string
	}{
		{"relative.nhdr", "../outside.raw", []string{raw}},
		{"absolute.nhdr", raw, []string{raw}},
		{"../self.nhdr", "", nil},
	} {
		path := filepath.Join(sub, c.name)
		if c.dataFile != "" {
			loadertest.WriteFile(t, path, []byte(planeHeader+"data file: "+c.dataFile+"\n"))
		}
		src, err := loader.Open(context.Background(), path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := src.Meta().DataFiles; !slices.Equal(got, c.want) || strings.Contains(strings.Join(got, ""), "..") {
			t.Errorf("%s: data files %q, want %q", c.name, got, c.want)
		}
		src.Close()
	}
}
