package cli

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vastview/loader"
)

// writeNRRD writes a uint16 ZYX volume of the given shape (a hash of each
// sample's position) as a raw NRRD file.
func writeNRRD(t *testing.T, path string, z, y, x int) {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "NRRD0004\ntype: uint16\ndimension: 3\nsizes: %d %d %d\nendian: little\nencoding: raw\n\n", x, y, z)
	for i := range z * y * x {
		v := uint32(i)*2654435761 + 12345
		binary.Write(&b, binary.LittleEndian, uint16(v^v>>15))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readLevels returns every level of the image at path, level 0 first.
func readLevels(t *testing.T, path string) [][]byte {
	t.Helper()
	src, err := loader.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out [][]byte
	for k := range src.Meta().Levels {
		b, err := loader.ReadAll(context.Background(), src, k, 1<<30)
		if err != nil {
			t.Fatalf("%s level %d: %v", filepath.Base(path), k, err)
		}
		out = append(out, b)
	}
	return out
}

// diskNotices returns the lines of stderr that say the disk cache is not
// used.
func diskNotices(stderr string) []string {
	var n []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "vastview: disk cache not used: ") {
			n = append(n, l)
		}
	}
	return n
}

// TestPyramidWithoutAWritableDiskCache exports with a disk cache that
// cannot be written: the export succeeds with the same levels as with a
// working cache, and stderr says once that the cache is not used.
func TestPyramidWithoutAWritableDiskCache(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "v.nrrd")
	writeNRRD(t, src, 20, 150, 140)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	ref := filepath.Join(dir, "ref.ome.zarr")
	if code, _, errs := vv("pyramid", src, ref, "--budget", "1MiB"); code != 0 || errs != "" {
		t.Fatalf("with a working cache: exit %d, %q", code, errs)
	}
	want := readLevels(t, ref)
	if len(want) < 3 {
		t.Fatalf("%d levels", len(want))
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "cache", "vastview", "levels", "*", "manifest.json"))
	if len(entries) != 1 {
		t.Fatalf("%d cache entries after the first export", len(entries))
	}
	entry := filepath.Dir(entries[0])

	cases := []struct {
		name  string
		spoil func(t *testing.T) (cacheHome string)
	}{
		{"cache folder under a regular file", func(t *testing.T) string {
			f := filepath.Join(dir, "file")
			os.WriteFile(f, nil, 0o644)
			return f
		}},
		{"level folders of the entry are files", func(t *testing.T) string {
			// The entry opens, and the first chunk written to it fails.
			for k := 1; k < len(want); k++ {
				l := filepath.Join(entry, fmt.Sprintf("L%d", k))
				if err := os.RemoveAll(l); err != nil {
					t.Fatal(err)
				}
				os.WriteFile(l, nil, 0o644)
			}
			return filepath.Join(dir, "cache")
		}},
		{"read-only cache folder", func(t *testing.T) string {
			if os.Geteuid() == 0 {
				t.Skip("permissions do not bind root")
			}
			levels := filepath.Join(dir, "ro", "vastview", "levels")
			os.MkdirAll(levels, 0o755)
			os.Chmod(levels, 0o555)
			t.Cleanup(func() { os.Chmod(levels, 0o755) })
			return filepath.Join(dir, "ro")
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("XDG_CACHE_HOME", c.spoil(t))
			out := filepath.Join(dir, fmt.Sprintf("out%d.ome.zarr", i))
			code, _, errs := vv("pyramid", src, out, "--budget", "1MiB")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			if n := diskNotices(errs); len(n) != 1 || strings.Count(errs, "\n") != 1 {
				t.Errorf("stderr %q: want one line saying the disk cache is not used", errs)
			}
			got := readLevels(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d levels, want %d", len(got), len(want))
			}
			for k := range want {
				if !bytes.Equal(got[k], want[k]) {
					t.Errorf("level %d differs from the export with a working cache", k)
				}
			}
		})
	}
}
