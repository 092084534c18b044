package formats

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
)

// FuzzDetect gives the registry any bytes under names several formats
// know: deciding never panics, and says one format or why not.
func FuzzDetect(f *testing.F) {
	f.Add([]byte("II*\x00\x08\x00\x00\x00"), uint8(0))
	f.Add(append(make([]byte, 128), "DICM"...), uint8(1))
	f.Add([]byte("\x89PNG\r\n\x1a\n"), uint8(2))
	f.Add([]byte("NRRD0004\ntype: uint8\n"), uint8(3))
	f.Add([]byte("ObjectType = Image\nNDims = 2\n"), uint8(4))
	f.Add([]byte("\x00\x00\x00\x0cjP  \r\n\x87\n"), uint8(5))
	names := []string{"x.tif", "x.dcm", "x.png", "x.nrrd", "x.mha", "x.nd2", "x.spe", "x.mrc", "x.xml", "x.img", "x.mov", "x"}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, name uint8) {
		p := filepath.Join(dir, names[int(name)%len(names)])
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if fm, err := loader.Detect(p); (fm.Name == "") == (err == nil) {
			t.Fatalf("format %q and error %v", fm.Name, err)
		}
	})
}
