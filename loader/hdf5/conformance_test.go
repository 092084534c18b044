package hdf5

import (
	"os"
	"path/filepath"
	"testing"

	"vastview/base/testtool"
	"vastview/loader/internal/loadertest"
)

// TestConformance runs the Source conformance suite over every dataset
// h5py wrote (earliest and latest file formats), each file as a whole (a
// file of several series), Imaris files (Bitplane's example and one
// written as Imaris does) and BigDataViewer XML with HDF5 and N5 data.
func TestConformance(t *testing.T) {
	files := map[string]bool{}
	for _, which := range []string{"core", "latest"} {
		dir, fs := fixtures(t, which)
		for _, fx := range fs {
			p := filepath.Join(dir, fx.File)
			files[p] = true
			t.Run(which+"/"+fx.File+fx.Path, func(t *testing.T) { loadertest.ConformanceFile(t, "hdf5", p+"#"+fx.Path) })
		}
	}
	for p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) { loadertest.ConformanceFile(t, "hdf5", p) })
	}
	t.Run("imaris", func(t *testing.T) {
		if _, err := os.Stat(realIMS); err == nil {
			loadertest.ConformanceFile(t, "hdf5", realIMS)
		}
		script, err := os.ReadFile("testdata/imaris.py")
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		ims := filepath.Join(dir, "made.ims")
		testtool.RunPython(t, string(script), ims, filepath.Join(dir, "ref"), "um")
		loadertest.ConformanceFile(t, "hdf5", ims)
	})
	for _, mode := range []string{"channels", "series"} {
		t.Run("bdv-"+mode, func(t *testing.T) {
			dir, _ := writeBDV(t, mode)
			loadertest.ConformanceFile(t, "bdv", filepath.Join(dir, "data.xml"))
		})
	}
	t.Run("bdv-n5", func(t *testing.T) {
		testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
		dir := t.TempDir()
		testtool.RunPython(t, bdvN5Script, dir)
		loadertest.ConformanceFile(t, "bdv", filepath.Join(dir, "data.xml"))
	})
}
