//go:build unix

package nrrd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/faulttest"
	"vastview/loader/internal/loadertest"
)

// TestShrunkWhileReading opens raw NRRD data (attached, and detached in a
// data file), reads every plane, cuts the data file to a memory page
// boundary near its middle and reads every plane again: each plane reads
// as before or fails with a truncated error naming the data file when it
// is not the header; the first plane reads, the last does not.
func TestShrunkWhileReading(t *testing.T) {
	for _, detached := range []bool{false, true} {
		t.Run(fmt.Sprintf("detached %v", detached), func(t *testing.T) {
			faulttest.Run(t, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "a.nrrd")
				data := path
				if detached {
					path, data = filepath.Join(dir, "h.nhdr"), filepath.Join(dir, "data.raw")
					loadertest.WriteFile(t, path, []byte(planeHeader+"data file: data.raw\n"))
					loadertest.WriteFile(t, data, planes())
				} else {
					loadertest.WriteFile(t, path, append([]byte(planeHeader+"\n"), planes()...))
				}
				want := "nrrd: reading data: the file changed while it was read: file is truncated"
				if detached {
					want = `nrrd: reading data file "data.raw": the file changed while it was read: file is truncated`
				}
				expectShrunkPlanes(t, path, data, want)
			})
		})
	}
}

// expectShrunkPlanes reads every plane of the source at path, cuts the
// file data (at a memory page boundary near its middle) and checks what
// reads now: the planes the file lost fail with the error want.
func expectShrunkPlanes(t *testing.T, path, data, want string) {
	ctx := context.Background()
	src, err := loader.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	m := src.Meta()
	n, size := m.Shape[0], m.Levels[0].ChunkBytes(m.DType)
	whole := make([][]byte, n)
	for z := range whole {
		whole[z] = make([]byte, size)
		if err := src.ReadChunk(ctx, 0, []int{z, 0, 0}, whole[z]); err != nil {
			t.Fatalf("plane %d of the whole file: %v", z, err)
		}
	}
	st, err := os.Stat(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(data, st.Size()/2&^int64(os.Getpagesize()-1)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, size)
	for z := n - 1; z >= 0; z-- {
		err := src.ReadChunk(ctx, 0, []int{z, 0, 0}, buf)
		var fe *loader.FormatError
		switch {
		case err != nil && z == 0:
			t.Errorf("plane 0 fails after the cut: %v", err)
		case err != nil && (!errors.Is(err, loader.ErrTruncated) || !errors.As(err, &fe) || err.Error() != want):
			t.Errorf("plane %d: error %q, want %q matching loader.ErrTruncated", z, err, want)
		case err == nil && z == n-1:
			t.Errorf("plane %d reads after the cut", z)
		case err == nil && !bytes.Equal(buf, whole[z]):
			t.Errorf("plane %d reads other samples after the cut", z)
		}
	}
}
