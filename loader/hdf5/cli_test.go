package hdf5_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/app/cli"
	"vastview/base/testtool"
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
	ims := testtool.SharedData(t, "ims/Minimal_IMS_File.ims")
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

// TestChunkTooLarge: a 3-D dataset h5py declares with chunks of 3.84 GB
// (HDF5 allows up to 4 GiB) is refused in one line that names the
// dataset, its chunks and their size, not as a file with no dataset of 2
// to 5 dimensions.
func TestChunkTooLarge(t *testing.T) {
	testtool.RequirePython(t, "h5py")
	p := filepath.Join(t.TempDir(), "big.h5")
	testtool.RunPython(t, `
import sys, h5py
with h5py.File(sys.argv[1], 'w') as f:
    f.create_dataset('vol', shape=(1000, 2000, 960), chunks=(1000, 2000, 960), dtype='u2')
`, p)
	var out, errb bytes.Buffer
	rc := cli.Run([]string{"info", p}, &out, &errb)
	msg := errb.String()
	t.Logf("%s", msg)
	if rc != 1 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, p) || !strings.Contains(msg, "/vol") ||
		!strings.Contains(msg, "chunks of 1000×2000×960 samples") || !strings.Contains(msg, "3.84 GB") {
		t.Errorf("exit %d, %q; want one line naming the file, /vol, its chunks and their size", rc, msg)
	}
}

// TestBigChunkDecodesInPlace: plane on a 300 kB file holding one
// 8192×8192 uint16 gzip chunk of zeros (a 128 MiB plane) decodes the
// chunk into the plane itself: the peak memory is the plane and a bounded
// working set (it was about four planes: the plane, the decoded chunk
// grown by doubling, and its copy). The command line runs in a child
// process built without the race detector (testtool.CLICommand). A budget smaller
// than the chunk is refused by pyramid in one line, as for any file.
func TestBigChunkDecodesInPlace(t *testing.T) {
	testtool.RequirePython(t, "h5py", "numpy")
	dir := t.TempDir()
	src := filepath.Join(dir, "zeros.h5")
	testtool.RunPython(t, `
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], 'w') as f:
    d = f.create_dataset('img', shape=(8192, 8192), dtype='u2', chunks=(8192, 8192), compression='gzip')
    d[:4096] = 0
    d[4096:] = 0
`, src)
	const plane = 8192 * 8192 * 2
	out := filepath.Join(dir, "plane.raw")
	cmd := testtool.CLICommand(t, "plane", src, "--out", out)
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "LANG=en_US.UTF-8")
	msg, peak, err := testtool.PeakRSS(t, cmd)
	if err != nil {
		t.Fatalf("plane: %v\n%s", err, msg)
	}
	t.Logf("peak RSS %d MiB for a plane of %d MiB", peak>>20, plane>>20)
	if peak > plane+96<<20 {
		t.Errorf("peak RSS %d MiB, more than the plane of %d MiB and 96 MiB", peak>>20, plane>>20)
	}
	if st, err := os.Stat(out); err != nil || st.Size() != plane {
		t.Fatalf("plane written: %v %v", st, err)
	}
	cmd = testtool.CLICommand(t, "pyramid", src, filepath.Join(dir, "out.ome.zarr"), "--budget", "64MiB")
	cmd.Env = append(cmd.Env, "XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "LANG=en_US.UTF-8")
	msg, err = cmd.CombinedOutput()
	if s := strings.TrimSpace(string(msg)); err == nil || strings.Count(s, "\n") > 0 || !strings.Contains(s, "larger than the memory budget of 64 MiB") {
		t.Errorf("a budget smaller than a chunk: %v: %q", err, s)
	}
}
