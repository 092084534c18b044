package hdf5

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"vastview/base/testtool"
	"vastview/loader"
)

type fixture struct {
	File, Path, Npy string
}

// fixtures writes the h5py fixtures of group which ("core", "latest",
// "plugins") into a folder, once per test binary.
func fixtures(t *testing.T, which string, modules ...string) (string, []fixture) {
	t.Helper()
	testtool.RequirePython(t, append([]string{"h5py", "numpy"}, modules...)...)
	fixMu.Lock()
	defer fixMu.Unlock()
	if c, ok := fixCache[which]; ok {
		return c.dir, c.fs
	}
	dir, err := os.MkdirTemp(fixRoot, which)
	if err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile("testdata/fixtures.py")
	if err != nil {
		t.Fatal(err)
	}
	out := testtool.RunPython(t, string(script), dir, which)
	var fs []fixture
	if err := json.Unmarshal(out, &fs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	fixCache[which] = fixtureSet{dir, fs}
	return dir, fs
}

type fixtureSet struct {
	dir string
	fs  []fixture
}

var (
	fixMu    sync.Mutex
	fixCache = map[string]fixtureSet{}
	fixRoot  string
)

func TestMain(m *testing.M) {
	var err error
	if fixRoot, err = os.MkdirTemp("", "hdf5test"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(fixRoot)
	os.Exit(code)
}

// checkFixtures opens every dataset and compares all of its samples with
// what h5py read.
func checkFixtures(t *testing.T, dir string, fs []fixture) {
	t.Helper()
	ctx := context.Background()
	for _, fx := range fs {
		t.Run(fx.File+fx.Path, func(t *testing.T) {
			descr, shape, want := testtool.ReadNPY(t, fx.Npy)
			src, err := loader.Open(ctx, filepath.Join(dir, fx.File)+"#"+fx.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			m := src.Meta()
			if len(m.Shape) != len(shape) {
				t.Fatalf("shape %v, h5py %v", m.Shape, shape)
			}
			for i := range shape {
				if m.Shape[i] != shape[i] {
					t.Fatalf("shape %v, h5py %v", m.Shape, shape)
				}
			}
			if m.DType.Size() != len(want)/max(1, count(shape)) {
				t.Fatalf("dtype %v, h5py %s", m.DType, descr)
			}
			got, err := loader.ReadAll(ctx, src, 0, 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				n := 0
				for i := range got {
					if got[i] != want[i] {
						n++
					}
				}
				t.Fatalf("%d of %d bytes differ from h5py's (%s)", n, len(want), descr)
			}
		})
	}
}

func count(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

func TestEarliest(t *testing.T) {
	dir, fs := fixtures(t, "core")
	checkFixtures(t, dir, fs)
}

func TestLatest(t *testing.T) {
	dir, fs := fixtures(t, "latest")
	checkFixtures(t, dir, fs)
}

func TestPlugins(t *testing.T) {
	dir, fs := fixtures(t, "plugins", "hdf5plugin")
	checkFixtures(t, dir, fs)
}
