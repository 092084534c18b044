package tiff

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"

	"vastview/base/testtool"
)

// Without imagecodecs tifffile cannot write ZSTD, so this fixture is made by
// re-compressing the Deflate strips of a tifffile file with klauspost zstd
// (ImageMagick's ZSTD files are tested in TestImageMagick). The last strip
// of each page is stored at the full strip height (tifffile pads it), so
// it decodes to more than the page needs.
func TestZSTDRecompressed(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.tif")
	python(t, dir, `
import json
rng = np.random.default_rng(10)
tifffile.imwrite(d + '/base.tif', rng.integers(0, 99, (2, 30, 20), dtype=np.uint16), photometric='minisblack',
    compression='zlib', predictor=2, rowsperstrip=7)
out = []
with tifffile.TiffFile(d + '/base.tif') as tf:
    for p in tf.pages:
        out.append({'offsets': list(p.dataoffsets), 'counts': list(p.databytecounts),
            'offpos': p.tags['StripOffsets'].valueoffset, 'cntpos': p.tags['StripByteCounts'].valueoffset,
            'comppos': p.tags['Compression'].valueoffset,
            'offtype': int(p.tags['StripOffsets'].dtype), 'cnttype': int(p.tags['StripByteCounts'].dtype)})
json.dump(out, open(d + '/layout.json', 'w'))
`)
	var pages []struct {
		Offsets, Counts         []int64
		Offpos, Cntpos, Comppos int64
		Offtype, Cnttype        int
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(dir, "layout.json")), &pages); err != nil {
		t.Fatal(err)
	}
	b := readFile(t, base)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	const rowBytes, rps = 20 * 2, 7
	le := binary.LittleEndian
	for _, p := range pages {
		if len(p.Offsets) != 5 {
			t.Fatalf("tifffile wrote %d strips, want 5", len(p.Offsets))
		}
		for i, off := range p.Offsets {
			zr, err := zlib.NewReader(bytes.NewReader(b[off : off+p.Counts[i]]))
			if err != nil {
				t.Fatal(err)
			}
			strip, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			strip = append(strip, make([]byte, rps*rowBytes-len(strip))...)
			z := enc.EncodeAll(strip, nil)
			put(b, p.Offpos, p.Offtype, i, len(b))
			put(b, p.Cntpos, p.Cnttype, i, len(z))
			b = append(b, z...)
		}
		le.PutUint16(b[p.Comppos:], cZSTD)
	}
	zpath := filepath.Join(dir, "zstd.tif")
	if err := os.WriteFile(zpath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	testtool.RequirePython(t, "tifffile")
	src := expectRef(t, zpath, "ZYX", tifffileRead(t, base)[base])
	if c := src.(*source).p0.compression; c != cZSTD {
		t.Fatalf("compression %d", c)
	}
}

// put stores v as element i of a SHORT or LONG little-endian array at pos.
func put(b []byte, pos int64, typ, i, v int) {
	if typ == tShort {
		binary.LittleEndian.PutUint16(b[pos+2*int64(i):], uint16(v))
		return
	}
	binary.LittleEndian.PutUint32(b[pos+4*int64(i):], uint32(v))
}
