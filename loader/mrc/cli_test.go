package mrc_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/app/cli"
	"vastview/base/testtool"
)

// TestCLI runs info --json and plane --out .raw on a volume mrcfile
// wrote: the axes, shape, sample type and voxel size info prints are
// mrcfile's, and the plane written is the section mrcfile reads.
func TestCLI(t *testing.T) {
	testtool.RequirePython(t, "mrcfile", "numpy")
	dir := t.TempDir()
	path := filepath.Join(dir, "vol.mrc")
	out := testtool.RunPython(t, `
import sys, json
import numpy as np
import mrcfile
path = sys.argv[1]
with mrcfile.new(path, overwrite=True) as m:
    m.set_data((np.arange(4 * 6 * 9) * 37 % 3000 - 1500).astype(np.int16).reshape(4, 6, 9))
    m.voxel_size = (1.25, 1.5, 2.0)
with mrcfile.open(path) as m:
    np.save(path + ".z2.npy", m.data[2].astype("<i2"))
    vs = m.voxel_size
    print(json.dumps({"shape": list(m.data.shape), "voxel": [float(vs.z), float(vs.y), float(vs.x)]}))
`, path)
	var says struct {
		Shape []int     `json:"shape"`
		Voxel []float64 `json:"voxel"`
	}
	if err := json.Unmarshal(out, &says); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := cli.Run([]string{"info", "--json", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("info: %d %s", code, stderr.String())
	}
	var info struct {
		Format  string    `json:"format"`
		Axes    string    `json:"axes"`
		Shape   []int     `json:"shape"`
		DType   string    `json:"dtype"`
		Spacing []float64 `json:"spacing"`
		Units   []string  `json:"units"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &info); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if info.Format != "mrc" || info.Axes != "ZYX" || fmt.Sprint(info.Shape) != fmt.Sprint(says.Shape) || info.DType != "int16" ||
		fmt.Sprint(info.Spacing) != fmt.Sprint(says.Voxel) || fmt.Sprint(info.Units) != "[angstrom angstrom angstrom]" {
		t.Fatalf("info %s; mrcfile: shape %v voxel (z, y, x) %v Å", stdout.String(), says.Shape, says.Voxel)
	}
	raw := filepath.Join(dir, "z2.raw")
	stdout.Reset()
	if code := cli.Run([]string{"plane", path, "--z", "2", "--out", raw}, &stdout, &stderr); code != 0 {
		t.Fatalf("plane: %d %s", code, stderr.String())
	}
	got, err := os.ReadFile(raw)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, want := testtool.ReadNPY(t, path+".z2.npy"); !bytes.Equal(got, want) {
		t.Errorf("plane z=2 differs from mrcfile's section 2")
	}
	stderr.Reset()
	bad := filepath.Join(dir, "cut.mrc")
	b, _ := os.ReadFile(path)
	os.WriteFile(bad, b[:len(b)-10], 0o644)
	if code := cli.Run([]string{"info", bad}, &stdout, &stderr); code != 1 || bytes.Count(stderr.Bytes(), []byte("\n")) != 1 {
		t.Errorf("info on a cut file: exit %d, %q", code, stderr.String())
	}
}

// TestImpossibleHeader breaks one field of a header mrcfile wrote (its
// "MAP " stamp kept, so the file is recognised as MRC): info refuses it
// in one line that names the file and the field, not as a file of no
// known format.
func TestImpossibleHeader(t *testing.T) {
	testtool.RequirePython(t, "mrcfile", "numpy")
	dir := t.TempDir()
	path := filepath.Join(dir, "vol.mrc")
	testtool.RunPython(t, `
import sys, numpy as np, mrcfile
with mrcfile.new(sys.argv[1], overwrite=True) as m:
    m.set_data(np.zeros((3, 4, 5), np.int16))
`, path)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		off  int
		v    int32
		want string
	}{
		{0, 1<<31 - 1, "NX (samples along an axis) is 2147483647"},
		{4, 0, "NY (samples along an axis) is 0"},
		{8, -3, "NZ (samples along an axis) is -3"},
		{12, 99, "mode 99 (MODE) is not a mode MRC defines"},
	} {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[c.off:], uint32(c.v))
		bad := filepath.Join(dir, fmt.Sprintf("bad%d.mrc", c.off))
		if err := os.WriteFile(bad, b, 0o644); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"info", bad}, &stdout, &stderr)
		msg := stderr.String()
		if code != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, bad) || !strings.Contains(msg, "mrc: ") || !strings.Contains(msg, c.want) {
			t.Errorf("field at byte %d set to %d: exit %d, %q; want one line naming the file and %q", c.off, c.v, code, msg, c.want)
		}
	}
}
