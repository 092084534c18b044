// Package clitest runs the command line on HDF5 files h5py writes; it is
// apart from package hdf5 so that its tests (and fuzzing) do not build the
// user interface the command line links.
package clitest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"vastview/internal/cli"
	"vastview/internal/testtool"
)

// TestCLI runs info --json and plane --out x.raw on a file h5py wrote: the
// series listed are its datasets, and the plane is h5py's.
func TestCLI(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	p := filepath.Join(dir, "cli.h5")
	testtool.RunPython(t, `
import sys, h5py, numpy as np
rng = np.random.default_rng(1)
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('grp/stack', data=rng.integers(0, 60000, (4, 30, 20), dtype=np.uint16), chunks=(1, 16, 16), compression='gzip')
    f.create_dataset('small', data=np.zeros((5, 6), 'f4'))
    f['grp/stack'][2].astype('<u2').tofile(sys.argv[2])
`, p, filepath.Join(dir, "want.raw"))
	var out, errb bytes.Buffer
	if rc := cli.Run([]string{"info", "--json", p}, &out, &errb); rc != 0 {
		t.Fatalf("info: %d %s", rc, errb.String())
	}
	var info struct {
		Format, Axes, Dtype string
		Shape               []int
		Series              []struct {
			Selector, Name string
			Shape          []int
		}
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if info.Format != "hdf5" || info.Axes != "ZYX" || info.Dtype != "uint16" || len(info.Shape) != 3 || info.Shape[0] != 4 {
		t.Errorf("info %+v", info)
	}
	if len(info.Series) != 2 || info.Series[0].Name != "/grp/stack" || info.Series[1].Name != "/small" {
		t.Errorf("series %+v", info.Series)
	}
	raw := filepath.Join(dir, "got.raw")
	errb.Reset()
	if rc := cli.Run([]string{"plane", p + "#/grp/stack", "--z", "2", "--out", raw}, &out, &errb); rc != 0 {
		t.Fatalf("plane: %d %s", rc, errb.String())
	}
	got, _ := os.ReadFile(raw)
	want, _ := os.ReadFile(filepath.Join(dir, "want.raw"))
	if len(want) != 30*20*2 || !bytes.Equal(got, want) {
		t.Errorf("plane: %d bytes, h5py %d, equal %v", len(got), len(want), bytes.Equal(got, want))
	}
	errb.Reset()
	if rc := cli.Run([]string{"info", p + "#/nothing"}, &out, &errb); rc != 1 || bytes.Count(bytes.TrimSpace(errb.Bytes()), []byte("\n")) != 0 {
		t.Errorf("bad selector: %d %q", rc, errb.String())
	}
}

// TestCLIImaris: info --json on Bitplane's minimal Imaris file gives the
// size h5py reads from its Channel group.
func TestCLIImaris(t *testing.T) {
	const ims = "/work/shared/testdata/ims/Minimal_IMS_File.ims"
	if _, err := os.Stat(ims); err != nil {
		t.Skip(err)
	}
	testtool.RequirePython(t, "h5py")
	want := testtool.RunPython(t, `
import sys, json, h5py
c = h5py.File(sys.argv[1], 'r')['DataSet/ResolutionLevel 0/TimePoint 0/Channel 0']
print(json.dumps([int(b''.join(c.attrs['ImageSize' + k])) for k in 'ZYX']))
`, ims)
	var out, errb bytes.Buffer
	if rc := cli.Run([]string{"info", "--json", ims}, &out, &errb); rc != 0 {
		t.Fatalf("info: %d %s", rc, errb.String())
	}
	var info struct {
		Format, Axes, Dtype string
		Shape               []int
	}
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		t.Fatal(err)
	}
	var size []int
	if err := json.Unmarshal(want, &size); err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(info.Shape)
	exp, _ := json.Marshal(size)
	if info.Format != "imaris" || info.Axes != "ZYX" || info.Dtype != "uint16" || string(got) != string(exp) {
		t.Errorf("info %+v, h5py size %s", info, want)
	}
}
