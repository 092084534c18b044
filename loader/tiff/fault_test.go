//go:build unix

package tiff

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
	"vastview/loader/internal/faulttest"
	"vastview/loader/tiff/tiffwrite"
)

// fillPage sets every 16-bit sample of page k to k+1.
func fillPage(k int, buf []byte) {
	for i := 0; i < len(buf); i += 2 {
		buf[i], buf[i+1] = byte(k+1), 0
	}
}

// TestShrunkWhileOpening maps a TIFF whose first IFD lies after page 0's
// data (as libtiff writes), cuts the file to its header, then parses the
// mapping: the IFD is gone, and opening fails with a truncated error
// rather than crashing the program.
func TestShrunkWhileOpening(t *testing.T) {
	faulttest.Run(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "stack.tif")
		if err := tiffwrite.Stack(path, 256, 256, 4, loader.Uint16, fillPage); err != nil {
			t.Fatal(err)
		}
		lf, err := loader.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		if err := os.Truncate(path, int64(os.Getpagesize())); err != nil {
			t.Fatal(err)
		}
		_, err = newSource(lf, path, defaultBanding)
		expectTruncErr(t, err, "")
		if !errors.Is(err, loader.ErrChanged) || err.Error() != "tiff: the file changed while it was read: file is truncated" {
			t.Errorf("error %q", err)
		}
	})
}

// TestShrunkWhileReading opens stacks, reads every page, cuts the file in
// half and reads every page again: each page reads as before or fails with
// a truncated error naming the page; page 0 reads, the last page does not.
// It covers IFDs parsed from the mapping (a uniform stack), compressed
// blocks decoded from it (zlib) and positioned reads (ImageJ's contiguous
// images). The cut is at a memory page boundary: the mapping shows zeros
// from an unaligned cut to the end of its page, which can decode without
// an error; bytes parsed wrongly because of them are still a truncated
// error (the uniform stack cut unaligned).
func TestShrunkWhileReading(t *testing.T) {
	for _, c := range []struct {
		name    string
		aligned bool
		write   func(t *testing.T, path string)
	}{
		{"stack", true, writeStack},
		{"stack", false, writeStack},
		{"zlib", true, writeTifffile("compression='zlib'")},
		{"imagej", true, writeTifffile("imagej=True")},
	} {
		t.Run(fmt.Sprintf("%s aligned %v", c.name, c.aligned), func(t *testing.T) {
			faulttest.Run(t, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), c.name+".tif")
				c.write(t, path)
				expectShrunkPages(t, path, c.aligned)
			})
		})
	}
}

// writeStack writes 8 pages of 256x256 16-bit samples, each IFD after
// its page's data.
func writeStack(t *testing.T, path string) {
	if err := tiffwrite.Stack(path, 256, 256, 8, loader.Uint16, fillPage); err != nil {
		t.Fatal(err)
	}
}

// writeTifffile returns a writer of 8 pages of 256x256 random 16-bit
// samples with tifffile, given imwrite's options.
func writeTifffile(options string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		python(t, filepath.Dir(path), fmt.Sprintf(`
a = np.random.default_rng(5).integers(0, 65535, (8, 256, 256), dtype=np.uint16)
tifffile.imwrite(d + '/%s', a, %s)
`, filepath.Base(path), options))
	}
}

// expectShrunkPages reads every page of the TIFF at path, cuts it in half
// (at a memory page boundary if aligned) and checks what reads now.
func expectShrunkPages(t *testing.T, path string, aligned bool) {
	src := openTIFF(t, path)
	n := src.Meta().Shape[0]
	whole := make([][]byte, n)
	for k := range whole {
		b, err := readPage(src, k)
		if err != nil {
			t.Fatalf("page %d of the whole file: %v", k, err)
		}
		whole[k] = b
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := st.Size() / 2
	if page := int64(os.Getpagesize()); aligned {
		cut &^= page - 1
	} else if cut%page == 0 {
		cut += 100
	}
	if err := os.Truncate(path, cut); err != nil {
		t.Fatal(err)
	}
	for k := n - 1; k >= 0; k-- {
		b, err := readPage(src, k)
		switch {
		case err != nil && k == 0:
			t.Errorf("page 0 fails after the cut: %v", err)
		case err != nil:
			expectTruncErr(t, err, "page "+itoa(k))
		case k == n-1:
			t.Errorf("page %d reads after the cut", k)
		case !bytes.Equal(b, whole[k]):
			t.Errorf("page %d reads other samples after the cut", k)
		}
	}
}
