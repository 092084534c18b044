package n5

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMatch: addresses at or below a .n5 folder are N5's, other addresses
// (a Zarr store, even one inside an N5 folder) are left to the Zarr
// reader; a folder is N5's by its attributes.json (a marker: opening then
// says what is wrong with one that is not N5's), a Zarr folder is not.
func TestMatch(t *testing.T) {
	for loc, want := range map[string]bool{
		"https://h/data.n5":                      true,
		"https://h/data.n5/":                     true,
		"http://h/data.N5/setup0/timepoint0?x=1": true,
		"https://h/data.n5/sub/img.zarr":         false,
		"https://h/img.zarr":                     false,
		"https://h/img":                          false,
	} {
		if got := Match(loc, nil); got != want {
			t.Errorf("%s: %v, want %v", loc, got, want)
		}
	}
	dir := t.TempDir()
	write := func(p, s string) {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "plain", attributesFile), `{"n5": "4.0.0"}`)
	write(filepath.Join(dir, "ds", attributesFile), `{"dimensions": [3, 4], "blockSize": [3, 4], "dataType": "uint8"}`)
	write(filepath.Join(dir, "named.n5", attributesFile), `{}`)
	write(filepath.Join(dir, "other", attributesFile), `{"title": "not N5"}`)
	write(filepath.Join(dir, "z.zarr", ".zarray"), `{}`)
	for name, want := range map[string]bool{"plain": true, "ds": true, "named.n5": true, "other": true, "z.zarr": false} {
		if got := Match(filepath.Join(dir, name), nil); got != want {
			t.Errorf("folder %s: %v, want %v", name, got, want)
		}
	}
	if Match(filepath.Join(dir, "ds"), []byte("a file")) {
		t.Error("a file matched")
	}
}
