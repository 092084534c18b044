package n5_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/app/cli"
	"vastview/base/testtool"
)

// TestCLI runs info --json and plane --out .raw on a container zarr's
// N5Store wrote: info lists its datasets as series with zarr's shapes,
// and the plane written from a dataset selected by path is the section
// zarr reads.
func TestCLI(t *testing.T) {
	testtool.RequirePython(t, "zarr", "numcodecs", "numpy")
	dir := t.TempDir()
	root := filepath.Join(dir, "c.n5")
	testtool.RunPython(t, `
import sys
import numpy as np
import numcodecs
import zarr
root = sys.argv[1]
g = zarr.group(store=zarr.N5Store(root))
a = g.create_dataset("em/raw", shape=(4, 30, 50), chunks=(2, 16, 16), dtype="uint16", compressor=numcodecs.GZip())
a[:] = (np.arange(4 * 30 * 50) * 13 % 65536).astype(np.uint16).reshape(4, 30, 50)
b = g.create_dataset("em/labels", shape=(4, 30, 50), chunks=(4, 32, 32), dtype="uint32", compressor=numcodecs.Zstd())
b[:] = 5
np.save(root + ".z3.npy", a[3].astype("<u2"))
`, root)
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"info", "--json", root}, &stdout, &stderr); code != 0 {
		t.Fatalf("info: %d %s", code, stderr.String())
	}
	var info struct {
		Format string `json:"format"`
		Series []struct {
			Selector string `json:"selector"`
			Name     string `json:"name"`
			Axes     string `json:"axes"`
			Shape    []int  `json:"shape"`
			DType    string `json:"dtype"`
		} `json:"series"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	series := ""
	for _, s := range info.Series {
		series += fmt.Sprintf("%s %s %s %s %v; ", s.Selector, s.Name, s.DType, s.Axes, s.Shape)
	}
	if info.Format != "n5" || series != "0 em/labels uint32 ZYX [4 30 50]; 1 em/raw uint16 ZYX [4 30 50]; " {
		t.Fatalf("info %s", stdout.String())
	}
	raw := filepath.Join(dir, "z3.raw")
	if code := cli.Run([]string{"plane", root + "#em/raw", "--z", "3", "--out", raw}, &stdout, &stderr); code != 0 {
		t.Fatalf("plane: %d %s", code, stderr.String())
	}
	got, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, want := testtool.ReadNPY(t, root+".z3.npy"); !bytes.Equal(got, want) {
		t.Errorf("plane z=3 of em/raw differs from zarr's")
	}
}
