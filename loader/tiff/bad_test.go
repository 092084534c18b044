package tiff

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"vastview/loader"
)

// badFixtures writes valid tifffile files and copies of them with one field
// patched (positions as tifffile reports them).
const badFixtures = `
import shutil, struct
rng = np.random.default_rng(1)
data = rng.integers(0, 65535, (3, 20, 30), dtype=np.uint16)
tifffile.imwrite(d + '/plain.tif', data, photometric='minisblack')
tifffile.imwrite(d + '/zlib.tif', data, photometric='minisblack', compression='zlib', predictor=2)
tifffile.imwrite(d + '/nometa.tif', data, photometric='minisblack', metadata=None)
def patch(src, dst, page, code, fmt, value):
    shutil.copy(d + '/' + src, d + '/' + dst)
    with tifffile.TiffFile(d + '/' + src) as tf:
        pos = tf.pages[page].tags[code].valueoffset if code else tf.pages[page].offset + 2 + 12 * len(tf.pages[page].tags)
    with open(d + '/' + dst, 'r+b') as f:
        f.seek(pos)
        f.write(struct.pack('<' + fmt, value))
with tifffile.TiffFile(d + '/nometa.tif') as tf:
    first = tf.pages[0].offset
patch('nometa.tif', 'loop.tif', 2, 0, 'I', first)
patch('plain.tif', 'width0.tif', 0, 256, 'I', 0)
patch('plain.tif', 'huge.tif', 0, 257, 'I', 0x3fffffff)
patch('plain.tif', 'huger.tif', 0, 257, 'I', 0xffffffff)
patch('plain.tif', 'counts.tif', 0, 279, 'I', 0x7ffffff0)
patch('plain.tif', 'offsets.tif', 1, 273, 'I', 0x7ffffff0)
patch('plain.tif', 'bits24.tif', 0, 258, 'H', 24)
patch('plain.tif', 'rps0.tif', 0, 278, 'I', 0)
patch('zlib.tif', 'fpred.tif', 0, 317, 'H', 3)
patch('zlib.tif', 'pred9.tif', 0, 317, 'H', 9)
patch('zlib.tif', 'garbage.tif', 0, 273, 'I', 8)
size = len(open(d + '/plain.tif', 'rb').read())
open(d + '/truncated.tif', 'wb').write(open(d + '/plain.tif', 'rb').read()[:size * 2 // 3])
open(d + '/header.tif', 'wb').write(open(d + '/plain.tif', 'rb').read()[:6])
`

func TestBadFiles(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, badFixtures)
	cases := []struct {
		file, want  string
		unsupported bool
		truncated   bool
	}{
		{"truncated.tif", "page 2: block 0", false, true},
		{"header.tif", "too short", false, true},
		{"loop.tif", "loops back", false, false},
		{"width0.tif", "bad image size 0x20", false, false},
		{"huge.tif", "more than the file can hold", false, false},
		{"huger.tif", "bad image size 30x4294967295", false, false},
		{"counts.tif", "exceed the file", false, true},
		{"offsets.tif", "exceed the file", false, true},
		{"rps0.tif", "RowsPerStrip is 0", false, false},
		{"fpred.tif", "floating-point predictor on uint16", false, false},
		{"garbage.tif", "block 0", false, false},
		{"bits24.tif", "24-bit unsigned samples", true, false},
		{"pred9.tif", "predictor 9", true, false},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			err := openErr(t, filepath.Join(dir, c.file))
			t.Log(err)
			if c.unsupported {
				var ue *loader.UnsupportedError
				if !errors.As(err, &ue) || ue.Feature != c.want {
					t.Fatalf("error %v, want unsupported %s", err, c.want)
				}
				return
			}
			expectFormatErr(t, err, c.want)
			if errors.Is(err, loader.ErrTruncated) != c.truncated {
				t.Fatalf("errors.Is(%v, loader.ErrTruncated) is %v", err, !c.truncated)
			}
		})
	}
}

// A file whose IFD chain loops through pages after the first few (so that
// the loop is only found by walking) is an error, found without hanging.
func TestLoopInLongChain(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, `
import struct
rng = np.random.default_rng(2)
with tifffile.TiffWriter(d + '/loop.tif') as tw:
    for k in range(40):
        tw.write(rng.integers(0, 255, (8, 5 + k % 3), dtype=np.uint8), compression='zlib', photometric='minisblack')
with tifffile.TiffFile(d + '/loop.tif') as tf:
    p = tf.pages[39]
    pos = p.offset + 2 + 12 * len(p.tags)
    target = tf.pages[20].offset
with open(d + '/loop.tif', 'r+b') as f:
    f.seek(pos)
    f.write(struct.pack('<I', target))
`)
	_, err := loader.Open(context.Background(), filepath.Join(dir, "loop.tif"))
	expectFormatErr(t, err, "loops back")
}

func TestNotTIFF(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.tif")
	if err := os.WriteFile(p, []byte("II*\x00\x08\x00\x00\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := loader.Open(context.Background(), p)
	expectFormatErr(t, err, "IFD")
}
