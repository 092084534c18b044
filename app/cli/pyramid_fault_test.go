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
		binary.Write(&b, binary.LittleEndian, sampleAt(i))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sampleAt is the value writeNRRD and writeZarr store at flat index i.
func sampleAt(i int) uint16 {
	v := uint32(i)*2654435761 + 12345
	return uint16(v ^ v>>15)
}

// writeZarr writes the volume writeNRRD writes as an uncompressed Zarr v2
// array in chunks of 5×64×64, which the levels are not streamed from.
func writeZarr(t *testing.T, dir string, z, y, x int) {
	t.Helper()
	const cz, cy, cx = 5, 64, 64
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := fmt.Sprintf(`{"zarr_format": 2, "shape": [%d, %d, %d], "chunks": [%d, %d, %d], "dtype": "<u2",
		"compressor": null, "fill_value": 0, "order": "C", "filters": null}`, z, y, x, cz, cy, cx)
	if err := os.WriteFile(filepath.Join(dir, ".zarray"), []byte(meta), 0o644); err != nil {
		t.Fatal(err)
	}
	for k := 0; k*cz < z; k++ {
		for j := 0; j*cy < y; j++ {
			for i := 0; i*cx < x; i++ {
				chunk := make([]byte, 2*cz*cy*cx)
				for a := range cz {
					for b := range cy {
						for c := range cx {
							zz, yy, xx := k*cz+a, j*cy+b, i*cx+c
							if zz < z && yy < y && xx < x {
								binary.LittleEndian.PutUint16(chunk[2*((a*cy+b)*cx+c):], sampleAt((zz*y+yy)*x+xx))
							}
						}
					}
				}
				name := filepath.Join(dir, fmt.Sprintf("%d.%d.%d", k, j, i))
				if err := os.WriteFile(name, chunk, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		}
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

// TestPyramidWithoutAWritableDiskCache exports a chunked volume, whose
// levels are computed into the disk cache and read back, with a disk cache
// that cannot be written: the export succeeds with the same levels as with
// a working cache, and stderr says once that the cache is not used.
func TestPyramidWithoutAWritableDiskCache(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "v.zarr")
	writeZarr(t, src, 20, 520, 520)
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
		{"level files of the entry are folders", func(t *testing.T) string {
			// The entry opens, and the first chunk written to it fails.
			for k := 1; k < len(want); k++ {
				l := filepath.Join(entry, fmt.Sprintf("L%d.0", k))
				if err := os.RemoveAll(l); err != nil {
					t.Fatal(err)
				}
				os.Mkdir(l, 0o755)
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

// TestPyramidOfPlanesStreams exports the same volume from a file of whole
// planes, whose levels are computed as they are written: the levels equal
// those computed through the disk cache from the chunked copy, and the
// disk cache is neither written nor needed (a cache folder that cannot be
// used goes unmentioned).
func TestPyramidOfPlanesStreams(t *testing.T) {
	dir := t.TempDir()
	planes, chunked := filepath.Join(dir, "v.nrrd"), filepath.Join(dir, "v.zarr")
	writeNRRD(t, planes, 20, 520, 520)
	writeZarr(t, chunked, 20, 520, 520)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	ref := filepath.Join(dir, "ref.ome.zarr")
	if code, _, errs := vv("pyramid", chunked, ref, "--budget", "4MiB"); code != 0 || errs != "" {
		t.Fatalf("chunked: exit %d, %q", code, errs)
	}
	want := readLevels(t, ref)
	os.RemoveAll(filepath.Join(dir, "cache"))
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	for _, cache := range []string{filepath.Join(dir, "cache"), f} {
		t.Setenv("XDG_CACHE_HOME", cache)
		out := filepath.Join(dir, "out.ome.zarr")
		if code, _, errs := vv("pyramid", planes, out, "--budget", "4MiB", "--overwrite"); code != 0 || errs != "" {
			t.Fatalf("planes, cache %s: exit %d, %q", filepath.Base(cache), code, errs)
		}
		got := readLevels(t, out)
		if len(got) != len(want) || len(want) < 3 {
			t.Fatalf("%d levels, want %d (at least 3)", len(got), len(want))
		}
		for k := range want {
			if !bytes.Equal(got[k], want[k]) {
				t.Errorf("level %d differs from the chunked copy's", k)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "cache")); !os.IsNotExist(err) {
		t.Errorf("the disk cache was created: %v", err)
	}
}
