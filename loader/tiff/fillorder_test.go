package tiff

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fillOrderFixtures writes uncompressed single-strip TIFFs with FillOrder 2
// (bits of each byte stored least significant first) in both byte orders
// and several sample types, from the same stored bytes, and, where Pillow
// reads one, writes Pillow's samples (little-endian) beside it as .pil.
const fillOrderFixtures = `
import struct
try:
    from PIL import Image
except ImportError:
    Image = None
def tiff(path, bo, raw, w, h, bits, fmt):
    e = '<' if bo == 'II' else '>'
    tags = [(256, 3, w), (257, 3, h), (258, 3, bits), (259, 3, 1), (262, 3, 1), (266, 3, 2),
            (273, 4, 0), (277, 3, 1), (278, 3, h), (279, 4, len(raw)), (339, 3, fmt)]
    n = len(tags)
    data = 8 + 2 + 12 * n + 4
    out = bo.encode() + struct.pack(e + 'HI', 42, 8) + struct.pack(e + 'H', n)
    for t, typ, v in tags:
        v = data if t == 273 else v
        out += struct.pack(e + 'HHIHH', t, typ, 1, v, 0) if typ == 3 else struct.pack(e + 'HHII', t, typ, 1, v)
    open(path, 'wb').write(out + struct.pack(e + 'I', 0) + raw)
rng = np.random.default_rng(16)
raw = bytes([0x80, 0x07]) + rng.integers(0, 256, 6 * 5 * 8 - 2, dtype=np.uint8).tobytes()
for name, bits, fmt, dt in (('u16', 16, 1, 'u2'), ('i16', 16, 2, 'i2'), ('u8', 8, 1, 'u1'), ('f32', 32, 3, 'f4')):
    n = 6 * 5 * bits // 8
    for bo in ('II', 'MM'):
        p = '%s/%s_%s.tif' % (d, name, bo)
        tiff(p, bo, raw[:n], 6, 5, bits, fmt)
        try:
            a = np.asarray(Image.open(p))  # Pillow reads little-endian 16 bits, not big-endian
        except Exception:
            continue
        if a.dtype.itemsize == int(dt[1]) and a.shape == (5, 6):
            a.astype(a.dtype.newbyteorder('<')).tofile(p + '.pil')
`

// TestFillOrder2 reads TIFFs whose bytes have their bits reversed
// (FillOrder 2) as tifffile and Pillow do: each byte's bits reversed, then
// the samples in the file's byte order (a little-endian 16-bit sample
// stored as 80 07 is 0xE001, not byte-swapped to 480).
func TestFillOrder2(t *testing.T) {
	dir := t.TempDir()
	python(t, dir, fillOrderFixtures)
	var paths []string
	for _, name := range []string{"u16", "i16", "u8", "f32"} {
		for _, bo := range []string{"II", "MM"} {
			paths = append(paths, filepath.Join(dir, name+"_"+bo+".tif"))
		}
	}
	refs := tifffileRead(t, paths...)
	pillow := 0
	for _, p := range paths {
		got := readAll(t, openTIFF(t, p))
		if !bytes.Equal(got, refs[p].Data) {
			t.Errorf("%s: % x, tifffile % x", filepath.Base(p), got[:8], refs[p].Data[:8])
		}
		if pil, err := os.ReadFile(p + ".pil"); err == nil {
			pillow++
			if !bytes.Equal(got, pil) {
				t.Errorf("%s: % x, Pillow % x", filepath.Base(p), got[:8], pil[:8])
			}
		}
	}
	if !strings.HasPrefix(string(refs[paths[0]].Data), "\x01\xe0") {
		t.Errorf("tifffile's first u16_II sample % x, want 0xe001", refs[paths[0]].Data[:2])
	}
	t.Logf("%d of the files compared with Pillow too", pillow)
}
